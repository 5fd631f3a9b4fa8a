#!/usr/bin/env bash
# Counter snapshots around the measured phase: /proc/vmstat and every
# node's vmstat, before and after, labelled per sweep point; the overhead
# is reported; tracepoints that this kernel (or this host's missing
# tracefs) cannot count are recorded as absent/unavailable, not errors;
# --counters=0 takes none; a malformed tracepoint name is refused. The
# snapshots are then fed through the host parser (unit-tested separately)
# by checking that event deltas computed here are never negative.
# run-all: quick
. "$(dirname "$0")/50-workload-lib.bash"

run snap $G/yield_pingpong --cpus=1 --duration=1 --warmup=0 \
	--tracepoints=sched:sched_switch,nosuch_subsys:nosuch_event
[ "$(rc_of snap)" = 0 ] || fail "exited $(rc_of snap): $(cat "$TMP/snap.out")"
nodes=$(ls -d /sys/devices/system/node/node[0-9]* 2>/dev/null | wc -l)
check snap \
	"[s['phase'] for s in S if s['source'] == '/proc/vmstat'] == ['before', 'after']" \
	"all(s.get('label') == '1cpu' for s in S)" \
	"len([s for s in S if s['source'].endswith('/vmstat') and '/node' in s['source']]) == 2 * $nodes" \
	"info('counter_overhead')[0]['total_ms'] > 0" \
	"sorted(o['tracepoint'] for o in I if 'tracepoint' in o) == ['nosuch_subsys:nosuch_event', 'sched:sched_switch'] or any(s.get('tracepoint') == 'sched:sched_switch' for s in S)" \
	"all(o['absent'] for o in I if o.get('tracepoint') == 'nosuch_subsys:nosuch_event')" \
	"(lambda b, a: all(a[k] >= b[k] for k in b if k in a and not k.startswith('nr_') and k != 'workingset_nodes'))(*[dict((l.split()[0], int(l.split()[1])) for l in s['text'].splitlines()) for s in S if s['source'] == '/proc/vmstat'])" \
	"M['cs_per_sec_per_cpu_1cpu'] > 0"

run nocounters $G/yield_pingpong --cpus=1 --duration=1 --warmup=0 --counters=0
check nocounters "not S" "not info('counter_overhead')"

run badtp $G/yield_pingpong --cpus=1 --duration=1 --tracepoints=../../etc:passwd
[ "$(rc_of badtp)" = 1 ] || fail "a malformed tracepoint must exit 1, got $(rc_of badtp)"
check badtp "'subsystem:event' in E[0]['reason']" "not S"
echo "ok: snapshots, labels, overhead, absent tracepoints"
