#!/usr/bin/env bash
# SIGTERM sent to `mglrulab kernel build` alone (a CI job's timeout, `kill
# PID`) while make compiles: mglrulab stops make and everything it started,
# waits for them, and only then lets go of build.lock; it exits 2 within
# seconds saying the build was interrupted and nothing was cached, and the
# cache has no entry for the kernel. The next build starts afresh from the
# build folder (tests/integration/65 does the same for a session's build).
. "$(dirname "$0")/../lib/common.sh"
need_kernel_source
# A series of its own and a kernel name of its own: the build folder is
# this test's, and the series differs on every run (a token in a comment),
# so the kernel is never cached and make always has a file to compile.
NAME=intr48
token=$(date +%s%N)-$$
sed -e 's/udelay(10)/udelay(8)/' -e "s#/\* mglrulab test: #/* mglrulab test $token: #" \
	tests/fixtures/series/sched-yield-delay.patch > "$TMP/delay48.patch"
grep -q "mglrulab test $token: " "$TMP/delay48.patch" || fail "the test series was not made"
CONF=$TMP/interrupt.conf
sed -e "s#\.\./\.\./\.\./#$ROOT/#" -e "s#\.\./series/#$ROOT/tests/fixtures/series/#" \
	tests/fixtures/labs/ab-small.conf > "$CONF"
printf '\n[kernel %s]\nfrom = baseline\nseries = %s\n' "$NAME" "$TMP/delay48.patch" >> "$CONF"
"$LAB" config check -c "$CONF" --json > "$TMP/conf.json" || fail "the test config does not load"
CACHE=$(json_get "$TMP/conf.json" 'd["lab"]["cache_dir"]')

# The processes working in this kernel's build folder: the sub-makes and
# compilers run there, the top make names it in O=. One line each: pid,
# name, command line.
build_procs() {
	python3 - "$CACHE/build" "$NAME" <<'PY'
import os, re, sys
top, name = sys.argv[1], sys.argv[2]
folder = re.compile(re.escape(top) + r"/[^/ ]*-" + re.escape(name) + r"(/|$| )")
for pid in filter(str.isdigit, os.listdir("/proc")):
    try:
        cwd = os.readlink(f"/proc/{pid}/cwd")
        cmd = open(f"/proc/{pid}/cmdline", "rb").read().replace(b"\0", b" ").decode(errors="replace")
        comm = open(f"/proc/{pid}/comm").read().strip()
    except OSError:
        continue
    if folder.match(cwd + " ") or re.search(r"\bO=" + folder.pattern, cmd):
        print(pid, comm, cmd[:120])
PY
}
cache_has_entry() {
	"$LAB" kernel list --json -c "$CONF" | python3 -c '
import json, sys
sys.exit(0 if any(e.get("name") == sys.argv[1] for e in json.load(sys.stdin)) else 1)' "$NAME"
}
# An entry of this kernel could only be left by a build of an older
# mglrulab that was not stopped: it is this test's own, remove it.
for e in "$CACHE"/entries/*/meta.json; do
	[ -f "$e" ] && [ "$(json_get "$e" 'd.get("name")')" = "$NAME" ] && rm -rf "$(dirname "$e")"
done
cache_has_entry && fail "an entry of $NAME is in $CACHE and cannot be removed"

"$LAB" kernel build -c "$CONF" "$NAME" > "$TMP/out" 2> "$TMP/err" &
pid=$!
# Compiling: make's compile line is out and a compiler runs in the folder.
started=
for _ in $(seq 1200); do
	kill -0 $pid 2>/dev/null || break
	if grep -q "^\[$NAME\] compile" "$TMP/out" && build_procs | grep -qE '^[0-9]+ (cc1|gcc) '; then
		started=1
		break
	fi
	sleep 0.5
done
if [ -z "$started" ]; then
	kill -9 $pid 2>/dev/null
	cat "$TMP/out" "$TMP/err"
	fail "the build never started compiling"
fi
before=$(build_procs | wc -l)
stop_within $pid TERM 10
rc=$RC
left=$(build_procs)
cat "$TMP/out" "$TMP/err"
echo "exited $rc in $STOP_S s after SIGTERM; $before processes worked in the build folder before it"
if [ -n "$left" ]; then
	echo "$left"
	kill -TERM $(echo "$left" | cut -d' ' -f1) 2>/dev/null
	fail "$(echo "$left" | wc -l) processes of the $NAME build still ran after mglrulab exited"
fi
[ $rc -eq 2 ] || fail "expected exit status 2 (interrupted), got $rc"
grep -q "interrupted: \[kernel $NAME\] build stopped by signal 15, nothing cached" "$TMP/err" ||
	fail "no 'interrupted: ... nothing cached' message"
# build.lock is free, or held by a build that started since (not ours).
if ! flock -n -x "$CACHE/build.lock" true; then
	grep -q "^pid $pid\$" "$CACHE/build.lock" && fail "build.lock is still held by pid $pid"
fi
cache_has_entry && fail "the interrupted build left an entry of $NAME in the cache"
ls "$CACHE"/entries | grep -q "\.tmp\.$pid\$" && fail "the interrupted build left a temporary entry"
echo ok
