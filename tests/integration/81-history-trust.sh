#!/usr/bin/env bash
# mglrulab history's digest cache and state make it faster and never change
# what it says (issue 27 item 4):
# - a forged cache (tonight's values made 30 % lower, and its checksum
#   recomputed as anyone can): the output is byte for byte that of no
#   cache, --fail-on-new does not fire, and one warning names the cache and
#   the report;
# - an edited state (the confirmed change point of a series moved after
#   its real regression): the regression is still reported, the invented
#   change point is not, and a warning names the state file and the
#   series' fields;
# - malformed lines sealed with the right key (what a bug of ours or a
#   holder of the key could write: wrong types, huge numbers, a cut line)
#   and a truncated file: ignored with a warning, never a crash, and the
#   output is that of no cache and no state.
# Runs with its own history key (XDG_STATE_HOME). About 10 s.
# run-all: paired
# run-all: quick
. "$(dirname "$0")/../lib/common.sh"
GEN=tests/fixtures/gen-reports.py
export XDG_STATE_HOME="$TMP/state"
d="$TMP/reports"
python3 "$GEN" history "$d" --seed 3 --nights 40 >/dev/null || fail "generator failed"

# What the reports say, with neither cache nor state.
"$LAB" -q history "$d" --no-cache --no-state --json -o "$TMP/plain.json" 2>/dev/null ||
	fail "history failed"

# ---- The cache, forged.
"$LAB" -q history "$d" --no-state --json -o "$TMP/first.json" 2>/dev/null || fail "history failed"
cmp -s "$TMP/plain.json" "$TMP/first.json" || fail "the cache's first run differs from no cache"
[ -s "$d/.history-cache" ] || fail "no cache written"
# Tonight's values of the first metric 30 % lower in the cache; the
# checksum of the first line recomputed (the format before the MAC) or the
# line's MAC left as it was (the key is not the forger's).
python3 - "$d/.history-cache" "$TMP/plain.json" > "$TMP/forged-report" <<'PY' || fail "cannot forge the cache"
import hashlib, json, sys
path, plain = sys.argv[1], json.load(open(sys.argv[2]))
tonight = plain["sessions"][-1]["id"]
metric = plain["series"][0]["metric"]

def forge(entry):
    d = entry["digest"]
    if d["id"] != tonight:
        return False
    for n in d["nights"]:
        if n[4] == metric:
            n[8] = " ".join("%.6g" % (float(x) * 0.7) for x in n[8].split())
    return True

text = open(path).read()
head, body = text.split("\n", 1)
if head.startswith("mglrulab-history-cache/1 "):
    cache = json.loads(body)
    for p, e in cache["reports"].items():
        if forge(e):
            print(p)
    body = json.dumps(cache, separators=(",", ":"))
    text = "mglrulab-history-cache/1 %s\n%s" % (hashlib.sha256(body.encode()).hexdigest(), body)
else:
    lines = text.split("\n")
    for i in range(2, len(lines)):
        if not lines[i]:
            continue
        mac, js = lines[i].split(" ", 1)
        e = json.loads(js)
        if forge(e):
            print(e["path"])
            lines[i] = mac + " " + json.dumps(e, separators=(",", ":"))
    text = "\n".join(lines)
open(path, "w").write(text)
PY
forged=$(cat "$TMP/forged-report")
[ -n "$forged" ] || fail "tonight's report is not in the cache"
"$LAB" history "$d" --no-state --fail-on-new --json -o "$TMP/forged.json" 2>"$TMP/err1"
rc=$?
[ $rc -ne 3 ] || fail "a forged cache made --fail-on-new report a new regression"
[ $rc -eq 0 ] || fail "history with a forged cache exited $rc"
cmp -s "$TMP/plain.json" "$TMP/forged.json" || fail "the output with a forged cache differs from no cache"
grep -F "$d/.history-cache: 1 entry not used (the first, for $forged: does not match its MAC" \
	"$TMP/err1" >/dev/null || { cat "$TMP/err1"; fail "no warning naming the cache and the report"; }
