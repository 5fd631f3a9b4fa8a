#!/usr/bin/env bash
# An injected regression of about 5 % (sched_yield() with a fixed spin of
# 50 iterations, 100 instructions on a switch of about 1970,
# tests/fixtures/series/sched-yield-delay-small.patch: kernel slow5) found
# by `run --ab --until decided`: exit status 3 under --fail-on regression,
# the JUnit case failing, the session stopped by a decided look, across a
# kill -9 and --resume. That session is then the confirm step of `bisect
# baseline slow5 --confirmed SESSION` ([run] attribute = changed), which
# resumes it for the attribution runs (2 per kernel, 5 to confirm), adding
# no run: the culprit's table names sched_yield, about +100 instructions
# per yield, in report.json, .txt and .html, again from report.json alone;
# the results are the same bytes without it. One session serves both
# (issue 46). Bad inputs of --until, --max-runs, --budget and --confirmed
# first (no guest). The A/A of these settings is test 89's. The guest is
# tiny-icount: its clock counts instructions, so the host's load cannot
# hide the change or fake one (with the host's clock, a noisy hour left
# the 5 % undecided at 20 runs per kernel). The cap stays 20.
# why this long: one session, about 23 fresh boots in tiny-icount, 7-15
# s each beside the other paired test (about 10 s with the TCG plugin): 6
# runs per kernel for the first look (killed after 4 and resumed: a run in
# flight at the kill runs again), then 5 attribution runs per kernel in
# the bisection. Before issue 46, 62 had an A/A session and 89 this A/B
# again: 132 s and 218 s in CI (ci17); as a pair on a loaded dev machine
# 290 s and 378 s before, 206 s and 201 s after (2026-12-07); in CI
# (ci20, a machine 15 % slower than ci17's) 152 s and 139 s.
# run-all: paired
# run-all: cost 210
# run-all: timeout 1500
. "$(dirname "$0")/../lib/common.sh"
need_kernel_source
CONF=$TMP/regression.conf
sed 's/^kernels = baseline patched/kernels = baseline slow5/; s/^threshold = 5%/threshold = 2%/; s/^guest = tiny$/guest = tiny-icount/' \
	tests/fixtures/labs/ab-small.conf > "$CONF"
# The copy lives in $TMP: make its relative paths absolute again.
sed -i "s#\.\./\.\./\.\./#$ROOT/#; s#\.\./series/#$ROOT/tests/fixtures/series/#" "$CONF"
grep -q '^threshold = 2%' "$CONF" || fail "the test lab has no 2% band"
grep -q '^guest = tiny-icount$' "$CONF" || fail "the test lab does not run in tiny-icount"
grep -q '^attribute' "$CONF" && fail "the run's lab asks for attribution: the bisection's must"
private_lab "$CONF"
[ -f "$ROOT/build/plugin/mglrulab-attr.so" ] || fail "no build/plugin/mglrulab-attr.so (make plugin)"
# the bisection's lab: [run] attribute = changed (the run's asks for none)
sed 's/^\[run\]$/[run]\nattribute = changed/' "$CONF" >"$TMP/bisect.conf"
grep -q '^attribute = changed$' "$TMP/bisect.conf" || fail "no attribute line in the bisection's lab"

bad() {	# bad WANT_IN_MESSAGE ARGS...: exit status 1 and a message naming the option
	local want=$1
	shift
	"$LAB" run --ab -c "$CONF" "$@" > /dev/null 2> "$TMP/bad.err"
	local rc=$?
	[ $rc -eq 1 ] || fail "run $* exited $rc, expected 1"
	grep -qF -- "$want" "$TMP/bad.err" || fail "run $*: message lacks '$want': $(cat "$TMP/bad.err")"
}
bad "--until: expected 'decided'" --until soon
bad "--max-runs: expected at least 6" --until decided --max-runs 4
bad "--budget 30s cannot fit the first look" --until decided --budget 30s
bad "--budget: expected a duration" --until decided --budget 5x
bad "--max-runs and --budget need --until decided" --max-runs 10

MAXRUNS=20
old=$(readlink -f "$REPORTS/latest" 2>/dev/null)
"$LAB" run --ab -c "$CONF" --until decided --max-runs $MAXRUNS --fail-on regression \
	> "$TMP/out0" 2> "$TMP/err0" &
