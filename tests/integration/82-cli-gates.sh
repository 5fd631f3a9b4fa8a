#!/usr/bin/env bash
# The gates CI reads and the command-line conventions, without a guest
# (issue 29): an invalid verdict whose patched kernel failed every run
# exits 3 with a JUnit <failure>, one where both kernels failed exits 2
# with an <error>, and the JUnit file is the common shape (testsuites,
# testsuite with timestamp, hostname, time and counts equal to its cases')
# for report, compare and history; history with no session exits 1 and
# writes nothing; one output per stdout; "-" is stdout; -v after a
# command; -q with -v refused; run --json with --junit - refused. Each
# of these passed silently before. About 3 s.
# run-all: paired
# run-all: quick
. "$(dirname "$0")/../lib/common.sh"
FX=tests/fixtures/reports

# --- fixtures: the A/B session with kbuild's runs failed in the guest ---
python3 - "$FX/session-ab.json" "$TMP" <<'PY' || fail "cannot make the fixtures"
import json, sys
src, out = sys.argv[1], sys.argv[2]
for name, kernels in (("patched-failed", {"patched"}), ("both-failed", {"base", "patched"})):
    d = json.load(open(src))
    for r in d["runs"]:
        if r["workload"] == "kbuild" and r["kernel"] in kernels:
            r.update(status="failed", failure="kernel panic", metrics={})
    json.dump(d, open(f"{out}/{name}.json", "w"))
PY

# check_junit FILE: the common JUnit shape, counts taken from the cases;
# prints "failures errors skipped" and the failure/error types.
check_junit() {
	python3 - "$1" <<'PY'
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
assert root.tag == "testsuites", root.tag
suites = root.findall("testsuite")
assert suites, "no testsuite"
tot = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
kinds = []
for s in suites:
    for a in ("name", "tests", "failures", "errors", "skipped", "timestamp", "hostname", "time"):
        assert a in s.attrib, "testsuite lacks " + a
    float(s.get("time"))
    cases = s.findall("testcase")
    n = {"tests": len(cases),
         "failures": sum(1 for c in cases if c.find("failure") is not None),
         "errors": sum(1 for c in cases if c.find("error") is not None),
         "skipped": sum(1 for c in cases if c.find("skipped") is not None)}
    for k, v in n.items():
        assert int(s.get(k)) == v, f"{k}={s.get(k)} but {v} cases"
        tot[k] += v
    for c in cases:
        assert c.get("classname") and c.get("name"), "testcase without classname or name"
        for tag in ("failure", "error"):
            e = c.find(tag)
            if e is not None:
                assert e.get("message"), tag + " without a message"
                kinds.append(f"{tag}:{e.get('type')}")
for k, v in tot.items():
    assert int(root.get(k)) == v, f"testsuites {k}"
print(tot["failures"], tot["errors"], tot["skipped"], " ".join(sorted(set(kinds))))
PY
}

# --- report: the patched kernel failed in the guest: 3 and <failure> ---
"$LAB" report "$TMP/patched-failed.json" --text -o /dev/null --fail-on regression \
	--junit "$TMP/pf.xml" 2>"$TMP/pf.err"
rc=$?
[ $rc -eq 3 ] || fail "patched kernel failed: exit $rc, expected 3"
grep -q "the patched kernel failed in the guest" "$TMP/pf.err" || fail "the failing line does not say which kernel failed"
out=$(check_junit "$TMP/pf.xml") || fail "JUnit of report is not the common shape"
case "$out" in *failure:kernel-failed*) ;; *) fail "no <failure type=kernel-failed>: $out" ;; esac
case "$out" in *error:*) fail "a kernel failure is not the lab's: $out" ;; esac
# without --fail-on, report still exits 0 (a renderer), and the JUnit still says it
"$LAB" report "$TMP/patched-failed.json" -o /dev/null --junit "$TMP/pf0.xml" 2>/dev/null ||
	fail "report without --fail-on must exit 0"
cmp -s "$TMP/pf.xml" "$TMP/pf0.xml" || fail "--junit differs without --fail-on (default regression)"

# --- both kernels failed: the lab failed, 2 and <error> ---
"$LAB" report "$TMP/both-failed.json" -o /dev/null --fail-on regression --junit "$TMP/bf.xml" 2>/dev/null
rc=$?
[ $rc -eq 2 ] || fail "both kernels failed: exit $rc, expected 2"
out=$(check_junit "$TMP/bf.xml") || fail "JUnit of the lab failure is not the common shape"
case "$out" in *error:lab-failed*) ;; *) fail "no <error type=lab-failed>: $out" ;; esac
"$LAB" report "$TMP/both-failed.json" -o /dev/null --fail-on none 2>/dev/null || fail "--fail-on none must exit 0"
"$LAB" report "$TMP/both-failed.json" -o /dev/null --fail-on invalid 2>/dev/null
[ $? -eq 2 ] || fail "--fail-on invalid must fail on the lab failure"