[ "$(wc -l < "$TMP/err1")" -eq 1 ] || { cat "$TMP/err1"; fail "more than one warning"; }
# Written again: the next run takes every report from the cache, silently.
"$LAB" -v history "$d" --no-state --json -o "$TMP/again.json" 2>"$TMP/err1b" || fail "history failed"
cmp -s "$TMP/plain.json" "$TMP/again.json" || fail "the output from the rewritten cache differs"
grep -q 'warning' "$TMP/err1b" && fail "warnings from the rewritten cache"

# ---- The state, edited.
"$LAB" -q history "$d" --no-cache --json -o "$TMP/s1.json" 2>/dev/null || fail "history failed"
[ -s "$d/.history-state.json" ] || fail "no state written"
# The series with a confirmed regression: its confirmed change points
# replaced by one three nights before tonight, after the regression.
python3 - "$d/.history-state.json" "$TMP/plain.json" > "$TMP/edited" <<'PY' || fail "cannot edit the state"
import json, sys
path, plain = sys.argv[1], json.load(open(sys.argv[2]))

def pick(series):
    for s in plain["series"]:
        for c in s["change_points"]:
            if c["kind"] == "regression" and not c["tentative"]:
                key = "\n".join([s["context_id"], s["line"], s["workload"], s["metric"]])
                if key in series:
                    ids = series[key]["sessions"]
                    if ids.index(c["after"]) < len(ids) - 4:
                        return key, s, c, len(ids) - 3
    raise SystemExit("no confirmed regression to hide")

text = open(path).read()
if text.startswith("{"):                     # the state before the MAC
    st = json.loads(text)
    key, s, c, at = pick(st["series"])
    st["series"][key]["confirmed"] = [{"at": at, "p": 0.001}]
    text = json.dumps(st)
else:
    lines = text.split("\n")
    series = {}
    for i in range(2, len(lines)):
        if lines[i]:
            e = json.loads(lines[i].split(" ", 1)[1])
            series[e["key"]] = dict(e, line=i)
    key, s, c, at = pick(series)
    i = series[key]["line"]
    mac, js = lines[i].split(" ", 1)
    e = json.loads(js)
    e["confirmed"] = [{"at": at, "p": 0.001}]
    lines[i] = mac + " " + json.dumps(e, separators=(",", ":"))
    text = "\n".join(lines)
open(path, "w").write(text)
print(s["metric"], c["after"])
PY
"$LAB" history "$d" --no-cache --json -o "$TMP/s2.json" 2>"$TMP/err2" || fail "history failed"
read -r metric after < "$TMP/edited"
python3 - "$TMP/plain.json" "$TMP/s2.json" "$metric" "$after" <<'PY' || fail "the edited state changed the change points"
import json, sys
plain, got = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
metric, after = sys.argv[3], sys.argv[4]
cps = lambda h: [[(c["after"], c["kind"], c["tentative"]) for c in x["change_points"]] for x in h["series"]]
s = [x for x in got["series"] if x["metric"] == metric][0]
assert any(c["after"] == after and c["kind"] == "regression" for c in s["change_points"]), \
    "the real regression of %s at %s is hidden: %s" % (metric, after, s["change_points"])
assert not any(c["kept"] for c in s["change_points"]), "a change point kept from the edited state"
assert cps(got) == cps(plain), (cps(got), cps(plain))
PY
grep -F "$d/.history-state.json: the state of 1 series not used (the first, " "$TMP/err2" |
	grep -q ": sessions, values and confirmed: does not match its MAC" ||
	{ cat "$TMP/err2"; fail "no warning naming the state file, the series and its fields"; }

# ---- Malformed, with the right MAC, and truncated: a warning, never a crash.
python3 - "$d" "$XDG_STATE_HOME/mglrulab/history.key" <<'PY' || fail "cannot write the malformed files"
import hashlib, hmac, json, os, sys
d, key = sys.argv[1], open(sys.argv[2], "rb").read()
kid = hashlib.sha256(b"mglrulab history key id\n" + key).hexdigest()[:16]
mac = lambda schema, bind, text: hmac.new(key, ("%s\n%s\n%s" % (schema, bind, text)).encode(),
                                           hashlib.sha256).hexdigest()

