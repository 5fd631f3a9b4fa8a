#!/usr/bin/env bash
# mglrulab bisect on tests/fixtures/series/yield-three.mbox: patch 2 makes
# sched_yield() 10 us slower (about three times a yield_pingpong switch
# under TCG), patches 1 and 3 are neutral (a comment, a renamed local), all
# three in kernel/sched/syscalls.c so each prefix rebuilds one object. The
# bisection must name patch 2 with its Message-Id, its own effect a
# regression, across a kill -9 and --resume. On yield-neutral.mbox (the
# neutral patches alone) it must stop after the confirm step. The bad-input
# checks come first (no guest needed).
#
# Cost: a step that differs stops at its first look (6 runs per kernel); one
# that does not runs to --max-runs 8 (a single look at 6 was inconclusive
# once under heavy host load). A probe's first session places its prefix
# against the middle of the series' change at its first look, so the
# three-patch bisection is 4 sessions (confirm, two probes of one, the
# culprit's own effect); before the midpoint rule 6, about 70 runs;
# the neutral one 12 (--max-runs 6). At --max-runs 10 the test took 523 s
# of a clean-clone CI run; 8 keeps CI inside its time. Prefix builds are
# about 20-30 s each the first time, cache hits after.
#
# The guest is tiny, on the host's clock, so run-all does not pair this
# test. On tiny-icount every step stopped at its first look (72 runs), but
# an icount run costs more: 708 s beside the fuzzers against 391 s alone.
# A bisection runs one guest of one vCPU at a time and left the second CPU
# idle (51 % busy, 175 s of a CI run on 2026-12-06: 140 s the three-patch
# bisection, 35 s the neutral one after it). The neutral bisection now runs
# beside the three-patch one, in a state and reports folder of its own: two
# guests, a CPU each, nothing else running (run-all's serial phase), and
# neither session builds a kernel once the cache is warm.
. "$(dirname "$0")/../lib/common.sh"
need_kernel_source
# A copy with state and reports of its own (private_lab): REPORTS/latest-bisect
# is this test's bisection, whatever else runs on the machine.
CONF=$TMP/bisect.conf
cp tests/fixtures/labs/bisect.conf "$CONF"
# The copy lives in $TMP: make its relative paths absolute again.
sed -i "s#\.\./\.\./\.\./#$ROOT/#; s#\.\./series/#$ROOT/tests/fixtures/series/#" "$CONF"
private_lab "$CONF"

bad() {	# bad WANT_IN_MESSAGE ARGS...: exit status 1 and the message
	local want=$1
	shift
	"$LAB" "$@" -c "$CONF" > /dev/null 2> "$TMP/bad.err"
	local rc=$?
	[ $rc -eq 1 ] || fail "$* exited $rc, expected 1"
	grep -qF -- "$want" "$TMP/bad.err" || fail "$*: message lacks '$want': $(cat "$TMP/bad.err")"
}
bad "no [kernel nope]" bisect baseline nope
bad "[kernel baseline] has no series" bisect three baseline
bad "expected two kernel names" bisect baseline
bad "no [kernel nope]" run --ab baseline nope
bad "--ab takes two kernel names" run --ab baseline
bad "the series of [kernel three] has 3 patches, not 4" kernel build three@4
bad "expected NAME@K" kernel build three@x
bad "are fixed when a bisection starts" bisect --resume --per-patch
bad "are fixed when a bisection starts" bisect --resume --attribute
bad "--attribute: expected changed, all or off, got 'often'" bisect --attribute=often
bad "cannot fit a step's first look" bisect --budget 30s

# The neutral series' bisection, beside the three-patch one (its checks at
# the end): a lab.conf copy with state and reports of its own.
NCONF=$TMP/neutral.conf
mkdir -p "$TMP/lab-n" "$TMP/reports-n" || fail "cannot create the neutral bisection's folders"
sed -e "s#^state_dir = .*#state_dir = $TMP/lab-n#" -e "s#^reports_dir = .*#reports_dir = $TMP/reports-n#" \
	"$CONF" > "$NCONF"
