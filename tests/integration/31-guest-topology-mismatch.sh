#!/usr/bin/env bash
# A declared topology the guest does not show is rejected, with both shown:
# numa=off on the kernel command line folds tiny's two nodes into one.
# run-all: paired
. "$(dirname "$0")/../lib/common.sh"
. "$(dirname "$0")/../lib/guest.sh"
need_lab_kernel

lab_bg "$TMP/out" "$TMP/err" guest boot tiny "${KARGS[@]}" --cmdline numa=off
wait $LAB_PID
rc=$?
cat "$TMP/err" >&2
[ $rc -eq 2 ] || fail "expected exit status 2 (lab failure), got $rc"
no_qemu_of $LAB_PID
grep -q "does not match" "$TMP/err" || fail "no mismatch message"
grep -q "declared 2 NUMA nodes, the guest shows 1" "$TMP/err" || fail "the difference is not named"
grep -q "^declared:" "$TMP/err" || fail "declared topology not shown"
grep -q "^the guest shows:" "$TMP/err" || fail "reported topology not shown"
grep -q "node 0: cpus 0-1" "$TMP/err" || fail "the guest's single node is not shown"
exit 0
