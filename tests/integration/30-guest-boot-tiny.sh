#!/usr/bin/env bash
# Boot the `tiny` guest with the lab kernel under TCG and verify, end to end
# through the guest runner, that it has the declared 2-node topology; the
# domain XML is saved beside the results and no QEMU process remains.
# run-all: paired
# run-all: cost 15
. "$(dirname "$0")/../lib/common.sh"
. "$(dirname "$0")/../lib/guest.sh"
need_lab_kernel

lab_bg "$TMP/out.json" "$TMP/err" guest boot tiny "${KARGS[@]}" --json --run-dir "$TMP/run"
wait $LAB_PID
rc=$?
cat "$TMP/err" >&2
[ $rc -eq 0 ] || { cat "$TMP/out.json" >&2; fail "guest boot tiny exited $rc"; }
no_qemu_of $LAB_PID

[ "$(json_get "$TMP/out.json" 'd["status"]')" = ok ] || fail "status is not ok"
[ "$(json_get "$TMP/out.json" 'len(d["topology"]["nodes"])')" = 2 ] || fail "not 2 nodes"
[ "$(json_get "$TMP/out.json" 'd["topology"]["nodes"][0]["cpus"]')" = 0 ] || fail "node 0 cpus"
[ "$(json_get "$TMP/out.json" 'd["topology"]["nodes"][1]["cpus"]')" = 1 ] || fail "node 1 cpus"
[ "$(json_get "$TMP/out.json" 'd["topology"]["nodes"][0]["distances"]')" = "[10, 20]" ] || fail "distances"
[ "$(json_get "$TMP/out.json" 'd["topology"]["vcpus_online"]')" = 2 ] || fail "vcpus"
[ "$(json_get "$TMP/out.json" 'd["accel"]')" = tcg ] || [ -e /dev/kvm ] || fail "accel"
lru=$(json_get "$TMP/out.json" 'd["topology"]["lru_gen"]')
[ "$lru" != None ] || fail "the guest has no /sys/kernel/mm/lru_gen/enabled"
boot=$(json_get "$TMP/out.json" 'd["boot_s"]')
echo "boot to runner: ${boot}s, lru_gen $lru"
# the boot on the host's clock too: within the domain's life
json_get "$TMP/out.json" '0 < d["boot_wall_s"] < d["wall_s"]' | grep -q True ||
	fail "no boot_wall_s within wall_s"
for f in domain.xml console.log results.jsonl job.json; do
	[ -s "$TMP/run/$f" ] || fail "run folder lacks $f"
done
grep -q "<distances>" "$TMP/run/domain.xml" || fail "domain.xml without distances"
[ -e "$TMP/run/disk.qcow2" ] && fail "the overlay disk was kept without --keep-disk"

# the human-readable form says the same
"$LAB" guest boot tiny "${KARGS[@]}" >"$TMP/out.txt" 2>&1 || { cat "$TMP/out.txt"; fail "text boot failed"; }
grep -q "topology verified" "$TMP/out.txt" || fail "no 'topology verified'"
grep -q "node 1: cpus 1" "$TMP/out.txt" || fail "no node 1 line"
grep -Eq "boot to runner: [0-9.]+ s \(host clock\), [0-9.]+ s \(guest clock\)" "$TMP/out.txt" ||
	fail "no boot time on both clocks"
exit 0
