#!/usr/bin/env bash
# A session on several hosts, from synthetic sessions (no guest, no kernel):
# host b's patched runs 20 % slower and host a's not gives per-host results,
# a pooled verdict and a heterogeneity warning next to the primary (HTML,
# text, JSON, which conforms to the schema); hosts that agree (both
# unchanged, both 20 % slower) give the per-host table and no warning; a
# one-host session renders exactly as a session whose records carry no
# host at all; a hostile host name reaches the HTML escaped; a bad host in
# a record is an error naming the run. About 3 s.
# run-all: paired
# run-all: quick
. "$(dirname "$0")/../lib/common.sh"
GEN=tests/fixtures/gen-reports.py
HOSTILE='h<script>x</script>"&amp'

gen() { python3 "$GEN" hosts "$@" || fail "generator failed: $*"; }
report() {	# report SESSION PREFIX: PREFIX.json, .html, .txt
	"$LAB" report "$1" --json -o "$2.json" || fail "report --json failed on $1"
	"$LAB" report "$1" --html "$2.html" --text -o "$2.txt" || fail "report failed on $1"
}
# check JSON PYTHON-EXPR MESSAGE
check() { [ "$(json_get "$1" "$2")" = True ] || fail "$3 ($1: $2)"; }

# One host slower: warned, per host, pooled, and the verdict pooled.
gen "$TMP/split.json" --hosts "a,$HOSTILE" --slow-host "$HOSTILE" --slow 0.2
report "$TMP/split.json" "$TMP/split-r"
r="$TMP/split-r.json"
check "$r" 'all(len(x["hosts"]) == 2 and x["heterogeneity"]["heterogeneous"] for x in d["results"])' \
	"both primaries should be heterogeneous"
check "$r" 'all(abs(x["hosts"][1]["delta_pct"]) > 15 > 5 > abs(x["hosts"][0]["delta_pct"]) for x in d["results"])' \
	"per-host changes are not the generated ones"
check "$r" 'all(x["pooled"]["basis"] == "pooled" and x["p_used"] is not None and x["pooled"]["ci"]["lo"] > 0 for x in d["results"])' \
	"the verdict does not rest on the pooled estimate"
check "$r" '[w["kind"] for w in d["warnings"]].count("host-heterogeneity") == 1' "no report-level warning"
check "$r" 'all(any(w["kind"] == "host-heterogeneity" for w in x["warnings"]) for x in d["results"])' \
	"no per-metric warning"
grep -q '<section id="hosts">' "$TMP/split-r.html" || fail "no per-host section in the HTML"
[ "$(grep -c '<tr class="het">' "$TMP/split-r.html")" = 2 ] || fail "no warning under each primary in the HTML"
grep -q '<td>a</td><td class="num">12 / 12</td>' "$TMP/split-r.html" || fail "no row for host a"
grep -q 'h&lt;script&gt;x&lt;/script&gt;&quot;&amp;amp' "$TMP/split-r.html" || fail "hostile host name not shown escaped"
grep -q '<script' "$TMP/split-r.html" && fail "a host name reached the HTML unescaped"
grep -Eq '^      host a: 12/12 runs, .* [-+][0-9.]+% \[' "$TMP/split-r.txt" || fail "no host line in the text"
grep -q '^    WARNING: hosts disagree beyond their' "$TMP/split-r.txt" || fail "no warning in the text"
awk 'length($0) > 80 { bad = 1 } END { exit bad }' "$TMP/split-r.txt" || fail "text lines over 80 columns"
python3 - "$TMP/split-r.html" <<'PY' || fail "the per-host section or a warning row is not well formed"
import html.parser, re, sys
page = open(sys.argv[1]).read()
parts = re.findall(r'<section id="hosts">.*?</section>', page, re.S)
parts += re.findall(r'<tr class="het">.*?</tr>', page, re.S)
assert len(parts) == 3, len(parts)
class P(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(); self.stack = []
    def handle_starttag(self, tag, attrs):
        self.stack.append(tag)
    def handle_endtag(self, tag):
        assert self.stack and self.stack[-1] == tag, (tag, self.stack[-5:])
        self.stack.pop()
for part in parts:
    p = P(); p.feed(part); p.close()
    assert not p.stack, p.stack
PY
python3 - "$TMP/split-r.json" <<'PY' || fail "report does not match reports/schema"
import json, sys, jsonschema
doc = json.load(open(sys.argv[1]))
schema = json.load(open("reports/schema/mglrulab-report-2.schema.json"))
jsonschema.validate(doc, schema, cls=jsonschema.Draft202012Validator)
PY

# Hosts that agree: the table, no warning.
for slow in "" "a,b"; do
	gen "$TMP/agree.json" --hosts a,b --slow-host "$slow" --slow 0.2
	report "$TMP/agree.json" "$TMP/agree-r"
	check "$TMP/agree-r.json" 'all(len(x["hosts"]) == 2 and not x["heterogeneity"]["heterogeneous"] for x in d["results"])' \
		"hosts that agree (slow: '$slow') called heterogeneous"
	check "$TMP/agree-r.json" '"host-heterogeneity" not in str(d["warnings"]) + str(d["results"])' \
		"a heterogeneity warning for hosts that agree (slow: '$slow')"
	grep -q '<section id="hosts">' "$TMP/agree-r.html" || fail "no per-host section (slow: '$slow')"
	grep -q '<tr class="het">' "$TMP/agree-r.html" && fail "a warning row for hosts that agree"
	grep -q '^    ! ' "$TMP/agree-r.txt" && fail "a warning line for hosts that agree"
done
check "$TMP/agree-r.json" 'all(x["verdict"] == "regression" for x in d["results"])' \
	"both hosts 20 % slower is not a regression"

# One host: whether records name it or not, the same report as before hosts.
gen "$TMP/old.json" --hosts local --no-host-fields --slow-host local --slow 0.03
gen "$TMP/local.json" --hosts local --slow-host local --slow 0.03
report "$TMP/old.json" "$TMP/old-r"
report "$TMP/local.json" "$TMP/local-r"
cmp -s "$TMP/old-r.html" "$TMP/local-r.html" || fail "one host named local changes the HTML"
cmp -s "$TMP/old-r.txt" "$TMP/local-r.txt" || fail "one host named local changes the text"
check "$TMP/old-r.json" '"host" not in d["runs"][0] and not any("hosts" in x or "pooled" in x for x in d["results"])' \
	"a one-host report has per-host members"
python3 - "$TMP/old-r.json" "$TMP/local-r.json" <<'PY' || fail "one host named local changes the results"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
for k in ("results", "counter_results", "geomean", "warnings", "summary"):
    assert a[k] == b[k], k
PY
grep -q 'id="hosts"' "$TMP/old-r.html" && fail "a per-host section for one host"

# A bad host in a record names the run.
python3 - "$TMP/split.json" "$TMP/bad.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["runs"][4]["host"] = "tab\there"
json.dump(d, open(sys.argv[2], "w"))
PY
"$LAB" report "$TMP/bad.json" 2>"$TMP/bad.err" && fail "a host name with a tab was accepted"
grep -q 'runs\[4\].host: expected a host name of 1 to 64 printable ASCII characters' "$TMP/bad.err" ||
	fail "unclear error for a bad host: $(cat "$TMP/bad.err")"
echo "report-hosts: per-host results, pooled verdicts and the heterogeneity rule OK"
