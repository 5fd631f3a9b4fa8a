#!/usr/bin/env bash
# kill -9 at four kinds of points of one small A/B session (ab-small.conf,
# 2 runs per kernel), each followed by `run --resume`: while a guest boots
# or runs, just after a guest stopped (its record being written), at a
# seeded random time, and while the report is written. bench/kill-campaign
# does it and checks the finished session against an uninterrupted one of
# the same seed: the same plan and design, each planned run once and ok,
# a complete report.json that is the records on disk and that `mglrulab
# report --json` recomputes to the same, every file parsing after each
# kill, no QEMU of the killed processes left, no overlay or temporary file
# left. The 50-point campaign is `bench/kill-campaign` with no options.
# run-all: paired
# run-all: cost 40
. "$(dirname "$0")/../lib/common.sh"
need_kernel_source
command -v python3 >/dev/null || skip "no python3"
t0=$(date +%s)
bench/kill-campaign --points 4 --per-session 4 --runs 2 --seed 69 \
	--modes guest,record,uniform,report \
	--work "$TMP/campaign" --state "$ROOT/.lab" --json "$TMP/figures.json" > "$TMP/out" 2>&1
rc=$?
cat "$TMP/out"
[ $rc -eq 0 ] || fail "the kill campaign found problems (exit $rc)"
python3 - "$TMP/figures.json" <<'PY' || fail "the campaign did not kill where it should"
import json, sys
f = json.load(open(sys.argv[1]))["sessions"]
assert f["points"] == 4, f["points"]
assert f["problems"] == [], f["problems"]
# the kills landed in a guest, and after one (a record, or the report)
ph = f["phases"]
assert ph["boot"] + ph["run"] >= 1, ph
assert ph["record"] + ph["report"] >= 1, ph
PY
echo "4 kill points and resumes: $(( $(date +%s) - t0 )) s"
echo ok
