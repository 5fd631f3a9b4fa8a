#!/usr/bin/env bash
# run-all: paired
# run-all: cost 40
# Coherence (docs/coherence.md): the coherence plugin on the calibration
# workload in tiny-icount, one boot. Two threads on two vCPUs add to one
# shared counter (window 1), to two counters in one line (2) and to
# counters in lines of their own (3): the model must count about one
# transfer per add for the first two and none for the third, and name
# the counters' line and user space as what moved it. A window file cut
# short, or with a bad number, is refused with FILE:LINE. thp_scale (seed
# 003's workload) marks a unit per huge-page-sized fault, so the model has
# a figure per fault for it (issue 51: it had none).
. "$(dirname "$0")/../lib/common.sh"
. "$(dirname "$0")/../lib/guest.sh"
PLUGIN=$ROOT/build/plugin/mglrulab-coh.so
[ -f "$PLUGIN" ] || fail "no $PLUGIN (make plugin)"
need_lab_kernel
MAP=$(dirname "$KERNEL")/System.map
[ -f "$MAP" ] || skip "no System.map beside $KERNEL (a kernel from outside the lab's cache)"

# 100,000 adds per thread and case: 0.5 M instructions per vCPU, a few
# seconds of the boot's time with the plugin.
"$LAB" guest run guests/tiny-icount.conf "${KARGS[@]}" --workload coh_calib \
	--arg iters=100000 --arg counters=0 --timeout 120 --attr-plugin "$PLUGIN" \
	--run-dir "$TMP/run" >"$TMP/run.out" 2>"$TMP/run.err" ||
	{ rc=$?; cat "$TMP/run.err" >&2; fail "guest run exited $rc"; }
grep -q "<qemu:arg value='-icount'/>" "$TMP/run/domain.xml" ||
	skip "the guest did not run under icount (KVM?): the model needs TCG's lockstep"
for w in 1 2 3; do
	[ -f "$TMP/run/coh.$w" ] || fail "no window $w: $(ls "$TMP/run")"
	"$LAB" attribute "$TMP/run" --coherence --map "$MAP" --window "$w" --json --top 5 \
		>"$TMP/w$w.json" || fail "attribute --coherence window $w"
done
"$LAB" attribute "$TMP/run" --coherence --map "$MAP" --window 1 --top 3

python3 - "$TMP" <<'PY' || fail "the calibration is off"
import json, sys
d = sys.argv[1]
w = [json.load(open(f"{d}/w{i}.json")) for i in (1, 2, 3)]
for x in w:
    assert x["units"] == 200000, x["units"]
    assert x["forced"] == 0 and x["untracked"] == 0 and x["dropped"] == 0, x
for name, x in (("shared", w[0]), ("false sharing", w[1])):
    assert x["per_unit"] >= 0.5, (name, x["per_unit"])
    assert x["per_unit"] <= 1.05, (name, x["per_unit"])  # one per add at most, plus the kernel's
    top = x["lines"][0]
    assert top["line"].startswith("[user line"), top
    assert top["by"] == "[user space]" and top["per_unit"] >= 0.5, top
assert w[2]["per_unit"] < 0.05, w[2]["per_unit"]
print("transfers per add: shared %.4f, false sharing %.4f, separate %.5f"
      % tuple(x["per_unit"] for x in w))
PY

# Hostile files: cut short, a bad number; each named by FILE:LINE, exit 1.
head -n 5 "$TMP/run/coh.1" >"$TMP/run/coh.7"
"$LAB" attribute "$TMP/run" --coherence --map "$MAP" --window 7 >/dev/null 2>"$TMP/cut.err"
[ $? -eq 1 ] || fail "a file cut short was not refused with status 1"
grep -q 'coh.7:5: no "end" line' "$TMP/cut.err" || fail "cut short: $(cat "$TMP/cut.err")"
sed '3s/.*/units 12x/' "$TMP/run/coh.1" >"$TMP/run/coh.8"
"$LAB" attribute "$TMP/run" --coherence --map "$MAP" --window 8 >/dev/null 2>"$TMP/num.err"
[ $? -eq 1 ] || fail "a bad number was not refused with status 1"
grep -q 'coh.8:3: expected "units N"' "$TMP/num.err" || fail "bad number: $(cat "$TMP/num.err")"
# thp_scale: two threads of 16 faults each (128 MiB, thp=never): 32 units.
"$LAB" guest run guests/tiny-icount.conf "${KARGS[@]}" --workload thp_scale \
	--arg thp=never --arg threads=2 --arg fragment=0 --arg mib=128 --arg counters=0 \
	--timeout 120 --attr-plugin "$PLUGIN" --run-dir "$TMP/thp" >"$TMP/thp.out" 2>"$TMP/thp.err" ||
	{ rc=$?; cat "$TMP/thp.err" >&2; fail "thp_scale: guest run exited $rc"; }
"$LAB" attribute "$TMP/thp" --coherence --map "$MAP" --window 1 --json --top 5 \
	>"$TMP/thp.json" || fail "attribute --coherence of thp_scale"
python3 - "$TMP/thp.json" <<'PY' || fail "thp_scale's units are off"
import json, sys
x = json.load(open(sys.argv[1]))
assert x["units"] == 32, x["units"]
print("thp_scale: %d faults, %.2f transfers per fault" % (x["units"], x["per_unit"]))
PY
echo "PASS"
