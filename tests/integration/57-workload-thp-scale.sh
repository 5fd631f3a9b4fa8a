#!/usr/bin/env bash
# thp_scale in the tiny guest (it changes transparent_hugepage settings,
# so it never runs on this host except for the precondition checks that
# exit before touching anything):
#  - thp=always on fragmented memory at the default mapsize (80 % of the
#    guest's memory): huge pages really allocated (thp_fault_alloc > 0,
#    agreeing with mincore's count and with smaps' AnonHugePages) and
#    fallbacks counted (the fragmenting fill left too few free huge
#    pages); latencies positive and ordered p50 <= p90 <= p99 <= max;
#  - thp=never: no huge page, no THP fault counted;
#  - thp=madvise: runs, or on a kernel without madvise() (tinyconfig
#    leaves out CONFIG_ADVISE_SYSCALLS) exits 2 naming the precondition;
#  - on this host: a mapsize beyond the memory is the precondition
#    "memory" (or "thp" on a host without THP), before any setting changes.
# About 40-60 s on a busy 2-core TCG host.
# run-all: paired
. "$(dirname "$0")/../lib/common.sh"
. "$(dirname "$0")/../lib/guest.sh"
need_lab_kernel
[ -x build/guest/thp_scale ] || make -s workloads >/dev/null || fail "cannot build the workloads"

# Host side: exits 2 before any setting is touched.
before=$(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)
build/guest/thp_scale --mib=4194304 >"$TMP/host.out" 2>"$TMP/host.err"
rc=$?
[ $rc = 2 ] || fail "a mapsize of 4 TiB must exit 2, got $rc: $(cat "$TMP/host.out")"
want=memory
[ -e /sys/kernel/mm/transparent_hugepage/enabled ] || want=thp
grep -q "\"precondition\":\"$want\"" "$TMP/host.out" || fail "expected precondition $want: $(cat "$TMP/host.out")"
[ "$(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)" = "$before" ] ||
	fail "the host's THP setting changed"

# guest_run NAME ARGS...: thp_scale in tiny, the result JSON in $TMP/NAME.json.
guest_run() {
	local name=$1
	shift
	local args=()
	for a in "$@"; do args+=(--arg "$a"); done
	"$LAB" -q guest run tiny "${KARGS[@]}" --workload thp_scale "${args[@]}" --timeout 240 \
		--json --run-dir "$TMP/run-$name" >"$TMP/$name.json" 2>"$TMP/$name.err"
	local rc=$?
	[ $rc -eq 0 ] || { cat "$TMP/$name.err" >&2; fail "$name: guest run exited $rc"; }
}

# check NAME 'python assertions' ...: R = records, M = metrics, I(name) = info.
check() {
	local name=$1
	shift
	python3 - "$TMP/$name.json" "$@" <<'PY' || fail "$name: implausible thp_scale result"
import json, sys
d = json.load(open(sys.argv[1]))
R = d["records"]
M = {r["name"]: r["value"] for r in R if r["type"] == "metric"}
E = [r for r in R if r["type"] == "error"]
def I(name):
    return [r for r in R if r["type"] == "info" and r.get("name") == name][0]
for a in sys.argv[2:]:
    if not eval(a):
        sys.exit(f"assertion failed: {a}\nstatus {d.get('status')} metrics {M}\nerrors {E}")
PY
}

guest_run always thp=always threads=2 fragment=1
check always 'd["status"] == "ok"' \
	'M["thp_fault_alloc"] > 0' 'M["thp_fault_fallback"] > 0' \
	'M["thp_fault_alloc"] == I("thp_check")["huge_faults_mincore"]' \
	'I("thp_check").get("anon_huge_kib_smaps", M["thp_fault_alloc"] * 2048) == M["thp_fault_alloc"] * 2048' \
	'M["thp_fault_alloc"] + M["thp_fault_fallback"] == I("thp_check")["faults"]' \
	'abs(M["huge_pct"] - 100.0 * M["thp_fault_alloc"] / I("thp_check")["faults"]) < 1e-9' \
	'0 < M["fault_p50_us"] <= M["fault_p90_us"] <= M["fault_p99_us"] <= M["fault_max_us"]' \
	'M["elapsed_s"] >= M["fault_elapsed_s"] > 0' 'M["sys_s"] > 0' \
	'I("thp_setup")["enabled"] == "always"'

guest_run never thp=never threads=2 fragment=0 mib=128
check never 'd["status"] == "ok"' 'M["thp_fault_alloc"] == 0' 'M["huge_pct"] == 0' \
	'I("thp_check")["faults"] == 32' \
	'0 < M["fault_p50_us"] <= M["fault_p90_us"] <= M["fault_p99_us"] <= M["fault_max_us"]'

guest_run madvise thp=madvise threads=1 fragment=0 mib=64
if grep -q '"precondition"' "$TMP/madvise.json"; then
	check madvise 'E[0]["precondition"] == "madvise"' \
		'"CONFIG_ADVISE_SYSCALLS" in E[0]["reason"]' 'not M'
	grep -q '"status":2,.*"type":"exit"' "$TMP/run-madvise/results.jsonl" ||
		fail "madvise: the program did not exit 2: $(grep exit "$TMP/run-madvise/results.jsonl")"
	echo "ok (thp=madvise: this kernel has no madvise(), precondition reported)"
else
	check madvise 'd["status"] == "ok"' 'M["thp_fault_alloc"] > 0'
	echo ok
fi