# --- compare: the same gate ---
"$LAB" compare "$FX/nightly-a.json" "$FX/nightly-b.json" -o /dev/null --fail-on none \
	--junit "$TMP/cmp.xml" 2>/dev/null || fail "compare --fail-on none --junit failed"
check_junit "$TMP/cmp.xml" >/dev/null || fail "JUnit of compare is not the common shape"

# --- one output per stdout; "-" is stdout ---
"$LAB" report "$FX/session-ab.json" --text --json >"$TMP/both.out" 2>"$TMP/both.err" &&
	fail "report --text --json was accepted"
grep -q -- "--text and --json" "$TMP/both.err" || fail "the refusal does not name the two options"
[ -s "$TMP/both.out" ] && fail "report --text --json wrote to stdout before refusing"
"$LAB" report "$FX/session-ab.json" --html - --json >/dev/null 2>&1 && fail "--html - --json was accepted"
"$LAB" report "$FX/session-ab.json" --text --json -o "$TMP/both.txt" 2>/dev/null ||
	fail "two formats into -o FILE must stay allowed"
mkdir "$TMP/cwd"
( cd "$TMP/cwd" && "$LAB" report "$ROOT/$FX/session-ab.json" --html - ) >"$TMP/stdout.html" ||
	fail "report --html - failed"
[ -e "$TMP/cwd/-" ] && fail "--html - created a file named -"
grep -q "<!DOCTYPE html>" "$TMP/stdout.html" || fail "--html - wrote no HTML to stdout"
( cd "$TMP/cwd" && "$LAB" report "$ROOT/$FX/session-ab.json" --junit - ) >"$TMP/stdout.xml" ||
	fail "report --junit - failed"
[ -e "$TMP/cwd/-" ] && fail "--junit - created a file named -"
check_junit "$TMP/stdout.xml" >/dev/null || fail "--junit - is not JUnit alone on stdout"

# --- global options after the command; -q with -v refused ---
"$LAB" report "$FX/session-ab.json" -v -o /dev/null 2>/dev/null || fail "report -v refused"
"$LAB" history "$TMP/cwd" -q 2>&1 | grep -q "unknown option" && fail "history -q refused"
"$LAB" -q -v version >/dev/null 2>"$TMP/qv.err" && fail "-q -v accepted"
grep -q -- "-q and -v" "$TMP/qv.err" || fail "the -q -v refusal does not say why"
"$LAB" -q report "$FX/session-ab.json" -v -o /dev/null 2>/dev/null && fail "-q before and -v after accepted"
# run's refusals come from its options alone: exit 1 and the reason, before
# any lab.conf is read (any other failure would also exit non-zero).
run_refused() {	# run_refused ARGS...
	"$LAB" run "$@" >"$TMP/run.out" 2>"$TMP/run.err"
	local rc=$?
	[ $rc -eq 1 ] || fail "run $* exited $rc, expected 1: $(cat "$TMP/run.err")"
	grep -q "would both write to standard output" "$TMP/run.err" ||
		fail "run $*: the refusal does not say why: $(cat "$TMP/run.err")"
}
run_refused --json --junit -
run_refused --json - --junit -
run_refused --mail - --json

# --- history: no session is an error, and nothing is written ---
mkdir "$TMP/empty" "$TMP/notreports"
cp "$FX/nightly-a.json" "$FX/nightly-b.json" "$TMP/notreports/"
for d in "$TMP/empty" "$TMP/notreports"; do
	"$LAB" history "$d" --fail-on-new >"$TMP/h.out" 2>"$TMP/h.err"
	rc=$?
	[ $rc -eq 1 ] || fail "history on $d: exit $rc, expected 1"
	grep -q "no session" "$TMP/h.err" || fail "history on $d does not say there is no session"
	[ -n "$(ls -A "$d" | grep -v '^nightly-')" ] && fail "history wrote into $d: $(ls -A "$d")"
done
# and with sessions: --fail-on and --junit as report's
mkdir -p "$TMP/nights/a" "$TMP/nights/b"
cp "$FX/nightly-a.json" "$TMP/nights/a/report.json"
cp "$FX/nightly-b.json" "$TMP/nights/b/report.json"
"$LAB" history "$TMP/nights" --no-state --no-cache --fail-on regression --junit "$TMP/h.xml" \
	-o /dev/null 2>/dev/null
rc=$?
[ $rc -eq 0 ] || [ $rc -eq 3 ] || fail "history --fail-on regression: exit $rc"
check_junit "$TMP/h.xml" >/dev/null || fail "JUnit of history is not the common shape"
# sessions all older than --since are an answer ("0 sessions"), not an error
"$LAB" history "$TMP/nights" --no-state --no-cache --since 2099-01-01 -o /dev/null 2>/dev/null ||
	fail "history --since after every session must exit 0"
"$LAB" history "$TMP/nights" --no-state --no-cache --text --json >/dev/null 2>&1 &&
	fail "history --text --json accepted"
echo "ok: gates and CLI conventions"
