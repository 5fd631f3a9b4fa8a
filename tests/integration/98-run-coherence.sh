#!/usr/bin/env bash
# run --coherence (docs/coherence.md, "In sessions"): one session of one
# kernel, one run of the calibration workload in tiny-icount, then its two
# coherence runs with the coherence plugin: the report's coherence member
# (the shared and false-sharing windows about one transfer per add, the
# separate one about none), the text section, and the runs kept out of
# runs/ and out of the analysis (the results with and without the member
# are the same bytes). A bad [run] coherence value names file and line.
# [workload] coherence_params gives the coherence runs their own iters.
# The session's reports are the bytes `mglrulab report` makes of its
# report.json, coherence member and all.
# A run whose workload says a window was skewed (window_skewed: a thread
# preempted, or a round-robin slice ended between the opening mark and
# the second worker's release) is run again, never kept.
# why this cost: three guest runs of coh_calib at 100,000 adds per case
# (a plain one, 7-10 s, and two with the plugin at 50,000, 5-10 s each).
# run-all: paired
# run-all: cost 35
. "$(dirname "$0")/../lib/common.sh"
need_kernel_source
[ -f "$ROOT/build/plugin/mglrulab-coh.so" ] || fail "no build/plugin/mglrulab-coh.so (make plugin)"

printf '[run]\ncoherence = sometimes\n' >"$TMP/bad.conf"
"$LAB" config check -c "$TMP/bad.conf" >/dev/null 2>"$TMP/bad.err" && fail "coherence = sometimes was taken"
grep -q "bad.conf:2: \[run\] coherence: 'sometimes' is not one of \[run\] workloads (off, changed, all, or names of \[run\] workloads)" "$TMP/bad.err" ||
	fail "the bad value: $(cat "$TMP/bad.err")"

CONF=$TMP/coh.conf
sed "s#^fragments = kernels/#fragments = $ROOT/kernels/#; s#^series = kernels/#series = $ROOT/kernels/#; s#^file = guests/#file = $ROOT/guests/#" \
	lab.conf >"$CONF"
# coherence_params: the coherence runs at half the plain run's adds
printf '[workload cc]\ntype = coh_calib\niters = 100000\ncounters = 0\ncoherence_params = iters=50000\n' >>"$CONF"
private_lab "$CONF"
"$LAB" run -c "$CONF" --kernel baseline --workloads cc --runs 1 --warmups 0 \
	--coherence=all --fail-on none >"$TMP/run.out" 2>"$TMP/run.err" ||
	{ rc=$?; cat "$TMP/run.err" >&2; fail "run --coherence exited $rc"; }
D=$(readlink -f "$REPORTS/latest")
python3 -c 'import json, sys; sys.exit("unavailable" not in json.load(open(sys.argv[1]))["coherence"])' \
	"$D/report.json" && skip "coherence not possible here: $(grep 'coherence: not done' "$TMP/run.err")"
[ "$(ls "$D"/runs/*.json | wc -l)" -eq 1 ] || fail "the coherence runs went into runs/: $(ls "$D/runs")"
[ -f "$D/coherence/cc/baseline-2/coh.3" ] || fail "no coherence run folder: $(ls -R "$D/coherence" | head)"
# the runs kept: each case's start seen by the workload, none skewed (docs/coherence.md, "Calibration")
for r in "$D"/coherence/cc/baseline-[12]; do
	[ "$(grep -c '"name":"coh_case".*"late_spins":' "$r/results.jsonl")" -eq 3 ] ||
		fail "$r: no late_spins in its coh_case records"
	! grep -q '"name":"window_skewed"' "$r/results.jsonl" || fail "$r: a skewed run was kept"
done
grep -q "^Cache-line transfers (model; 2 runs per kernel" "$D/report.txt" ||
	fail "no coherence section in report.txt"
"$LAB" report --json "$D/report.json" >"$TMP/with.json" || fail "report --json"
# The session's end analyses once, again after its coherence runs, and
# renders each report from that view as `mglrulab report` does from
# report.json (docs/layout.md, the walk of run --ab, steps 9 and 10):
# the same bytes.
"$LAB" report "$D/report.json" --text --html "$TMP/again.html" >"$TMP/again.txt" || fail "report --text --html"
for f in json:with.json html:again.html txt:again.txt; do
	cmp -s "$D/report.${f%%:*}" "$TMP/${f#*:}" ||
		fail "report.${f%%:*} is not what mglrulab report makes of report.json"
done
python3 - "$D/report.json" "$TMP/without.json" <<'PY' || fail "the coherence member is off"
import json, sys
r = json.load(open(sys.argv[1]))
c = r["coherence"]
assert r["design"]["coherence"] == "all", r["design"]
assert c["which"] == "all" and c["latency"]["node_ns"] == 50, c
w = c["workloads"][0]
assert w["workload"] == "cc" and w["runs_per_kernel"] == 2, w
assert isinstance(w["redone"], int) and 0 <= w["redone"] <= 4, w  # window_skewed runs run again
assert "--iters=50000" in w["args"], w["args"]
win = w["windows"]
assert len(win) == 3, win
for k in (0, 1):
    b = win[k]["baseline"]
    assert 0.5 <= b["per_unit"] <= 1.05 and len(b["runs"]) == 2, b
    assert b["units"] == 2 * 2 * 50000, b  # two runs of two threads' adds, coherence_params's
    assert "patched" not in win[k] and b["cost_ns_per_unit"]["node_ns"] > 0, win[k]
assert win[2]["baseline"]["per_unit"] < 0.05, win[2]
print("transfers per add: %s" % ", ".join("%.4f" % x["baseline"]["per_unit"] for x in win))
del r["coherence"]
json.dump(r, open(sys.argv[2], "w"))
PY
"$LAB" report --json "$TMP/without.json" >"$TMP/without.out" || fail "report --json without the member"
python3 - "$TMP/with.json" "$TMP/without.out" <<'PY' || fail "the results differ with the coherence member"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
a.pop("coherence")
assert a == b
PY
echo "PASS"
