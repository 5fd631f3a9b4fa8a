#!/usr/bin/env bash
# Faults: a kernel that panics (init=/nonexistent), a guest that hangs
# (init=/bin/sh waits on a console nobody types into) and a SIGTERM in the
# middle of a run. Each ends with the domain destroyed, the run failed with
# the console's last lines, and no QEMU process of the lab left.
# run-all: paired
# run-all: cost 20
. "$(dirname "$0")/../lib/common.sh"
. "$(dirname "$0")/../lib/guest.sh"
need_lab_kernel
tiny_with 60 90 >"$TMP/slow.conf"
tiny_with 15 30 >"$TMP/fast.conf"

# panic: on_reboot=destroy ends it long before the (60 s) timeout
start=$(date +%s)
lab_bg "$TMP/p.out" "$TMP/p.err" guest boot "$TMP/slow.conf" "${KARGS[@]}" --cmdline init=/nonexistent
wait $LAB_PID
rc=$?
cat "$TMP/p.err" >&2
[ $rc -eq 2 ] || fail "panic: expected exit status 2, got $rc"
no_qemu_of $LAB_PID
grep -q "before the runner reported" "$TMP/p.err" || fail "panic: wrong reason"
grep -qi "panic" "$TMP/p.err" || fail "panic: the console's last lines are not shown"
[ $(( $(date +%s) - start )) -lt 60 ] || fail "panic: not ended by the reboot but by the timeout"

# hang: the boot timeout (15 s) destroys it
lab_bg "$TMP/h.out" "$TMP/h.err" guest boot "$TMP/fast.conf" "${KARGS[@]}" --cmdline init=/bin/sh
wait $LAB_PID
rc=$?
cat "$TMP/h.err" >&2
[ $rc -eq 2 ] || fail "hang: expected exit status 2, got $rc"
no_qemu_of $LAB_PID
grep -q "did not report within the boot timeout (15 s): destroyed" "$TMP/h.err" || fail "hang: not caught by the boot timeout"

# SIGTERM while the guest hangs: destroyed at once, exit 128+15
lab_bg "$TMP/t.out" "$TMP/t.err" guest boot "$TMP/fast.conf" "${KARGS[@]}" --cmdline init=/bin/sh
for i in $(seq 1 100); do
	pgrep -f -- "-name guest=mglrulab-$LAB_PID-" >/dev/null && break
	sleep 0.2
done
pgrep -f -- "-name guest=mglrulab-$LAB_PID-" >/dev/null || fail "sigterm: the guest never started"
kill -TERM $LAB_PID
wait $LAB_PID
rc=$?
cat "$TMP/t.err" >&2
[ $rc -eq 143 ] || fail "sigterm: expected exit status 143, got $rc"
no_qemu_of $LAB_PID
grep -q "interrupted by signal 15" "$TMP/t.err" || fail "sigterm: no interruption message"
echo "all three faults handled in $(( $(date +%s) - start )) s"
exit 0
