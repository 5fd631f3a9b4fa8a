#!/usr/bin/env bash
# End to end: an A/B session with small N produces a schema-valid report
# with every planned run, balanced per kernel and interleaved; the text
# report goes to stdout; JUnit is written; an A/A session finds nothing.
. "$(dirname "$0")/../lib/common.sh"
need_kernel_source
CONF=tests/fixtures/labs/ab-small.conf

"$LAB" run --ab -c "$CONF" --junit "$TMP/junit.xml" > "$TMP/stdout" 2> "$TMP/stderr"
rc=$?
tail -20 "$TMP/stderr"
[ $rc -eq 0 ] || fail "run --ab exited $rc"
dir=$(readlink -f reports/tests/latest)
[ -s "$dir/report.json" ] && [ -s "$dir/report.html" ] && [ -s "$dir/report.txt" ] || fail "reports missing in $dir"
cmp -s "$TMP/stdout" "$dir/report.txt" || fail "stdout is not the text report"
"$LAB" report "$dir/report.json" --json > /dev/null || fail "report.json does not load back"
python3 - "$dir" <<'PY' || fail "session checks failed"
import json, os, sys
d = sys.argv[1]
rep = json.load(open(os.path.join(d, "report.json")))
runs = rep["runs"]
plan = json.load(open(os.path.join(d, "session.json")))["plan"]
assert len(runs) == len(plan) == 10, (len(runs), len(plan))
assert [r["seq"] for r in runs] == list(range(1, 11))
per = {}
for r in runs:
    assert r["status"] == "ok", r.get("failure")
    per[r["kernel"]] = per.get(r["kernel"], 0) + 1
    assert r["metrics"]["cs_per_sec_per_cpu_1cpu"] > 0
    assert all(v >= 0 for v in r["counters"]["vmstat"].values())
    t = r["timings"]
    assert t["boot_s"] > 0 and t["workload_s"] > 0 and t["host_overhead_s"] > 0
assert per == {"baseline": 5, "patched": 5}, per
# interleaved: blocks of one A and one B, never all-A-then-all-B
kernels = [r["kernel"] for r in runs]
assert kernels[:5] != ["baseline"] * 5 and kernels[:5] != ["patched"] * 5
for i in range(0, 10, 2):
    assert {kernels[i], kernels[i + 1]} == {"baseline", "patched"}, kernels
assert len(os.listdir(os.path.join(d, "runs"))) == 10
assert rep["results"], "no results"
PY
grep -q '<testsuite name="mglrulab"' "$TMP/junit.xml" || fail "no JUnit file"
grep -q 'name="cs_per_sec_per_cpu_1cpu"' "$TMP/junit.xml" || fail "JUnit lacks the metric"
pgrep -f "qemu-system.*mglrulab-" && fail "a QEMU process of the lab is still running"

# A/A calibration: the baseline against itself reports no change.
"$LAB" run --aa -c "$CONF" --runs 5 > "$TMP/aa.txt" 2> "$TMP/aa.err"
rc=$?
[ $rc -eq 0 ] || { tail "$TMP/aa.err"; fail "run --aa exited $rc"; }
aa=$(readlink -f reports/tests/latest)
python3 - "$aa" <<'PY' || fail "A/A session reported a change"
import json, os, sys
rep = json.load(open(os.path.join(sys.argv[1], "report.json")))
for r in rep["results"]:
    if "verdict" in r:
        assert r["verdict"] not in ("regression", "improvement"), r
PY
echo ok
