#!/usr/bin/env bash
# kernel_build's flow on a stand-in tree (never a real kernel build here):
# the config step runs first and unmeasured, the target is built out of
# tree (O=) from a read-only source, the artifact check works, make's
# output stays out of stdout, a failing build exits 1 with the log's tail,
# and with memcg=1 a host without cgroup v2 memory exits 2 (cgroup_v2).
# run-all: quick
. "$(dirname "$0")/50-workload-lib.bash"

command -v make >/dev/null && command -v gcc >/dev/null || skip "no make/gcc on this host"
src=$TMP/src
mkdir -p "$src" "$TMP/out"
cat >"$src/Makefile" <<'MK'
tinyconfig:
	echo CONFIG_TINY=y > $(O)/.config
scripts:
	test -f $(O)/.config
	mkdir -p $(O)/scripts/basic
	printf 'int main(void) { return 0; }\n' | gcc -x c -o $(O)/scripts/basic/fixdep -
broken:
	@echo 'error: "quoted" \ and a tab	here'; exit 3
# Prepared folders: the copy must keep timestamps (make relies on them).
one:
	test "$$(stat -c %Y $(O)/old.o)" = 1000000000
	test ! -e $(O)/two.o
	echo one > $(O)/one.o
	@echo '  CC      one.o'
two:
	test -f $(O)/one.o
	echo two > $(O)/two.o
	@echo '  LD      two.o'
MK
chmod -R a-w "$src"

run ok $G/kernel_build --src="$src" --builddir="$TMP/out" --memcg=0 --jobs=2 \
	--artifact=scripts/basic/fixdep --counters=0
[ "$(rc_of ok)" = 0 ] || fail "build exited $(rc_of ok): $(cat "$TMP/ok.out")"
check ok "M['elapsed_s'] > 0" "M['user_s'] >= 0" "M['sys_s'] >= 0" \
	"all(k in M for k in ('pgpgin', 'pgmajfault', 'pswpin', 'pswpout'))" \
	"info('build')[0]['target_built']" "not E"
ls "$TMP/out" | grep -q '^mglrulab-kbuild-[0-9]*$' && fail "the build directory was not removed"

run broken $G/kernel_build --src="$src" --builddir="$TMP/out" --memcg=0 --target=broken --counters=0
[ "$(rc_of broken)" = 1 ] || fail "a failing build must exit 1, got $(rc_of broken)"
check broken "'quoted' in E[0]['reason'] and 'status 2' in E[0]['reason']" "not M"

run memcg $G/kernel_build --src="$src" --builddir="$TMP/out" --counters=0
if grep -qw memory "$(awk '{ for (i = 1; i <= NF; i++) if ($i == "-" && $(i+1) == "cgroup2") { print $5; exit } }' /proc/self/mountinfo)/cgroup.controllers" 2>/dev/null; then
	[ "$(rc_of memcg)" = 0 ] || fail "memcg build exited $(rc_of memcg): $(cat "$TMP/memcg.out")"
	check memcg "'memcg_max_events' in M"
else
	[ "$(rc_of memcg)" = 2 ] || fail "without cgroup v2 memory: expected exit 2, got $(rc_of memcg)"
	check memcg "E[0]['precondition'] == 'cgroup_v2'"
fi

# prepared: copied (timestamps kept) instead of the config step; several targets.
prep=$TMP/prep
mkdir -p "$prep/sub"
echo CONFIG_PREPARED=y > "$prep/.config"
echo old > "$prep/old.o"
touch -d @1000000000 "$prep/old.o"
ln -s old.o "$prep/sub/link"
printf 'srctree %s\nobjtree %s\n' "$src" "$prep" > "$prep/.mglrulab-prepared"
run prep $G/kernel_build --src="$src" --builddir="$TMP/out" --memcg=0 --counters=0 \
	--prepared="$prep" --target="one two" --jobs=1 --artifact=two.o --config=nosuchconfig --keep=1
[ "$(rc_of prep)" = 0 ] || fail "prepared build exited $(rc_of prep): $(cat "$TMP/prep.out")"
check prep "info('build')[0]['target'] == 'one two'" "not E" \
	"info('build')[0]['steps'] == 2 and info('build')[0]['compiled'] == 1"
out=$(python3 -c 'import json,sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    if r.get("name") == "build": print(r["outdir"])' "$TMP/prep.out")
[ -L "$out/sub/link" ] && [ "$(cat "$out/one.o")" = one ] || fail "prepared folder not copied into $out"
grep -q PREPARED "$out/.config" || fail "the config step ran although the folder was prepared"
rm -rf "$out"

printf 'srctree /elsewhere\n' > "$prep/.mglrulab-prepared"
run prepwrong $G/kernel_build --src="$src" --builddir="$TMP/out" --memcg=0 --counters=0 \
	--prepared="$prep" --target=one
[ "$(rc_of prepwrong)" = 1 ] || fail "a folder prepared for another tree: expected exit 1, got $(rc_of prepwrong)"
check prepwrong "'made for the source at /elsewhere' in E[0]['reason']"
run prepnone $G/kernel_build --src="$src" --builddir="$TMP/out" --memcg=0 --counters=0 \
	--prepared="$TMP/nosuch" --target=one
[ "$(rc_of prepnone)" = 2 ] || fail "no prepared folder: expected exit 2, got $(rc_of prepnone)"
check prepnone "E[0]['precondition'] == 'prepared'"
run badtarget $G/kernel_build --src="$src" --builddir="$TMP/out" --memcg=0 --counters=0 \
	--target="one CC=evil"
[ "$(rc_of badtarget)" = 1 ] || fail "a variable among the targets: expected exit 1, got $(rc_of badtarget)"

chmod -R u+w "$src"
echo "ok: kernel_build flow (config, O=, artifact, failure log, memcg precondition, prepared folder, targets)"
