#!/usr/bin/env bash
# profile --coherence (docs/coherence.md, "In profile and bisect"): one
# kernel's profile of the calibration workload in tiny-icount, with the
# coherence model's two runs after the attribution's: the report has both
# the profile and the "Cache-line transfers (model)" section, and the
# member's windows are the calibration's (about one transfer per add for
# the shared and false-sharing cases, about none for separate lines).
# Before issue 51's fix profile had no --coherence (a usage error).
# why this cost: five guest runs of coh_calib at 100,000 adds per case
# (a plain one, two with the attribution plugin, two with the coherence
# plugin, 7-12 s each).
# run-all: paired
# run-all: cost 50
. "$(dirname "$0")/../lib/common.sh"
need_kernel_source
[ -f "$ROOT/build/plugin/mglrulab-coh.so" ] || fail "no build/plugin/mglrulab-coh.so (make plugin)"

CONF=$TMP/coh.conf
sed "s#^fragments = kernels/#fragments = $ROOT/kernels/#; s#^series = kernels/#series = $ROOT/kernels/#; s#^file = guests/#file = $ROOT/guests/#" \
	lab.conf >"$CONF"
printf '[workload cc]\ntype = coh_calib\niters = 100000\ncounters = 0\n' >>"$CONF"
private_lab "$CONF"
"$LAB" profile baseline -c "$CONF" --workload cc --coherence >"$TMP/run.out" 2>"$TMP/run.err" ||
	{ rc=$?; cat "$TMP/run.err" >&2; fail "profile --coherence exited $rc"; }
D=$(readlink -f "$REPORTS/latest")
python3 -c 'import json, sys; sys.exit("unavailable" not in json.load(open(sys.argv[1]))["coherence"])' \
	"$D/report.json" && skip "coherence not possible here: $(grep 'coherence: not done' "$TMP/run.err")"
grep -q "^Cache-line transfers (model; 2 runs per kernel" "$D/report.txt" ||
	fail "no coherence section in report.txt"
python3 - "$D/report.json" <<'PY' || fail "the coherence member is off"
import json, sys
r = json.load(open(sys.argv[1]))
c = r["coherence"]
assert r["design"]["coherence"] == "all", r["design"]
assert "attribution" in r, "no profile"
w = c["workloads"][0]
assert w["workload"] == "cc" and w["runs_per_kernel"] == 2, w
win = w["windows"]
assert len(win) == 3, win
for k in (0, 1):
    assert 0.5 <= win[k]["baseline"]["per_unit"] <= 1.05, win[k]
assert win[2]["baseline"]["per_unit"] < 0.05, win[2]
print("transfers per add: %s" % ", ".join("%.4f" % x["baseline"]["per_unit"] for x in win))
PY
echo "PASS"