pid=$!
# Kill it without warning after four runs, before its first look.
wait_new_runs "$old" 4 900
kill -9 $pid
wait $pid 2>/dev/null
d=$(readlink -f "$REPORTS/latest")
[ "$d" != "$old" ] || fail "the sequential session did not start"
"$LAB" run --resume "$(basename "$d")" -c "$CONF" --fail-on regression \
	--junit "$TMP/junit.xml" > "$TMP/out" 2> "$TMP/err"
rc=$?
grep -E '^look|cs_per_sec' "$TMP/err" | tail -8
cat "$TMP/out"
[ $rc -eq 3 ] || fail "expected exit status 3 (regression found), got $rc"
# the run asked for no attribution: the bisection adds it, after the resume
grep -q '^attribution' "$TMP/err0" "$TMP/err" && fail "attribution runs in the run: $(grep '^attribution' "$TMP/err0" "$TMP/err")"
[ -d "$d/attribution" ] && fail "attribution runs in the run: $(ls "$d/attribution")"
grep -q "<failure type=\"regression\"" "$TMP/junit.xml" || fail "JUnit does not fail the metric"
python3 - "$d" "$MAXRUNS" <<'PY' || fail "no sequential regression verdict"
import json, os, sys
d, cap = sys.argv[1], int(sys.argv[2])
rep = json.load(open(os.path.join(d, "report.json")))
res = {r["metric"]: r for r in rep["results"]}
p = res["cs_per_sec_per_cpu_1cpu_hostadj"]
assert p["primary"] and p["family"] == "primary", p
assert p["verdict"] == "regression", (p["verdict"], p["reason"])
assert p["sequential"]["look"] >= 1, p["sequential"]
state = json.load(open(os.path.join(d, "sequential.json")))
w = state["workloads"]["yield"]
assert w["stopped"] and w["why"] == "decided", w
runs = [r for r in rep["runs"] if not r.get("warmup")]
seqs = [r["seq"] for r in runs]
assert len(seqs) == len(set(seqs)), "a run was done twice"
per = {}
for r in runs:
    per[r["kernel"]] = per.get(r["kernel"], 0) + 1
# Stopped at a look: both kernels have that look's runs, no more.
assert per["baseline"] == per["slow5"] == w["runs_per_kernel"] <= cap, (per, w)
assert rep["sequential"]["looks"], "no look recorded in the report"
print(f'regression {p["comparison"]["delta_pct"]:+.1f} % decided at look {w["look"]}, '
      f'{w["runs_per_kernel"]} runs per kernel (cap {cap})')
PY
"$LAB" report "$d/report.json" --text > /dev/null || fail "report regeneration failed"

# bisect --confirmed: bad inputs name the session and what was expected;
# none leaves a bisection folder (checked before it is made)
bad_bisect() {	# bad_bisect WANT_IN_MESSAGE STATUS ARGS...
	local want=$1 status=$2
	shift 2
	# bounded: a check that lets one through starts building prefixes
	timeout 120 "$LAB" bisect -c "$TMP/bisect.conf" "$@" > /dev/null 2> "$TMP/bad.err"
	local rc=$?
	[ $rc -eq "$status" ] || fail "bisect $* exited $rc, expected $status: $(cat "$TMP/bad.err")"
	grep -qF -- "$want" "$TMP/bad.err" || fail "bisect $*: message lacks '$want': $(cat "$TMP/bad.err")"
}
bad_bisect "$d/report.json: expected a session of baseline against patched (design.baseline, design.patched), found 'baseline' against 'slow5'" \
	1 baseline patched --confirmed "$d"
cp -r "$d" "$TMP/elsewhere"
bad_bisect "the session $TMP/elsewhere is not in the reports folder $REPORTS" 1 baseline slow5 \
	--confirmed "$TMP/elsewhere"
bad_bisect "bisect --confirmed: $REPORTS/nosuch: No such file or directory" 1 baseline slow5 \
	--confirmed nosuch
cp -r "$d" "$REPORTS/broken"
python3 - "$REPORTS/broken/report.json" <<'PY'
import json, sys
rep = json.load(open(sys.argv[1]))
for r in rep["results"]:
    if r.get("primary"):
        r["verdict"] = "invalid"
json.dump(rep, open(sys.argv[1], "w"))
PY
bad_bisect "the session $REPORTS/broken: its metric cs_per_sec_per_cpu_1cpu_hostadj is invalid" 2 \
	baseline slow5 --confirmed broken
