#!/usr/bin/env bash
# yield_pingpong on this host: plausible rates for each CPU count, and proof
# from inside that mm=shared runs all tasks in one address space across
# CPUs while mm=private gives each CPU its own (mm_check info line: pids,
# the MAP_PRIVATE probe page, and the CPU every task really ran on). The
# duration is cut into `reps` windows read without stopping the tasks: the
# metric is the median of the window rates, _mean the whole-duration rate,
# which the windows must add up to (contiguous windows, nothing lost); a
# timer that wakes late lengthens its window and leaves none empty. Before
# each window a reference loop runs on each CPU with the tasks parked
# (docs/reports.md, Host states).
# run-all: quick
. "$(dirname "$0")/50-workload-lib.bash"

ncpu=$(nproc)
[ "$ncpu" -ge 2 ] || skip "needs 2 CPUs to compare shared and private mm across CPUs"

run shared $G/yield_pingpong --mm=shared --cpus=1,2 --duration=1 --warmup=0 --counters=0
[ "$(rc_of shared)" = 0 ] || fail "mm=shared exited $(rc_of shared): $(cat "$TMP/shared.out")"
check shared \
	"M['cs_per_sec_per_cpu_1cpu'] > 1000" \
	"M['cs_per_sec_per_cpu_2cpu'] > 1000" \
	"[c['address_spaces'] for c in info('mm_check')] == [1, 1]" \
	"[c['processes'] for c in info('mm_check')] == [1, 1]" \
	"all(c['pinned'] and c['probe_consistent'] for c in info('mm_check'))" \
	"len(set(info('mm_check')[1]['pids'])) == 1" \
	"(lambda c: c[0] == c[1] != c[2] == c[3])(info('mm_check')[1]['ran_on_cpu'])" \
	"not S and not E"
# Default reps=5: five windows per CPU count, the metric their median, and
# the windows' time-weighted mean the whole-duration rate (within rounding).
for k in 1 2; do
	check shared \
		"len(ser('cs_per_sec_per_cpu_${k}cpu_windows')) == 5 == len(ser('window_s_${k}cpu'))" \
		"all(0.2 - 1e-6 < s < 5 for s in ser('window_s_${k}cpu'))" \
		"M['cs_per_sec_per_cpu_${k}cpu'] == statistics.median(ser('cs_per_sec_per_cpu_${k}cpu_windows'))" \
		"close(M['cs_per_sec_per_cpu_${k}cpu_mean'], sum(r * s for r, s in zip(ser('cs_per_sec_per_cpu_${k}cpu_windows'), ser('window_s_${k}cpu'))) / sum(ser('window_s_${k}cpu')))" \
		"close(M['cs_per_sec_per_cpu_${k}cpu_mean'], statistics.mean(ser('cs_per_sec_per_cpu_${k}cpu_each')))"
done

# The reference loop (ref_ms, default 50) before each window: one cell per
# (window, CPU), window-major, whose mean over the CPUs is the window's rate,
# and a positive reference rate for each (a task that failed to park would
# give 0). ref_ms=0 measures without it, the windows back to back again.
for k in 1 2; do
	check shared \
		"len(ser('cs_per_sec_per_cpu_${k}cpu_cells')) == 5 * $k == len(ser('ref_${k}cpu_cells'))" \
		"all(r > 0 for r in ser('ref_${k}cpu_cells'))" \
		"all(close(w, statistics.mean(ser('cs_per_sec_per_cpu_${k}cpu_cells')[i * $k:(i + 1) * $k])) for i, w in enumerate(ser('cs_per_sec_per_cpu_${k}cpu_windows')))"
done
run noref $G/yield_pingpong --cpus=2 --duration=1 --warmup=0 --ref-ms=0 --counters=0
[ "$(rc_of noref)" = 0 ] || fail "ref_ms=0 exited $(rc_of noref)"
check noref \
	"not [o for o in L if o.get('name') == 'ref_2cpu_cells']" \
	"len(ser('cs_per_sec_per_cpu_2cpu_cells')) == 10"

# reps=1 is the measurement before windows existed: one window, median and
# whole-duration rate the same number.
run one $G/yield_pingpong --cpus=1,2 --duration=1 --warmup=0 --reps=1 --counters=0
[ "$(rc_of one)" = 0 ] || fail "reps=1 exited $(rc_of one): $(cat "$TMP/one.out")"
check one \
	"len(ser('cs_per_sec_per_cpu_2cpu_windows')) == 1" \
	"close(M['cs_per_sec_per_cpu_1cpu'], M['cs_per_sec_per_cpu_1cpu_mean'])" \
	"close(M['cs_per_sec_per_cpu_2cpu'], M['cs_per_sec_per_cpu_2cpu_mean'])"
run zero $G/yield_pingpong --cpus=1 --reps=0 --counters=0
[ "$(rc_of zero)" = 1 ] || fail "reps=0 must exit 1, got $(rc_of zero)"

# A timer stalled across two window boundaries (a vCPU descheduled under
# TCG; here SIGSTOP on the timer process only) gives one long window, not
# windows of zero length whose rate of 0 would drag the median.
$G/yield_pingpong --cpus=1 --duration=2 --warmup=0 --reps=5 --counters=0 >"$TMP/stall.out" &
pid=$!
sleep 0.5
kill -STOP $pid
sleep 0.8
kill -CONT $pid
wait $pid || fail "yield_pingpong exited $? after SIGSTOP/SIGCONT"
check stall \
	"all(s > 0.4 - 1e-6 for s in ser('window_s_1cpu'))" \
	"max(ser('window_s_1cpu')) > 0.7" \
	"all(r > 1000 for r in ser('cs_per_sec_per_cpu_1cpu_windows'))"

run private $G/yield_pingpong --mm=private --cpus=2 --duration=1 --warmup=0 --counters=0
[ "$(rc_of private)" = 0 ] || fail "mm=private exited $(rc_of private)"
check private \
	"M['cs_per_sec_per_cpu_2cpu'] > 1000" \
	"info('mm_check')[0]['address_spaces'] == 2" \
	"info('mm_check')[0]['processes'] == 2" \
	"len(set(info('mm_check')[0]['pids'])) == 2" \
	"info('mm_check')[0]['pinned']"

# A sweep point larger than the machine is capped, not faked.
run capped $G/yield_pingpong --cpus=1,4096 --duration=1 --warmup=0 --counters=0
[ "$(rc_of capped)" = 0 ] || fail "capped sweep exited $(rc_of capped)"
check capped "'cs_per_sec_per_cpu_4096cpu' not in M" "info('cpus_capped')[0]['requested'] == 4096"
run toobig $G/yield_pingpong --cpus=4096 --duration=1 --counters=0
[ "$(rc_of toobig)" = 2 ] || fail "a sweep with no fitting CPU count must exit 2"
check toobig "E[0]['precondition'] == 'cpus'"
echo "ok: shared/private mm proven; rates $(python3 -c "import json;print([json.loads(l)['value'] for l in open('$TMP/shared.out') if '\"metric\"' in l])")"
