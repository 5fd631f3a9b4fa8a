#!/usr/bin/env bash
# The HTML report's verdicts stay in view on a narrow screen: headless
# chromium lays out a fixture's report at 900 px wide and every verdict
# cell of the results tables (primary metrics, other metrics, counters;
# the thread tables of many column groups scroll in their box instead)
# must lie inside the viewport. The verdict column used to be the last of
# nine, past the plots, and was cut off at 900 px (issue 29). The
# results tables, the primaries' with their per-run strips among them,
# also fit the 900 px box without scrolling sideways (issue 50: the
# primaries' table was 927 px in an 852 px box), and so does the answer
# table with the coherence model's notes under its verdicts (the demo's
# was cut off at its intervals, 2026-12-06). Boots no guest. chromium comes from scripts/install-deps; without it the test
# fails unless this machine lists it in tests/integration/expected-skips.
# run-all: paired
# run-all: quick
set -u
cd "$(dirname "$0")/../.."

name=$(basename "$0")
fail() { echo "FAIL: $*" >&2; exit 1; }

if ! command -v chromium >/dev/null; then
	grep -q "^$name[[:space:]]" tests/integration/expected-skips 2>/dev/null ||
		fail "chromium is not installed (scripts/install-deps installs it)"
	echo "SKIP: chromium is not installed (listed in expected-skips)" >&2
	exit 77
fi

[ -x ./mglrulab ] || make -s mglrulab >/dev/null || fail "cannot build mglrulab"
out=build/test-report-html-narrow
rm -rf "$out" && mkdir -p "$out" || fail "cannot create $out"
# The fixture with the demo's primaries declared: their table is the widest.
fixture=$out/session.json
python3 - tests/fixtures/reports/session-ab.json "$fixture" <<'PY' || fail "cannot write $fixture"
import json, sys
d = json.load(open(sys.argv[1]))
for w in d["workloads"]:
    w["primary"] = {"yp_shared": ["cs_per_sec_per_cpu_2cpu"], "yp_private": ["cs_per_sec_per_cpu_2cpu"],
                    "kbuild": ["elapsed_s"], "aging": ["avg_ms_per_gen"]}.get(w["name"], [])
# The demo's series under icount with the coherence model's figures: the
# answer table's verdict cells carry a long note (issue 51), which once
# made that table wider than the page.
d["guest"]["icount_shift"] = 2
d["claim"] = {"workload": "yp_shared", "metric": "cs_per_sec_per_cpu_%dcpu", "direction": "higher",
              "size_pct": 2.3, "mechanism": "cache-lines", "source": "seed 000"}
def side(r0, r1):
    return {"per_unit": (r0 + r1) / 2, "runs": [r0, r1], "spread": abs(r1 - r0), "units": 100000,
            "dropped": 0, "cost_ns_per_unit": {"node_ns": 50 * r0, "remote_ns": 130 * r0}}
def window(n, b0, b1, p0, p1):
    return {"window": n, "baseline": side(b0, b1), "patched": side(p0, p1),
            "change": (p0 + p1 - b0 - b1) / 2, "beyond_spread": True, "functions": [], "lines": []}
d["coherence"] = {"method": "test", "which": "all", "runs_per_kernel": 2, "model_note": "a model",
                  "latency": {"node_ns": 50.0, "remote_ns": 130.0}, "kernels": ["base", "patched"],
                  "workloads": [{"workload": w, "primaries": [], "windows":
                                 [window(1, 0.05, 0.05, 0.05, 0.05), window(2, 0.98, 0.85, 0.03, 0.02)]}
                                for w in ("yp_shared", "yp_private")]}
json.dump(d, open(sys.argv[2], "w"))
PY
./mglrulab report "$fixture" --html "$out/report.html" || fail "mglrulab report failed"

# The page forbids scripts (CSP); the copy measured here drops that one
# meta element and appends a script that finds the verdict column by its
# heading and writes its cells' right edge into the DOM for --dump-dom.
sed 's/<meta http-equiv="Content-Security-Policy"[^>]*>//' "$out/report.html" >"$out/measure.html"
cat >>"$out/measure.html" <<'EOF'
<script>
(function () {
	// The verdict column by its heading, so the test measures any layout.
	var tables = document.querySelectorAll("table.results:not(.layout), table.counters");
	var worst = 0, n = 0, out = [], where = "";
	tables.forEach(function (t) {
		if (!t.tHead)
			return;
		var head = t.tHead.rows[t.tHead.rows.length - 1].cells, idx = -1;
		for (var i = 0; i < head.length; i++)
			if (/^(Verdict|Moved)$/.test(head[i].textContent.trim()))
				idx = i;
		if (idx < 0)
			return;
		Array.prototype.forEach.call(t.tBodies[0].rows, function (row) {
			if (row.cells.length !== head.length)
				return;
			var r = row.cells[idx].getBoundingClientRect().right;
			if (r > worst)
				where = t.className;
			worst = Math.max(worst, r);
			n++;
		});
	});
	out.push("viewport=" + document.documentElement.clientWidth);
	out.push("cells=" + n);
	out.push("right=" + Math.ceil(worst));
	out.push("in=" + where.replace(/ /g, "."));
	var p = document.createElement("pre");
	p.id = "measured";
	p.textContent = out.join(" ");
	document.body.appendChild(p);
	// The results tables' boxes that scroll sideways, by their section.
	var wide = [];
	document.querySelectorAll(".tw").forEach(function (box) {
		if (box.querySelector("table.results:not(.layout), table.counters, table.answer") &&
		    box.scrollWidth > box.clientWidth + 1)
			wide.push((box.closest("section") || {}).id + ":" + box.scrollWidth + "/" +
				  box.clientWidth);
	});
	var q = document.createElement("pre");
	q.id = "wide";
	q.textContent = "wide=[" + wide.join(",") + "]";
	document.body.appendChild(q);
})();
</script>
EOF

profile=$(mktemp -d) || fail "mktemp"
timeout 120 chromium --headless --no-sandbox --disable-gpu --no-first-run \
	--disable-background-networking --disable-component-update --disable-sync \
	--user-data-dir="$profile" --window-size=900,1200 --hide-scrollbars \
	--dump-dom "file://$PWD/$out/measure.html" >"$out/dom.html" 2>"$out/chromium.log"
rc=$?
rm -rf "$profile"
[ $rc -eq 0 ] || fail "chromium --dump-dom failed (see $out/chromium.log)"

line=$(grep -o 'viewport=[0-9]* cells=[0-9]* right=[0-9-]* in=[a-z.]*' "$out/dom.html") ||
	fail "no measurement in the DOM (did the script run? see $out/chromium.log)"
echo "at 900 px: $line"
read -r vw cells right where < <(echo "$line" | sed 's/[a-z]*=//g')
[ "$vw" -ge 850 ] && [ "$vw" -le 900 ] || fail "viewport is $vw px, not about 900"
[ "$cells" -gt 0 ] || fail "no verdict cells found (a Verdict or Moved column in the results tables)"
[ "$right" -le "$vw" ] || fail "a verdict cell (table.$where) ends at $right px, outside the $vw px viewport"
wide=$(grep -o '<pre id="wide">[^<]*' "$out/dom.html" | sed 's/.*>//') || fail "no wide= in the DOM"
echo "at 900 px: $wide"
[ "$wide" = "wide=[]" ] || fail "results tables scroll sideways at 900 px (section:scrollWidth/box): $wide"
grep -q '<svg class="runs"' "$out/report.html" || fail "no per-run strip beside the primaries"
exit 0