rm -rf "$REPORTS/broken"
bad_bisect "are fixed when a bisection starts" 1 --resume --confirmed "$d"
ls -d "$REPORTS"/*-bisect "$REPORTS/latest-bisect" 2>/dev/null && fail "a refused --confirmed left a bisection"

# The bisection adopts the session as its confirm step ([run] attribute =
# changed). slow5 is one patch, so the confirm step is its culprit's own:
# measured without attribution, the session is resumed for the attribution
# runs, adding no run. It is then read as `run --ab --attribute=changed`
# would have left it.
before=$(sha256sum "$d"/runs/*.json)
"$LAB" bisect baseline slow5 --confirmed "$d" -c "$TMP/bisect.conf" >"$TMP/bisect.out" 2>"$TMP/bisect.err" ||
	{ rc=$?; tail -20 "$TMP/bisect.err" >&2; fail "bisect exited $rc"; }
cat "$TMP/bisect.err"
grep -q "step 1 (confirm): the session $d$" "$TMP/bisect.err" || fail "the session was not adopted"
grep -q '^bisect: step 1: its session again, for the attribution runs' "$TMP/bisect.err" ||
	fail "the adopted session was not resumed for its attribution"
[ "$before" = "$(sha256sum "$d"/runs/*.json)" ] || fail "the bisection added or changed runs of the session"
B=$(readlink -f "$REPORTS/latest-bisect")
python3 - "$B" <<'PY' || fail "the bisection's culprit has no attribution table"
import glob, json, os, sys
st = json.load(open(os.path.join(sys.argv[1], "bisect.json")))
res = st["result"]
assert st["settings"]["attribute"] == "changed", st["settings"]
assert res["outcome"] == "found" and res["culprit"] == 1, res
steps = st["steps"]
assert [s["purpose"] for s in steps] == ["confirm"], steps
rep = json.load(open(os.path.join(steps[0]["session"], "report.json")))
runs = glob.glob(os.path.join(steps[0]["session"], "runs", "*.json"))
assert len(runs) == rep["summary"]["runs"], ("the attribution added runs", len(runs), rep["summary"])
t = res["attribution"]["workloads"][0]["windows"][0]
# The first kernel row: "[user space]" holds the workload's reference loop
# on the other vCPU, which moves with the emulator's state from boot to
# boot (docs/attribution.md: "Compare kernel rows"; +168 with a spread of
# 157 once in CI, 2026-12-06, ahead of sched_yield's +101).
top = [f for f in t["functions"] if f["function"] != "[user space]"][0]
print(f"bisect: culprit patch 1, {top['function']} {top['delta']:+.1f} per yield, "
      f"threshold {t['threshold']:.1f}, {len(runs)} runs")
assert "sched_yield" in top["function"] and 95 <= top["delta"] <= 105, top
print(steps[0]["session"])
PY
grep -A1 "^where its instructions moved" "$TMP/bisect.out" | grep -q "yield, phase 1: __x64_sys_sched_yield +10[0-9]" ||
	fail "the summary does not name sched_yield: $(cat "$TMP/bisect.out")"
grep -q "<li>yield, phase 1: __x64_sys_sched_yield" "$B/bisect.html" || fail "bisect.html does not name it"
S=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["steps"][0]["session"])' "$B/bisect.json")
[ -f "$S/report.json" ] || fail "no confirm step session at $S"
[ "$(readlink -f "$S")" = "$d" ] || fail "the confirm step is $S, not the session $d"

grep -q '^attribution: yield on baseline, run 1 of 2' "$TMP/bisect.err" || fail "no attribution progress: $(tail "$TMP/bisect.err")"
grep -q '^attribution: yield on slow5, run 5 of 5 (confirming)' "$TMP/bisect.err" ||
	fail "the first look named sched_yield, yet no confirming runs: $(grep '^attribution' "$TMP/bisect.err")"
nplan=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["summary"]["runs"])' "$S/report.json")
[ "$(ls "$S/runs" | wc -l)" -eq "$nplan" ] || fail "runs/ holds more than the session's $nplan runs: $(ls "$S/runs")"
for k in baseline-1 patched-1 baseline-2 patched-2 baseline-5 patched-5; do
	[ -f "$S/attribution/yield/$k/attr.1" ] || fail "no attribution/yield/$k/attr.1"
	grep -q -- "-plugin" "$S/attribution/yield/$k/domain.xml" || fail "$k: no plugin in its domain"
done

python3 - "$S" <<'PY' || fail "the attribution section is wrong"
import json, sys
s = sys.argv[1]
r = json.load(open(f"{s}/report.json"))
a = r["attribution"]
assert a["which"] == "changed" and a["runs_per_kernel"] == 2 and "unavailable" not in a, a
assert a["confirm_runs_per_kernel"] == 5, a
w = a["workloads"][0]
assert w["runs_per_kernel"] == 5, w
assert w["workload"] == "yield" and len(w["windows"]) == 1, w
t = w["windows"][0]
top = [f for f in t["functions"] if f["function"] != "[user space]"][0]	# the first kernel row, as above
print(f"slow5: {t['base_per_unit']:.1f} -> {t['patched_per_unit']:.1f} instructions per yield; "
      f"first {top['function']} {top['delta']:+.1f} (spread {top['spread']:.1f}), noise {t['noise']:.1f}, "
      f"{t['beyond_noise']} kernel function(s) beyond it; runs {w['seconds']['baseline']:.0f} s + "
      f"{w['seconds']['patched']:.0f} s")
assert "sched_yield" in top["function"], [f["function"] for f in t["functions"][:5]]
assert 95 <= top["delta"] <= 105, top
assert top["delta"] > t["threshold"], (top, t["threshold"])
assert t["beyond_noise"] >= 1
assert len(t["base_units"]) == 5 and len(t["patched_units"]) == 5 and min(t["base_units"] + t["patched_units"]) > 1000, t
prim = w["primaries"]
assert prim and prim[0]["metric"], prim
assert t["threshold"] == 1.5 * t["noise"], t
# the table predicts the primary (a rate: base/patched - 1), beside what was measured
acc = t["accounts"]
print(f"accounts: {acc['metric']} predicted {acc['predicted_pct']:+.1f} %, measured {acc['measured_pct']:+.1f} %")
assert acc["metric"] == prim[0]["metric"], acc
assert abs(acc["predicted_pct"] - 100 * (t["base_per_unit"] / t["patched_per_unit"] - 1)) < 1e-9, acc
assert acc["predicted_pct"] < 0 and acc["measured_pct"] < 0, acc
k = 100 * (t["base_kernel_per_unit"] / t["patched_kernel_per_unit"] - 1)
assert abs(acc["predicted_kernel_pct"] - k) < 1e-9 and acc["predicted_kernel_pct"] < 0, acc
PY

grep -q '^Attribution (instructions per unit, 2 runs per kernel;' "$S/report.txt" || fail "no attribution in report.txt"
grep -q '^  (5 runs per kernel where the first look names a function' "$S/report.txt" ||
	fail "report.txt does not say how many runs confirm"
# (wrapped where the line ends: read it as one line)
flat=$(tr '\n' ' ' <"$S/report.txt" | tr -s ' ')
grep -qF 'attribution runs: 5 per kernel to confirm what 2 named;' <<<"$flat" ||
	fail "report.txt does not say the table was confirmed"
grep -Eq '^ +[0-9.]+ +[0-9.]+ +\+(9[5-9]|10[0-5])\.[0-9] .*sched_yield' "$S/report.txt" ||
	fail "report.txt has no sched_yield row: $(grep -A8 '^Attribution' "$S/report.txt")"
grep -q 'What this cannot see: instructions only' "$S/report.txt" || fail "report.txt does not say what it cannot see"
grep -q '<section id="attribution">' "$S/report.html" || fail "no attribution in report.html"
grep -q 'sched_yield</code>' "$S/report.html" || fail "report.html has no sched_yield row"
sed -n '/^Attribution/,/^$/p' "$S/report.txt"

# from report.json alone, the same section
"$LAB" report "$S/report.json" --text -o "$TMP/again.txt" || fail "report --text"
diff <(sed -n '/^Attribution/,/^$/p' "$S/report.txt") <(sed -n '/^Attribution/,/^$/p' "$TMP/again.txt") ||
	fail "report.json alone renders another attribution section"

# the analysis does not see the attribution: same results without it
python3 - "$S/report.json" "$TMP/plain.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
del r["attribution"]
json.dump(r, open(sys.argv[2], "w"))
PY
"$LAB" report "$S/report.json" --json -o "$TMP/with.json" || fail "report --json with"
"$LAB" report "$TMP/plain.json" --json -o "$TMP/without.json" || fail "report --json without"
python3 - "$TMP/with.json" "$TMP/without.json" <<'PY' || fail "the attribution changed the analysis"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
for k in ("results", "counter_results", "summary", "runs"):
    assert json.dumps(a[k], sort_keys=True) == json.dumps(b[k], sort_keys=True), k
PY

echo "regression found across a kill, attributed to sched_yield, bisected from its session"
exit 0
