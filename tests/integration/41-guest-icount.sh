#!/usr/bin/env bash
# tiny-icount under TCG: the guest's clock counts instructions (-icount,
# passed through libvirt's QEMU namespace), so a rate measured in it does
# not follow the host's speed. Three fresh boots of the two-CPU ping-pong
# must agree within 1 % (with the host's clock they differ by 5-20 % on
# the development machines; bench/noise-floor measured CV 0.03 % with
# icount), and the domain really ran with -icount.
# run-all: paired
# run-all: cost 20
. "$(dirname "$0")/../lib/common.sh"
. "$(dirname "$0")/../lib/guest.sh"
need_lab_kernel
[ -x build/guest/yield_pingpong ] || skip "build/guest/yield_pingpong not built"

for i in 1 2 3; do
	"$LAB" guest run guests/tiny-icount.conf "${KARGS[@]}" --workload yield_pingpong \
		--arg cpus=2 --arg duration=1 --arg warmup=0 --timeout 120 --json \
		--run-dir "$TMP/run$i" >"$TMP/out$i.json" 2>"$TMP/err$i"
	rc=$?
	[ $rc -eq 0 ] || { cat "$TMP/err$i" >&2; fail "guest run $i exited $rc"; }
	if ! grep -q "<qemu:arg value='-icount'/>" "$TMP/run$i/domain.xml"; then
		grep -q "<domain type='kvm'" "$TMP/run$i/domain.xml" &&
			skip "the guest ran under KVM, where icount does not apply"
		fail "run $i: the domain has no -icount: $(head -c 600 "$TMP/run$i/domain.xml")"
	fi
done
python3 - "$TMP"/out{1,2,3}.json <<'PY' || fail "the icount rates differ between boots"
import json, sys
v = []
for f in sys.argv[1:]:
    m = {r["name"]: r["value"] for r in json.load(open(f))["records"] if r["type"] == "metric"}
    v.append(m["cs_per_sec_per_cpu_2cpu"])
print("two-CPU switches/s per CPU over 3 boots:", [round(x) for x in v])
assert min(v) > 0 and max(v) / min(v) < 1.01, v
PY
exit 0
