#!/usr/bin/env bash
# The bundled multi-node guests boot once each with the lab kernel: numa3's
# three nodes with two vCPUs each and its 10/21 distance matrix, numa2's two
# nodes, and host placement that takes effect: a copy of numa2 with
# [placement] vcpupin/emulatorpin is booted and QEMU's vCPU threads are
# checked to run on the host CPUs the file names (neither bundled file pins:
# a pin only means something on a NUMA host, see the comment in numa2.conf).
# run-all: paired
. "$(dirname "$0")/../lib/common.sh"
. "$(dirname "$0")/../lib/guest.sh"
need_lab_kernel

# boot NAME_OR_FILE TAG: boot, check the exit status and that nothing remains.
boot() {
	lab_bg "$TMP/$2.json" "$TMP/$2.err" guest boot "$1" "${KARGS[@]}" --json --run-dir "$TMP/$2"
	BOOT_PID=$LAB_PID
}
boot_done() {
	wait "$BOOT_PID"
	local rc=$?
	[ $rc -eq 0 ] || { cat "$TMP/$1.err" "$TMP/$1.json" >&2; fail "guest boot $1 exited $rc"; }
	no_qemu_of "$BOOT_PID"
	[ "$(json_get "$TMP/$1.json" 'd["status"]')" = ok ] || fail "$1: status is not ok"
	echo "$1: boot to runner $(json_get "$TMP/$1.json" 'd["boot_s"]') s"
}
# nodes TAG EXPR: EXPR over each node the guest reported (n), as a list.
nodes() { json_get "$TMP/$1.json" "[$2 for n in d['topology']['nodes']]"; }
online() { json_get "$TMP/$1.json" "d['topology']['vcpus_online']"; }

boot numa3 numa3
boot_done numa3
[ "$(online numa3)" = 6 ] || fail "numa3: not 6 vCPUs online"
[ "$(nodes numa3 'n["id"]')" = "[0, 1, 2]" ] || fail "numa3: nodes are $(nodes numa3 'n["id"]')"
cpus=$(nodes numa3 'n["cpus"]')
[ "$cpus" = "['0-1', '2-3', '4-5']" ] || fail "numa3: CPUs per node are $cpus"
dist=$(nodes numa3 'n["distances"]')
[ "$dist" = "[[10, 21, 21], [21, 10, 21], [21, 21, 10]]" ] || fail "numa3: distances $dist"
# Every node shows most of its 4 GiB (firmware and kernel keep a little).
mem=$(nodes numa3 '3 << 20 < n["memory_kib"] <= 4 << 20')
[ "$mem" = "[True, True, True]" ] || fail "numa3: memory per node $(nodes numa3 'n["memory_kib"]') KiB"
grep -q "<nosharepages/>" "$TMP/numa3/domain.xml" || fail "numa3: [placement] nosharepages not in the domain"

# numa2 with pins: vCPUs alternate between the first and the last host CPU.
last=$(( $(nproc) - 1 ))
{
	sed '/^\[placement\]/,$d' guests/numa2.conf
	printf '[placement]\nvcpupin = 0:%d 1:0 2:%d 3:0\nemulatorpin = 0\n' "$last" "$last"
} >"$TMP/numa2-pinned.conf"
want="0:$last 1:0 2:$last 3:0"
boot "$TMP/numa2-pinned.conf" numa2
# libvirt pins the threads before the guest runs: look while it boots.
seen=
for _ in $(seq 1 400); do
	q=$(pgrep -f -- "-name guest=mglrulab-$BOOT_PID-" | head -1)
	if [ -n "$q" ]; then
		got=
		for t in /proc/"$q"/task/*; do
			name=$(cat "$t/comm" 2>/dev/null) || continue
			[[ $name =~ ^CPU\ ([0-9]+)/ ]] || continue
			got+="${BASH_REMATCH[1]}:$(awk '/^Cpus_allowed_list/ { print $2 }' "$t/status") "
		done
		got=$(tr ' ' '\n' <<<"$got" | sort -n | grep . | tr '\n' ' ')
		seen=$got
		[ "${got% }" = "$want" ] && break
	fi
	kill -0 "$BOOT_PID" 2>/dev/null || break
	sleep 0.05
done
boot_done numa2
[ "${seen% }" = "$want" ] || fail "numa2: vCPU threads run on '${seen% }', expected '$want'"
echo "numa2: vCPU threads pinned $want"
[ "$(online numa2)" = 4 ] || fail "numa2: not 4 vCPUs online"
cpus=$(nodes numa2 'n["cpus"]')
[ "$cpus" = "['0-1', '2-3']" ] || fail "numa2: CPUs per node are $cpus"
dist=$(nodes numa2 'n["distances"]')
[ "$dist" = "[[10, 21], [21, 10]]" ] || fail "numa2: distances $dist"
grep -q "<vcpupin vcpu='0' cpuset='$last'/>" "$TMP/numa2/domain.xml" || fail "numa2: no vcpupin in the domain"
exit 0