grep -qx "state_dir = $TMP/lab-n" "$NCONF" && grep -qx "reports_dir = $TMP/reports-n" "$NCONF" ||
	fail "no state_dir or reports_dir line to move in $NCONF"
cp -al "$TMP/lab/images" "$TMP/lab-n/images" 2>/dev/null
[ -f "$TMP/lab/kvm-probe.json" ] && cp "$TMP/lab/kvm-probe.json" "$TMP/lab-n/"
# No patch moves anything: not confirmed, one step, exit 0. One look at 6
# runs per kernel (CI's time): the whole of alpha is spent there.
tn=$(date +%s)
"$LAB" bisect baseline neutral -c "$NCONF" --max-runs 6 > "$TMP/nout" 2> "$TMP/nerr" &
npid=$!
trap 'kill $npid 2>/dev/null; wait $npid 2>/dev/null; pkill -9 -f -- "$TMP/lab"
	[ -n "${KEEP_TMP:-}" ] || rm -rf "$TMP"' EXIT

t0=$(date +%s)
old=$(readlink -f "$REPORTS/latest-bisect" 2>/dev/null)
# --attribute: kept across the resume; on this host-clock guest the culprit's
# step says why it has no table (tests/integration/62 has the tables).
"$LAB" bisect -c "$CONF" --max-runs 8 --attribute > "$TMP/out0" 2> "$TMP/err0" &
pid=$!
# Kill it without warning in the middle of the first probe's session.
for _ in $(seq 1200); do
	d=$(readlink -f "$REPORTS/latest-bisect" 2>/dev/null)
	n=0
	[ -n "$d" ] && [ "$d" != "$old" ] && n=$(ls "$d"/steps/02-*/*/runs/*.json 2>/dev/null | wc -l)
	[ "$n" -ge 3 ] && break
	kill -0 $pid 2>/dev/null || { tail -5 "$TMP/err0"; fail "the bisection ended before the kill"; }
	sleep 0.5
done
kill -9 $pid 2>/dev/null
wait $pid 2>/dev/null
d=$(readlink -f "$REPORTS/latest-bisect")
[ "$d" != "$old" ] || { tail "$TMP/err0"; fail "the bisection did not start"; }
"$LAB" bisect --resume "$(basename "$d")" -c "$CONF" > "$TMP/out" 2> "$TMP/err"
rc=$?
grep '^bisect:' "$TMP/err"
cat "$TMP/out"
[ $rc -eq 0 ] || { tail -20 "$TMP/err"; fail "bisect --resume exited $rc"; }
grep -q "resuming: " "$TMP/err" || fail "the interrupted step's session was not resumed"
python3 - "$d" <<'PY' || fail "the bisection did not name patch 2"
import json, os, sys, glob
d = sys.argv[1]
st = json.load(open(os.path.join(d, "bisect.json")))
res = st["result"]
assert st["complete"] and res["outcome"] == "found", res
assert res["culprit"] == 2, res
assert res["patch"]["message_id"].startswith("<1bc31cd0533a"), res["patch"]
assert "10us delay" in res["patch"]["subject"], res["patch"]
own = {r["metric"]: r for r in res["own_effect"]}
assert own["cs_per_sec_per_cpu_1cpu_hostadj"]["verdict"] == "regression", own
assert own["cs_per_sec_per_cpu_1cpu_hostadj"]["primary"], own
steps = st["steps"]
assert all(s["state"] == "done" for s in steps), steps
pairs = [(s["a"], s["b"]) for s in steps]
assert len(pairs) == len(set(pairs)), "a step was measured twice"
assert pairs[0] == ("baseline", "three"), pairs
# Each step's session: the planned runs, none twice.
for s in steps:
    runs = [json.load(open(p)) for p in glob.glob(os.path.join(s["session"], "runs", "*.json"))]
    seqs = [r["seq"] for r in runs]
    assert len(seqs) == len(set(seqs)), (s["dir"], "a run was done twice")
assert {p["prefix"]: p["class"] for p in st["probes"]} == {1: "at-baseline", 2: "at-series-end"}, st["probes"]
# The midpoint rule: patch 2 moves the primary by about -70 %, so the first
# session of each probe places its prefix and no probe needs a second one.
purposes = [s["purpose"] for s in steps]
assert "probe-end" not in purposes, purposes
assert purposes.count("probe-base") == 2, purposes
# Each stopped placed (or decided at the same look: the verdict goes first).
for s in steps:
    if s["purpose"] == "probe-base":
        seq = json.load(open(os.path.join(s["session"], "sequential.json")))
        assert all(w["why"] in ("placed", "decided")
                   for w in seq["workloads"].values()), seq["workloads"]
assert st["prefixes"]["1"]["builds"] and st["prefixes"]["2"]["builds"], st["prefixes"]
# --attribute, kept by the resume: the culprit's own step only, and why no table here
assert st["settings"]["attribute"] == "changed", st["settings"]
assert "under icount" in res["attribution"]["unavailable"], res.get("attribution")
for s in steps:
    r = json.load(open(os.path.join(s["session"], "report.json")))
    assert ("attribution" in r) == (s["purpose"] == "own-effect"), (s["purpose"], r.get("attribution"))
nruns = sum(len(glob.glob(os.path.join(s["session"], "runs", "*.json"))) for s in steps)
print(f"culprit patch 2, own effect {own['cs_per_sec_per_cpu_1cpu_hostadj']['delta_pct']:+.1f} %, "
      f"{len(steps)} steps, {nruns} runs")
PY
grep -q "^culprit: patch 2/3: " "$TMP/out" || fail "the summary does not name patch 2"
grep -q "Message-Id: <1bc31cd0533a" "$TMP/out" || fail "the summary lacks the Message-Id"
grep -A1 "^where its instructions moved" "$TMP/out" | grep -q "not done: attribution counts the guest's" ||
	fail "the summary does not say why the culprit has no attribution: $(cat "$TMP/out")"
grep -q "<h3>Where its instructions moved</h3>" "$d/bisect.html" || fail "bisect.html has no attribution"
cmp -s "$TMP/out" "$d/bisect.txt" || fail "bisect.txt is not what was printed"

# A complete bisection's summary is read back from bisect.json: with an
# empty kernel cache (its prefixes gone) it builds nothing and prints the
# same summary. It built both prefixes again before.
sed -e "s|^cache_dir = .*|cache_dir = $TMP/empty-cache|" "$CONF" > "$TMP/empty-cache.conf"
grep -qx "cache_dir = $TMP/empty-cache" "$TMP/empty-cache.conf" || fail "no cache_dir line to empty"
"$LAB" bisect --resume "$d" -c "$TMP/empty-cache.conf" > "$TMP/cout" 2> "$TMP/cerr" ||
	{ tail "$TMP/cerr"; fail "printing a complete bisection's summary failed"; }
grep -q "is complete; printing its summary" "$TMP/cerr" || fail "the complete bisection was not said to be"
grep -Eq "compile|built in" "$TMP/cerr" && { grep -E "compile|built" "$TMP/cerr" | head -3; fail "a complete bisection built a kernel"; }
cmp -s "$TMP/cout" "$d/bisect.txt" || fail "the complete bisection's summary changed"
t1=$(date +%s)

# The neutral bisection, started beside the three-patch one.
wait $npid
rc=$?
t2=$(date +%s)
cat "$TMP/nout"
[ $rc -eq 0 ] || { tail "$TMP/nerr"; fail "the neutral bisection exited $rc"; }
grep -q "the whole-series change was not confirmed" "$TMP/nout" || fail "not confirmed not said"
nd=$(readlink -f "$TMP/reports-n/latest-bisect")
python3 - "$nd" <<'PY' || fail "the neutral bisection went on"
import json, os, sys
st = json.load(open(os.path.join(sys.argv[1], "bisect.json")))
assert st["result"]["outcome"] == "not-confirmed", st["result"]
assert len(st["steps"]) == 1 and st["probes"] == [], (st["steps"], st["probes"])
PY
echo "three-patch bisection $((t1 - t0)) s; with the neutral one beside it, both done after $((t2 - tn)) s (upper bounds: busy host)"
echo ok
