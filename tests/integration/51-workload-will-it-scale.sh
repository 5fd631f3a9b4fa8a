#!/usr/bin/env bash
# will_it_scale on this host: context_switch1 and sched_yield, threads and
# processes; the will-it-scale text it forwards has the original's shape
# (warmup, measurement, average = integer mean of the measured totals) and
# agrees with ops_per_sec_mean; ops_per_sec is the median of the measured
# samples; before each measured sample the tasks park while a reference
# loop runs on each CPU, and each sample's rate and the reference rate go
# out as cells (docs/reports.md, Host states). --binary runs an external will-it-scale-like program and parses
# its stdout, snapshotting at its phase markers.
# run-all: quick
. "$(dirname "$0")/50-workload-lib.bash"

for t in context_switch1 sched_yield; do
	for m in threads processes; do
		run "$t-$m" $G/will_it_scale --test=$t --mode=$m --tasks=2 --seconds=3 --warmup=0 --counters=0
		[ "$(rc_of "$t-$m")" = 0 ] || fail "$t $m exited $(rc_of "$t-$m")"
		check "$t-$m" \
			"M['ops_per_sec'] > 1000" \
			"M['ops_per_sec_per_task'] * 2 == M['ops_per_sec']" \
			"(lambda t: t.startswith('testcase:') and '\nwarmup\n' in t and '\nmeasurement\n' in t)(info('will_it_scale_output')[0]['text'])" \
			"(lambda ls: int(ls[-1].split(':')[1]) == sum(int(l.split('total:')[1]) for l in ls[ls.index('measurement')+1:-1]) // 3)(info('will_it_scale_output')[0]['text'].splitlines())" \
			"M['ops_per_sec_mean'] == int(info('will_it_scale_output')[0]['text'].split('average:')[1])" \
			"M['ops_per_sec'] == statistics.median(ser('ops_per_sec_samples'))" \
			"len(ser('ops_per_sec_samples')) == 3" \
			"ser('ops_per_sec_cells') == ser('ops_per_sec_samples')" \
			"len(ser('ref_cells')) == 3 and all(r > 0 for r in ser('ref_cells'))"
	done
done
# ref_ms=0: the measurement as before, no reference, no cells.
run noref $G/will_it_scale --test=sched_yield --tasks=2 --seconds=2 --warmup=0 --ref-ms=0 --counters=0
[ "$(rc_of noref)" = 0 ] || fail "ref_ms=0 exited $(rc_of noref)"
check noref "not [o for o in L if o.get('name') in ('ref_cells', 'ops_per_sec_cells')]" \
	"len(ser('ops_per_sec_samples')) == 2"

# An external binary: a script that prints will-it-scale's format.
cat >"$TMP/fake_wis" <<'SH'
#!/bin/sh
[ "$1" = -t ] && [ "$3" = -s ] || exit 9
echo "testcase:Fake"
echo warmup
i=0; while [ $i -lt 6 ]; do echo "min:1 max:1 total:$2"; i=$((i+1)); done
echo measurement
i=1; while [ $i -lt "$4" ]; do echo "min:5 max:5 total:1000"; i=$((i+1)); done
echo "min:5 max:5 total:4000"
echo "average:$(( (1000 * ($4 - 1) + 4000) / $4 ))"
SH
chmod +x "$TMP/fake_wis"
run binary $G/will_it_scale --binary="$TMP/fake_wis" --tasks=4 --seconds=3
[ "$(rc_of binary)" = 0 ] || fail "--binary exited $(rc_of binary): $(cat "$TMP/binary.out")"
# One odd second out of three moves the mean, not the median.
check binary "M['ops_per_sec'] == 1000" "M['ops_per_sec_per_task'] == 250" \
	"M['ops_per_sec_mean'] == 2000" \
	"[s['phase'] for s in S if s['source'] == '/proc/vmstat'] == ['before', 'after']" \
	"info('counter_overhead')[0]['total_ms'] >= 0"
run nobinary $G/will_it_scale --binary=/nonexistent/wis
[ "$(rc_of nobinary)" = 2 ] || fail "a missing --binary must exit 2, got $(rc_of nobinary)"
echo "ok: will_it_scale threads/processes, both tests, external binary"
