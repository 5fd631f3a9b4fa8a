#!/usr/bin/env bash
# Two guests at once in one process, a thread each, on the embedded
# connection (guest boot --repeat 2 --jobs 2), as a host's slots will run
# them: each run sees its own domain's end and its own results. Then two
# idle guests at once: SIGINT wakes both waiters, both guests are
# destroyed, both runs say interrupted.
# run-all: paired
. "$(dirname "$0")/../lib/common.sh"
. "$(dirname "$0")/../lib/guest.sh"
need_lab_kernel
[ -x build/guest/yield_pingpong ] || skip "build/guest/yield_pingpong not built"

"$LAB" -v guest boot tiny "${KARGS[@]}" --repeat 2 --jobs 2 --json --run-dir "$TMP/boot" \
	>"$TMP/boot.json" 2>"$TMP/boot.err" || { cat "$TMP/boot.err" "$TMP/boot.json"; fail "two guests at once"; }
python3 - "$TMP/boot.json" "$TMP/boot.err" "$TMP/boot" <<'PY' || { cat "$TMP/boot.err"; fail "two guests at once"; }
import json, re, sys
runs = [json.loads(l) for l in open(sys.argv[1])]
assert [r["status"] for r in runs] == ["ok", "ok"], runs
assert [r["run_dir"] for r in runs] == [sys.argv[3] + "-1", sys.argv[3] + "-2"], runs
err = open(sys.argv[2]).read().splitlines()
started = {m.group(1) for l in err for m in [re.search(r"debug: started (mglrulab-\d+-\d+) ", l)] if m}
stopped = {m.group(1) for l in err for m in [re.search(r"event: (mglrulab-\d+-\d+) stopped: guest powered off", l)] if m}
assert len(started) == 2 and stopped == started, err
PY
for d in "$TMP/boot-1" "$TMP/boot-2"; do
	grep -q '"type":"done"' "$d/results.jsonl" || fail "$d: no done record"
done

# SIGINT while two guests run: every waiter wakes, every guest goes
# (init=/bin/sh: idle guests, waiting on a console nobody types into)
tiny_with 120 120 >"$TMP/idle.conf"
lab_bg "$TMP/int.json" "$TMP/int.err" -v guest boot "$TMP/idle.conf" "${KARGS[@]}" --cmdline init=/bin/sh \
	--repeat 2 --jobs 2 --json --run-dir "$TMP/int"
# both domains created (not only their QEMUs forked): each run is waiting
for _ in $(seq 600); do
	[ "$(grep -c "debug: started mglrulab-$LAB_PID-" "$TMP/int.err")" = 2 ] && break
	sleep 0.1
done
[ "$(grep -c "debug: started mglrulab-$LAB_PID-" "$TMP/int.err")" = 2 ] || { kill $LAB_PID; fail "the two guests did not start"; }
[ "$(pgrep -fc -- "-name guest=mglrulab-$LAB_PID-")" = 2 ] || { kill $LAB_PID; fail "not two QEMUs at once"; }
kill -INT $LAB_PID
wait $LAB_PID
rc=$?
[ $rc = 130 ] || { cat "$TMP/int.err"; fail "interrupted: exit $rc, not 130"; }
[ "$(python3 -c 'import json,sys; print([json.loads(l)["status"] for l in open(sys.argv[1])])' "$TMP/int.json")" = \
  "['interrupted', 'interrupted']" ] || fail "interrupted runs: $(cat "$TMP/int.json")"
no_qemu_of $LAB_PID
exit 0
