#!/usr/bin/env bash
# mglru_aging and numa_workload need MGLRU, debugfs, cgroup v2 with the
# memory controller and (numa_workload) a second node with memory. On a
# host that lacks one, they must exit 2 with an error line naming exactly
# what is missing, computed here independently; on a host that has all of
# it they must run and give plausible results (aged exactly G generations,
# worker RSS unchanged).
# run-all: quick
. "$(dirname "$0")/50-workload-lib.bash"

# What this host lacks, in the order the programs check it.
expect_lru_gen() {
	local caps
	caps=$(cat /sys/kernel/mm/lru_gen/enabled 2>/dev/null) || { echo lru_gen; return; }
	[ $((caps & 1)) = 1 ] || { echo lru_gen; return; }
	[ "$(stat -f -c %T /sys/kernel/debug 2>/dev/null)" = debugfs ] || { echo debugfs; return; }
	local cg
	cg=$(awk '{ for (i = 1; i <= NF; i++) if ($i == "-" && $(i+1) == "cgroup2") { print $5; exit } }' /proc/self/mountinfo)
	[ -n "$cg" ] && grep -qw memory "$cg/cgroup.controllers" 2>/dev/null || { echo cgroup_v2; return; }
	echo none
}
want=$(expect_lru_gen)

run aging $G/mglru_aging --mib=8 --generations=3
if [ "$want" = none ]; then
	[ "$(rc_of aging)" = 0 ] || fail "mglru_aging exited $(rc_of aging) on a capable host: $(cat "$TMP/aging.out")"
	check aging "info('generations_aged')[0]['aged'] == 3" "M['total_ms'] > 0" \
		"len([o for o in L if o['type'] == 'series' and o['name'] == 'gen_ms'][0]['values']) == 3" \
		"(lambda r: len(r) == 3 and min(r) > 0)(ser('ref_cells'))"
else
	[ "$(rc_of aging)" = 2 ] || fail "mglru_aging: expected exit 2 ($want), got $(rc_of aging)"
	check aging "E[0]['precondition'] == '$want'" "not M"
fi

run numa $G/numa_workload --workers=1 --mib=4 --duration=1 --age_interval_ms=200
nodes_with_mem=$(grep -l 'MemTotal: *[1-9]' /sys/devices/system/node/node*/meminfo 2>/dev/null | wc -l)
if [ "$want" = none ] && [ "$nodes_with_mem" -lt 2 ]; then
	want_numa=nodes
else
	want_numa=$want
fi
if [ "$want_numa" = none ]; then
	[ "$(rc_of numa)" = 0 ] || fail "numa_workload exited $(rc_of numa): $(cat "$TMP/numa.out")"
	check numa "M['rss_after_mib'] >= M['rss_before_mib'] * 0.99" "M['worker_touch_passes'] > 0"
else
	[ "$(rc_of numa)" = 2 ] || fail "numa_workload: expected exit 2 ($want_numa), got $(rc_of numa)"
	check numa "E[0]['precondition'] == '$want_numa'" "not M"
fi

# kernel_build without a source tree: precondition "source".
# --memcg=0: this host may lack the memory controller, which is checked first.
run nosrc $G/kernel_build --src="$TMP/none" --memcg=0
[ "$(rc_of nosrc)" = 2 ] || fail "kernel_build without source: expected exit 2, got $(rc_of nosrc)"
check nosrc "E[0]['precondition'] == 'source'"
echo "ok: this host lacks '$want' (numa: '$want_numa'); the programs said so"