def sealed(path, schema, header, lines):
    h = json.dumps(header, separators=(",", ":"))
    hm = mac(schema, "header", h)
    out = ["%s %s" % (schema, kid), "%s %s" % (hm, h)]
    out += ["%s %s" % (mac(schema, hm, l), l) for l in lines]
    open(path, "w").write("\n".join(out) + "\n")

# The cache: each entry malformed another way.
cs = "mglrulab-history-cache/2"
plain = json.load(open(d + "/../plain.json"))
real = os.path.realpath(plain["sessions"][0]["report"])
st = os.stat(real)
ents = [
    '{"path":"/x","file":"not an array","digest":{}}',
    '{"path":"%s/a/report.json","file":[1,2,3,4,99999999999999999999],"digest":{}}' % d,
    '{"path":"/y","file":[1,2,3,4,5],"digest":{"id":1e400}}',
    # for a report as it is (device, inode, size, times): its digest is checked
    json.dumps({"path": real, "file": [st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns,
                                       st.st_ctime_ns],
                "digest": {"id": "x", "created": "y", "runs": -1}}, separators=(",", ":")),
    '[1,2,3]',
    '{"path":"/cut","file":[1,2',
]
sealed(d + "/.history-cache", cs, {"settings": {"by_name": False}, "written": 1 << 62,
                                   "contexts": {"bad": 1}}, ents)
# The state: the series of the reports with bad fields.
ss = "mglrulab-history-state/2"
keys = ["\n".join([s["context_id"], s["line"], s["workload"], s["metric"]]) for s in plain["series"]]
sl = [
    json.dumps({"key": keys[0], "sessions": "x", "values": "0" * 64, "confirmed": []}),
    json.dumps({"key": keys[1], "sessions": [], "values": "0" * 64,
                "confirmed": [{"at": 1e300, "p": -1}]}),
    '{"key":"%s","sessions":[],"values":"","confirmed":[{"at":99999999999999999999}]}' %
    keys[2].replace("\n", "\\n"),
]
sealed(d + "/.history-state.json", ss, {"settings": {"alpha": 0.01, "permutations": 999, "gross": 20.0,
       "min_nights": 2, "seed": 1, "by_name": False}}, sl)
PY
"$LAB" history "$d" --json -o "$TMP/m.json" 2>"$TMP/err3"
rc=$?
[ $rc -eq 0 ] || { cat "$TMP/err3"; fail "history exited $rc on a malformed cache and state"; }
grep -q "$d/.history-cache: 6 entries not used" "$TMP/err3" || { cat "$TMP/err3"; fail "malformed cache: no warning"; }
grep -q "$d/.history-state.json: the state of 3 series not used" "$TMP/err3" ||
	{ cat "$TMP/err3"; fail "malformed state: no warning"; }
python3 - "$TMP/plain.json" "$TMP/m.json" <<'PY' || fail "malformed cache or state changed the output"
import json, sys
a, b = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
for s in b["series"]:
    assert not s["resumed"], s["metric"]
assert a == b
PY
head -c 100 "$d/.history-cache" > "$TMP/cut" && cp "$TMP/cut" "$d/.history-cache"
head -c 30 "$d/.history-state.json" > "$TMP/cut" && cp "$TMP/cut" "$d/.history-state.json"
"$LAB" history "$d" --json -o "$TMP/t.json" 2>"$TMP/err4" || fail "history failed on truncated files"
grep -q "$d/.history-cache: line 2: truncated; reading every report" "$TMP/err4" ||
	{ cat "$TMP/err4"; fail "truncated cache: no warning"; }
grep -q "$d/.history-state.json: line 1: expected 'mglrulab-history-state/2'" "$TMP/err4" ||
	{ cat "$TMP/err4"; fail "truncated state: no warning"; }
cmp -s "$TMP/plain.json" "$TMP/t.json" || fail "truncated cache or state changed the output"
echo ok
