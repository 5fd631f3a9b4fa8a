#!/usr/bin/env bash
# A workload's node = that the guest does not have is refused when the
# session starts, before any kernel is built, at the [workload] section's
# line in lab.conf. Before, two kernels were built and a guest booted before
# the workload's own precondition said so. No kernel is built here: the
# test's cache is empty, and the check comes first, before the session's
# folder too.
# Paired (run-all): a state, reports and kernel cache of its own, no guest
# booted, nothing timed but its whole (under the timeout's 120 s).
# run-all: quick
# run-all: paired
. "$(dirname "$0")/../lib/common.sh"

conf=$TMP/lab.conf
# The copy lives in $TMP: its relative paths made absolute again.
sed -e 's/^node = 0$/node = 5/' -e "s#^\(fragments\|series\|file\) = \([a-z]\)#\1 = $ROOT/\2#" \
	lab.conf > "$conf" || fail "cannot write $conf"
grep -q '^node = 5$' "$conf" || fail "lab.conf has no 'node = 0' line to change"
line=$(grep -n '^\[workload numa\]' "$conf" | cut -d: -f1)
private_lab "$conf"
start=$(date +%s)
# timeout: were the check gone, the session would build two kernels.
MGLRULAB_CACHE_DIR=$TMP/cache timeout -s INT 120 "$LAB" run --ab -c "$conf" --workloads numa >"$TMP/out" 2>"$TMP/err"
rc=$?
cat "$TMP/err"
[ $rc -eq 1 ] || fail "node = 5 on a two-node guest exited $rc, expected 1"
grep -q "lab.conf:$line: \[workload numa\] node = 5: guest tiny-icount (.*) has nodes 0-1" "$TMP/err" ||
	fail "the error does not name the section's line and the guest's nodes"
[ -z "$(ls -A "$TMP/cache" 2>/dev/null)" ] || fail "something was built before the check"
# Nor a session folder: reports/latest at an empty one made the next
# `run --resume` fail with "not a session folder".
[ -z "$(ls -A "$REPORTS")" ] || fail "a session folder was left behind: $(ls -A "$REPORTS")"
echo "PASS: a node the guest lacks is refused before any build ($(( $(date +%s) - start )) s)"
