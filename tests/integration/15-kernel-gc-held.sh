#!/usr/bin/env bash
# `kernel gc` removes no cache entry that is in use: not the kernel of a
# running session (a real one, on a kernel cache of the test's own), not an
# entry under a shared flock on its meta.json (what sessions, bisections
# and `kernel build` hold, lab/kernel/kcache.h). It says which it kept and
# why. Entries nobody holds or references go, and so do the folders that
# killed builds and gc runs leave in entries/. The shared cache is never
# touched: gc runs on $TMP/cache only.
# Paired (run-all): the session's 3 runs are plumbing (statuses), the kernel
# cache is the test's own copy, and the session has a state folder of its
# own (private_state).
# run-all: paired
# run-all: cost 20
. "$(dirname "$0")/../lib/common.sh"
need_kernel_source
[ -x build/guest/mglrulab-runner ] || make -s workloads >/dev/null || fail "cannot build the guest programs"

# The baseline from the shared cache (a cache hit normally), copied into a
# cache of this test's own with the index that finds it.
"$LAB" -q kernel build --json -c tests/fixtures/labs/ab-small.conf baseline > "$TMP/base.json" ||
	fail "cannot build or find the baseline kernel"
entry=$(dirname "$(json_get "$TMP/base.json" 'd[0]["bzImage"]')")
key=$(basename "$entry")
shared=$(dirname "$(dirname "$entry")")
mkdir -p "$TMP/cache/entries" || fail "cannot create the test cache"
cp -a "$shared/index" "$TMP/cache/" && cp -a "$entry" "$TMP/cache/entries/" || fail "cannot copy $entry"
[ -d "$shared/srcid" ] && cp -a "$shared/srcid" "$TMP/cache/"
export MGLRULAB_CACHE_DIR=$TMP/cache
CONF=$TMP/session.conf
sed -e "s#\.\./\.\./\.\./#$ROOT/#" -e "s#\.\./series/#$ROOT/tests/fixtures/series/#" \
	-e "s#^reports_dir = .*#reports_dir = $TMP/reports#" tests/fixtures/labs/ab-small.conf > "$CONF"
private_state "$CONF"
# gc of the session's own lab file keeps the baseline anyway (a kernel of
# it resolves there): gc runs with a lab whose one kernel resolves nowhere.
mkdir -p "$TMP/src"
printf '[kernel k]\nsource = %s/src\n[guest tiny]\nfile = %s/guests/tiny.conf\n[run]\nkernels = k\nworkloads = yield_pingpong\n' \
	"$TMP" "$ROOT" > "$TMP/gc.conf"
# The copied baseline is an entry of the test cache: with nothing
# holding it and no kernel of gc.conf resolving there, gc would remove it.
"$LAB" kernel gc --dry-run -c "$TMP/gc.conf" > "$TMP/dry.out" || fail "kernel gc --dry-run failed"
grep -q "would remove.*$key" "$TMP/dry.out" || { cat "$TMP/dry.out"; fail "the copied baseline is not found in $TMP/cache"; }

fake_entry() {
	mkdir -p "$TMP/cache/entries/$1" &&
	printf '{"key": "%s", "name": "%s"}\n' "$1" "$2" > "$TMP/cache/entries/$1/meta.json" &&
	echo image > "$TMP/cache/entries/$1/bzImage" || fail "cannot write the entry $1"
}
idle=$(printf '%064d' 0 | tr 0 b)
fake_entry "$idle" idle

# 1. A running session holds its kernel.
"$LAB" run -c "$CONF" --kernel baseline --runs 3 > "$TMP/run.out" 2> "$TMP/run.err" &
run_pid=$!
for _ in $(seq 600); do
	ls "$TMP"/reports/*/session.json >/dev/null 2>&1 && break
	kill -0 $run_pid 2>/dev/null || break
	sleep 0.2
done
ls "$TMP"/reports/*/session.json >/dev/null 2>&1 || { cat "$TMP/run.err"; fail "the session never started"; }
"$LAB" kernel gc -c "$TMP/gc.conf" > "$TMP/gc1.out" 2>&1
rc=$?
cat "$TMP/gc1.out"
kill -0 $run_pid 2>/dev/null || fail "the session ended before gc ran: the test cannot tell"
[ $rc -eq 0 ] || fail "kernel gc exited $rc"
[ -f "$TMP/cache/entries/$key/bzImage" ] || { kill $run_pid; wait $run_pid; fail "kernel gc removed the kernel of a running session"; }
grep -q "keeping $TMP/cache/entries/$key (baseline): in use" "$TMP/gc1.out" || fail "gc does not say it kept the session's kernel"
[ ! -d "$TMP/cache/entries/$idle" ] || fail "gc kept an entry nobody holds or references"
wait $run_pid
rc=$?
[ $rc -eq 0 ] || { tail "$TMP/run.err"; fail "the session exited $rc"; }
grep -q '^\[baseline\] cache hit' "$TMP/run.err" || fail "the session did not take the baseline from the test cache"
report=$(ls -d "$TMP"/reports/*/ | head -1)/report.json
ok_runs=$(json_get "$report" 'sum(r["status"] == "ok" for r in d["runs"])')
# A failed run says why (once seen in a loaded CI run, 2026-12-07, not since).
[ "$ok_runs" = 3 ] || fail "$ok_runs of 3 runs ok: the session lost its kernel? $(json_get "$report" \
	'"; ".join("run %s: %s" % (r.get("seq"), r.get("failure")) for r in d["runs"] if r["status"] != "ok")')"

# 2. An entry held with a shared flock stays (sessions, bisections and
# builds hold theirs this way); the session's entry, let go, goes; so do
# the leftovers of a killed store and a killed gc.
held=$(printf '%064d' 0 | tr 0 c)
fake_entry "$held" held
mkdir -p "$TMP/cache/entries/$held.tmp.4242/x" "$TMP/cache/entries/$held.gc.4343"
# This shell holds it, on descriptor 9 (kept from the commands it runs).
exec 9< "$TMP/cache/entries/$held/meta.json"
flock -s 9 || fail "cannot hold the entry"
"$LAB" kernel gc -c "$TMP/gc.conf" > "$TMP/gc2.out" 2>&1 9<&-
rc=$?
cat "$TMP/gc2.out"
exec 9<&-
[ $rc -eq 0 ] || fail "kernel gc exited $rc"
[ -f "$TMP/cache/entries/$held/meta.json" ] || fail "kernel gc removed a held entry"
grep -q "keeping $TMP/cache/entries/$held (held): in use" "$TMP/gc2.out" || fail "gc does not say it kept the held entry"
[ ! -d "$TMP/cache/entries/$key" ] || fail "gc kept the kernel of a session that has ended"
ls "$TMP/cache/entries" | grep -q '\.\(tmp\|gc\)\.' && fail "gc left the leftovers of killed runs"
grep -q '^1 entry removed, 1 kept (1 in use)$' "$TMP/gc2.out" || fail "gc's summary is wrong"

# 3. Let go, it goes.
"$LAB" kernel gc -c "$TMP/gc.conf" > "$TMP/gc3.out" 2>&1 || fail "kernel gc failed"
cat "$TMP/gc3.out"
[ ! -d "$TMP/cache/entries/$held" ] || fail "gc kept an entry no longer held"
echo ok
