#!/usr/bin/env bash
# A workload runs in the guest and its records come back through the
# runner: yield_pingpong with tiny parameters in `tiny`, its metrics
# forwarded (each rate the median of its reps=5 windows, whose series
# came along), its exit status recorded, the run counted.
# run-all: paired
. "$(dirname "$0")/../lib/common.sh"
. "$(dirname "$0")/../lib/guest.sh"
need_lab_kernel
[ -x build/guest/yield_pingpong ] || skip "build/guest/yield_pingpong not built"

"$LAB" guest run tiny "${KARGS[@]}" --workload yield_pingpong --arg cpus=1,2 --arg duration=1 \
	--arg warmup=0 --timeout 120 --json --run-dir "$TMP/run" >"$TMP/out.json" 2>"$TMP/err"
rc=$?
cat "$TMP/err" >&2
[ $rc -eq 0 ] || { head -c 3000 "$TMP/out.json" >&2; fail "guest run exited $rc"; }
[ "$(json_get "$TMP/out.json" 'd["status"]')" = ok ] || fail "status is not ok"
[ "$(json_get "$TMP/out.json" 'sorted(r["name"] for r in d["records"] if r["type"] == "metric")')" = \
  "['cs_per_sec_per_cpu_1cpu', 'cs_per_sec_per_cpu_1cpu_mean', 'cs_per_sec_per_cpu_2cpu', 'cs_per_sec_per_cpu_2cpu_mean']" ] ||
	fail "metrics missing"
python3 - "$TMP/out.json" <<'PY' || fail "a rate is not the median of its windows"
import json, statistics, sys
recs = json.load(open(sys.argv[1]))["records"]
M = {r["name"]: r["value"] for r in recs if r["type"] == "metric"}
S = {r["name"]: r["values"] for r in recs if r["type"] == "series"}
for k in (1, 2):
    w = S[f"cs_per_sec_per_cpu_{k}cpu_windows"]
    assert len(w) == 5, w
    # duration=1, reps=5: no window shorter than 0.2 s (none left empty)
    assert all(s > 0.2 - 1e-6 for s in S[f"window_s_{k}cpu"]), S[f"window_s_{k}cpu"]
    assert M[f"cs_per_sec_per_cpu_{k}cpu"] == statistics.median(w), (M, w)
PY
[ "$(json_get "$TMP/out.json" 'all(r["value"] > 0 for r in d["records"] if r["type"] == "metric")')" = True ] ||
	fail "a rate is not positive"
grep -q '"type":"exit","status":0\|"status":0' "$TMP/run/results.jsonl" || fail "no exit status 0 in results.jsonl"
exit 0
