#!/usr/bin/env bash
# SIGTERM sent to mglrulab alone (what a CI job's timeout or `kill PID`
# does) while a session compiles a kernel stops make too: mglrulab exits 2
# within seconds, says the build was interrupted, and no make is left
# compiling in that build folder.
. "$(dirname "$0")/../lib/common.sh"
need_kernel_source
# A series of its own (a 9 us delay), so that its kernel is never cached:
# the session has to compile it every time this test runs.
sed 's/udelay(10)/udelay(9)/' tests/fixtures/series/sched-yield-delay.patch > "$TMP/delay49.patch"
grep -q 'udelay(9)' "$TMP/delay49.patch" || fail "the test series was not made"
CONF=$TMP/interrupt.conf
sed -e "s#\.\./\.\./\.\./#$ROOT/#" -e "s#^series = \.\./series/sched-yield-delay.patch#series = $TMP/delay49.patch#" \
	-e "s#\.\./series/#$ROOT/tests/fixtures/series/#" \
	-e 's/^\[kernel slow\]/[kernel slow49]/' -e 's/^kernels = baseline patched/kernels = baseline slow49/' \
	tests/fixtures/labs/ab-small.conf > "$CONF"
grep -q '^kernels = baseline slow49' "$CONF" || fail "the test config was not made"

"$LAB" run --ab -c "$CONF" > "$TMP/out" 2> "$TMP/err" &
pid=$!
for _ in $(seq 1200); do
	grep -q '^\[slow49\] compile' "$TMP/err" && break
	kill -0 $pid 2>/dev/null || break
	sleep 0.5
done
grep -q '^\[slow49\] compile' "$TMP/err" || { kill -9 $pid 2>/dev/null; cat "$TMP/err"; fail "the build never started"; }
sleep 3
stop_within $pid TERM 30
rc=$RC
tail -3 "$TMP/err"
[ $rc -eq 2 ] || fail "expected exit status 2 (interrupted), got $rc"
grep -q 'interrupted: \[kernel slow49\] build stopped by signal 15, nothing cached' "$TMP/err" ||
	fail "no 'interrupted' message"
sleep 1
if pgrep -f 'build/tar-[0-9a-f]*-slow49' >/dev/null; then
	pgrep -af 'build/tar-[0-9a-f]*-slow49' | head -3
	pkill -f 'build/tar-[0-9a-f]*-slow49'
	fail "make is still compiling after mglrulab stopped"
fi
echo ok
