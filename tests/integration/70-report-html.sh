#!/usr/bin/env bash
# The HTML report renders in a real browser: Debian's headless chromium loads
# a report generated from a fixture (hostile strings, a failed run, TCG), the
# DOM has the table rows and the SVG plots, the console shows no errors (the
# page carries a CSP that forbids scripts, so an escaping bug would surface
# here as a "Refused to execute" message), and screenshots are kept for a
# human to look at. Also: the same JSON gives byte-identical HTML and text.
# run-all: paired
# run-all: quick
set -u
cd "$(dirname "$0")/../.."

fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "SKIP: $*" >&2; exit 77; }

[ -x ./mglrulab ] || make -s mglrulab >/dev/null || fail "cannot build mglrulab"
fixture=tests/fixtures/reports/session-ab.json
[ -f "$fixture" ] || fail "missing $fixture"

out=build/test-report-html
rm -rf "$out" && mkdir -p "$out" || fail "cannot create $out"

./mglrulab report "$fixture" --html "$out/report.html" --text -o "$out/report.txt" ||
	fail "mglrulab report failed"
./mglrulab report "$fixture" --html "$out/again.html" --text -o "$out/again.txt" ||
	fail "mglrulab report failed (second run)"
cmp -s "$out/report.html" "$out/again.html" || fail "HTML differs between two runs"
cmp -s "$out/report.txt" "$out/again.txt" || fail "text differs between two runs"
awk 'length($0) > 80 { bad = 1 } END { exit bad }' "$out/report.txt" ||
	fail "text report has lines over 80 columns"
grep -q '<script' "$out/report.html" && fail "a <script> reached the HTML"
grep -qi 'https\?://' <(grep -v 'xmlns=' "$out/report.html" | grep -o 'src="[^"]*"\|href="http[^"]*"') &&
	fail "the HTML references external resources"

# The written report conforms to the published JSON Schema, always: the
# validator is python3-jsonschema, which scripts/install-deps installs.
./mglrulab report "$fixture" --json -o "$out/report.json" || fail "mglrulab report --json failed"
python3 -c 'import jsonschema' 2>/dev/null ||
	fail "python3-jsonschema is missing (scripts/install-deps installs it): the schema check cannot run"
python3 - "$out/report.json" "$fixture" <<'PY' || fail "report does not match reports/schema"
import json, sys, jsonschema
# Each document against the schema it names (reports of schema 1 still load).
for f in sys.argv[1:]:
    doc = json.load(open(f))
    version = doc["schema"].rsplit("/", 1)[1]
    schema = json.load(open(f"reports/schema/mglrulab-report-{version}.schema.json"))
    jsonschema.validate(doc, schema, cls=jsonschema.Draft202012Validator)
    print(f"schema: {f} conforms to mglrulab-report-{version}")
    # ... and the check has teeth: the same document without its runs does not.
    del doc["runs"]
    try:
        jsonschema.validate(doc, schema, cls=jsonschema.Draft202012Validator)
        sys.exit(f"{f}: a report without 'runs' passed the schema check")
    except jsonschema.ValidationError:
        pass
PY
# compare and benchfmt work on the same fixtures.
./mglrulab compare tests/fixtures/reports/nightly-a.json tests/fixtures/reports/nightly-b.json \
	--text -o "$out/compare.txt" || fail "mglrulab compare failed"
grep -q '^mglrulab report: A:patched vs B:patched' "$out/compare.txt" || fail "compare text has no title"
./mglrulab report "$fixture" --benchfmt -o "$out/bench.txt" || fail "--benchfmt failed"
grep -Eq '^Benchmark[A-Z][^ ]*/kernel=[^ ]+ 1( [-0-9.e+]+ [^ ]+)+$' "$out/bench.txt" ||
	fail "no benchfmt result lines"
./mglrulab report tests/fixtures/reports/missing.json 2>"$out/err.txt" && fail "missing file accepted"
grep -q 'missing.json: No such file' "$out/err.txt" || fail "unclear error for a missing file"

if ! command -v chromium >/dev/null; then
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium >/dev/null 2>&1
	fi
	command -v chromium >/dev/null || skip "chromium is not installed (apt-get install chromium)"
fi

chrome() {
	local profile
	profile=$(mktemp -d) || return 1
	timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$profile" --enable-logging=stderr --v=0 "$@"
	local rc=$?
	rm -rf "$profile"
	return $rc
}

url="file://$PWD/$out/report.html"
chrome --dump-dom "$url" >"$out/dom.html" 2>"$out/dom.log" || fail "chromium --dump-dom failed (see $out/dom.log)"
chrome --window-size=1280,2400 --hide-scrollbars --screenshot="$out/screenshot.png" "$url" \
	>/dev/null 2>"$out/shot.log" || fail "chromium --screenshot failed (see $out/shot.log)"
chrome --force-dark-mode --window-size=1280,1400 --hide-scrollbars \
	--screenshot="$out/screenshot-dark.png" "$url" >/dev/null 2>"$out/dark.log" ||
	fail "chromium dark screenshot failed"
chrome --no-pdf-header-footer --print-to-pdf="$out/report.pdf" "$url" >/dev/null 2>"$out/pdf.log" ||
	fail "chromium --print-to-pdf failed"

# Console errors, blocked scripts and failed loads all go to the log.
if grep -E 'Uncaught|:CONSOLE[:(]|CONSOLE\(|Content Security Policy|Refused to|ERR_FILE_NOT_FOUND|Failed to load' \
	"$out/dom.log" "$out/shot.log"; then
	fail "console errors while rendering the report"
fi

results=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["results"]))' \
	<(./mglrulab report "$fixture" --json))
rows=$(grep -o '<tr class="metric"' "$out/dom.html" | wc -l)
forest=$(grep -o '<svg class="forest"' "$out/dom.html" | wc -l)
strips=$(grep -o '<svg class="strip"' "$out/dom.html" | wc -l)
orders=$(grep -o '<svg class="order"' "$out/dom.html" | wc -l)
counters=$(grep -o '<tr class="counter"' "$out/dom.html" | wc -l)
echo "DOM: $rows metric rows (of $results results), $forest forest plots, $strips strip plots," \
	"$orders run-order plots, $counters counter rows"
[ "$results" -gt 0 ] && [ "$rows" -eq "$results" ] || fail "expected $results metric rows, got $rows"
[ "$forest" -ge "$results" ] || fail "expected a forest plot per metric"
[ "$strips" -eq "$results" ] && [ "$orders" -eq "$results" ] || fail "expected strip and run-order plots per metric"
[ "$counters" -gt 0 ] || fail "no counter rows"
# The hostile metric name is in the DOM as text, not as markup.
grep -q 'lat&lt;b&gt;"p99"&lt;/b&gt;&amp;amp;' "$out/dom.html" || fail "hostile metric name not escaped as expected"
grep -q '<b>"p99"' "$out/dom.html" && fail "hostile metric name became markup"

for f in screenshot.png screenshot-dark.png; do
	[ "$(head -c 8 "$out/$f" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] ||
		fail "$f is not a PNG"
	[ "$(stat -c %s "$out/$f")" -gt 20000 ] || fail "$f is suspiciously small"
done
[ "$(head -c 5 "$out/report.pdf")" = "%PDF-" ] || fail "report.pdf is not a PDF"
echo "screenshots: $out/screenshot.png $out/screenshot-dark.png; print: $out/report.pdf"
exit 0
