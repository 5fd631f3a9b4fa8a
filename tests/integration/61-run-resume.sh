#!/usr/bin/env bash
# Kill -9 in the middle of a session, then --resume: exactly N runs per
# kernel and workload, no duplicates, the same planned order. Then SIGINT
# during a run: no QEMU process of the lab remains, a partial report
# exists and the resume command is printed.
# run-all: paired
# run-all: cost 30
. "$(dirname "$0")/../lib/common.sh"
need_kernel_source
fixture_lab ab-small

old=$(readlink -f $REPORTS/latest 2>/dev/null)
"$LAB" run --ab -c "$CONF" --runs 3 > "$TMP/out" 2> "$TMP/err" &
pid=$!
# Wait until the new session has two runs on disk, then kill without warning.
wait_new_runs "$old" 2
kill -9 $pid
wait $pid 2>/dev/null
d=$(readlink -f $REPORTS/latest)
before=$(ls "$d"/runs/*.json | wc -l)
[ "$before" -ge 2 ] && [ "$before" -lt 6 ] || fail "expected a partial session, found $before runs"
cp "$d/session.json" "$TMP/plan-before.json"
# SIGKILL left the domain running; resume must clean it up and go on.
"$LAB" run --resume "$(basename "$d")" -c "$CONF" > "$TMP/out2" 2> "$TMP/err2"
rc=$?
tail -5 "$TMP/err2"
[ $rc -eq 0 ] || fail "resume exited $rc"
grep -q "resuming: $before of 6 runs already done" "$TMP/err2" || fail "resume did not skip the finished runs"
cmp -s "$TMP/plan-before.json" "$d/session.json" || fail "the plan changed on resume"
python3 - "$d" <<'PY' || fail "resumed session is wrong"
import json, os, sys
d = sys.argv[1]
rep = json.load(open(os.path.join(d, "report.json")))
plan = json.load(open(os.path.join(d, "session.json")))["plan"]
runs = rep["runs"]
assert [r["seq"] for r in runs] == [p["seq"] for p in plan] == list(range(1, 7))
for r, p in zip(runs, plan):
    assert (r["kernel"], r["workload"]) == (p["kernel"], p["workload"])
per = {}
for r in runs:
    per[r["kernel"]] = per.get(r["kernel"], 0) + 1
assert per == {"baseline": 3, "patched": 3}, per
PY

# SIGINT during a run.
old=$(readlink -f $REPORTS/latest)
"$LAB" run --ab -c "$CONF" --runs 3 > "$TMP/out3" 2> "$TMP/err3" &
pid=$!
for _ in $(seq 600); do
	pgrep -f "qemu-system.*$TMP/lab/" > /dev/null && break
	sleep 0.2
done
sleep 1
kill -INT $pid
wait $pid
rc=$?
cat "$TMP/err3" | tail -5
[ $rc -eq 2 ] || fail "interrupted session: expected exit status 2, got $rc"
sleep 1
pgrep -af "qemu-system.*$TMP/lab/" && fail "a QEMU process of the lab survived SIGINT"
d=$(readlink -f $REPORTS/latest)
[ "$d" != "$old" ] || fail "the interrupted session did not start"
[ -s "$d/report.json" ] || fail "no partial report after SIGINT"
grep -q "mglrulab run --resume $(basename "$d")" "$TMP/err3" || fail "resume command not printed"
echo ok
