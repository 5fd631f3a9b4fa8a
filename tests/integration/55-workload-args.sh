#!/usr/bin/env bash
# Every program rejects what it does not understand (exit 1, one error
# line, nothing measured) and documents its options with --help.
# run-all: quick
. "$(dirname "$0")/50-workload-lib.bash"

for p in yield_pingpong will_it_scale numa_workload kernel_build mglru_aging thp_scale; do
	$G/$p --help >"$TMP/help" || fail "$p --help failed"
	grep -q -- '--counters' "$TMP/help" || fail "$p --help does not list --counters"
	run unknown $G/$p --no-such-option=1
	[ "$(rc_of unknown)" = 1 ] || fail "$p: unknown option must exit 1"
	check unknown "'unknown option' in E[0]['reason']" "len(L) == 1"
	run positional $G/$p stray
	[ "$(rc_of positional)" = 1 ] || fail "$p: positional argument must exit 1"
done
run badint $G/yield_pingpong --warmup=abc
[ "$(rc_of badint)" = 1 ] || fail "--warmup=abc must exit 1"
check badint "'integer' in E[0]['reason']"
run badsecs $G/yield_pingpong --duration=0.0001
[ "$(rc_of badsecs)" = 1 ] || fail "--duration=0.0001 must exit 1"
check badsecs "'to the millisecond' in E[0]['reason']"
run badenum $G/will_it_scale --mode=fibers
check badenum "'threads|processes' in E[0]['reason']"
run badlist $G/yield_pingpong --cpus=1,,x
[ "$(rc_of badlist)" = 1 ] || fail "--cpus=1,,x must exit 1"
run dash $G/yield_pingpong --counters=0 --cpus=1 --duration=1 --warmup=0
[ "$(rc_of dash)" = 0 ] || fail "--key=value with '_'/'-' spelling"
echo "ok: argument errors"
