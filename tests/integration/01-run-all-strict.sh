#!/usr/bin/env bash
# run-all's strict mode (what .ci/run uses): a skipped test fails the run
# unless expected-skips lists it; without STRICT a skip is only counted.
# run-all: quick
# Paired (run-all): its fake suites keep their times and logs under its own
# folder; their limits are seconds of sleep, which a neighbour's load
# does not move.
# run-all: paired
# run-all: cost 13
set -u
cd "$(dirname "$0")/../.."
fail() { echo "FAIL: $*" >&2; exit 1; }
# What the run-all running this test was given is not for the ones it runs
# (under `make test-quick`, QUICK=1 would select only the quick fakes).
unset QUICK STRICT TIMES_FILE BUDGET_S PAIRED_JOBS TEST_TIMEOUT EXPECTED_SKIPS
TMP=$(mktemp -d /tmp/mglrulab-it.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

mkdir "$TMP/t"
printf 'exit 0\n' > "$TMP/t/10-fake-passes.sh"
printf 'echo "SKIP: no widget here" >&2; exit 77\n' > "$TMP/t/20-fake-skips.sh"
# ONLY=fake: should run-all ever ignore INTEGRATION_DIR, it must not run
# the real suite (this test among it) from here.
run() { ONLY=fake INTEGRATION_DIR="$TMP/t" tests/integration/run-all >"$TMP/out" 2>&1; }

STRICT=0 run || fail "a skip failed a non-strict run: $(cat "$TMP/out")"
grep -q "1 passed, 0 failed, 1 skipped" "$TMP/out" || fail "non-strict counts: $(tail -1 "$TMP/out")"

STRICT=1 run && fail "an unlisted skip passed a strict run: $(cat "$TMP/out")"
grep -q "FAIL $TMP/t/20-fake-skips.sh (skipped, and STRICT=1: not listed" "$TMP/out" ||
	fail "the unexpected skip is not named: $(cat "$TMP/out")"

printf '# comment\n20-fake-skips.sh no widget on this machine\n' > "$TMP/t/expected-skips"
STRICT=1 run || fail "a listed skip failed a strict run: $(cat "$TMP/out")"
grep -q "SKIP $TMP/t/20-fake-skips.sh (.*expected here: no widget on this machine)" "$TMP/out" ||
	fail "the expected skip's reason is not shown: $(cat "$TMP/out")"
grep -q "1 passed, 0 failed, 1 skipped (strict)" "$TMP/out" || fail "strict counts: $(tail -1 "$TMP/out")"

# A listed test that ran is pointed out, not failed.
printf '10-fake-passes.sh used to lack a widget\n' > "$TMP/t/expected-skips"
EXPECTED_SKIPS="$TMP/t/expected-skips" STRICT=1 run && fail "the unlisted skip passed"
grep -q "note: 10-fake-passes.sh is listed" "$TMP/out" || fail "a stale expected skip is not pointed out"

# Paired tests run after the others, two at a time: these two can only pass
# together (each waits for the other's mark), a third is counted as failed,
# and each one's output comes out whole.
rm -f "$TMP/t/expected-skips"
mkdir "$TMP/p"
for n in 30 40; do
	other=$((70 - n))
	cat > "$TMP/p/$n-fake-paired.sh" <<EOF
# run-all: paired
echo "$n: line one"
touch "$TMP/p/mark-$n"
for _ in \$(seq 60); do [ -e "$TMP/p/mark-$other" ] && break; sleep 0.1; done
[ -e "$TMP/p/mark-$other" ] || { echo "$n: the other paired test never ran beside me"; exit 1; }
echo "$n: line two"
EOF
done
printf '# run-all: paired\necho "50: failing"; exit 3\n' > "$TMP/p/50-fake-paired.sh"
printf 'exit 0\n' > "$TMP/p/60-fake-serial.sh"
ONLY=fake INTEGRATION_DIR="$TMP/p" STRICT=1 tests/integration/run-all > "$TMP/out" 2>&1 &&
	fail "a failing paired test passed the run: $(cat "$TMP/out")"
grep -q "integration: 3 passed, 1 failed, 0 skipped (strict)" "$TMP/out" || fail "paired counts: $(cat "$TMP/out")"
grep -q "FAIL $TMP/p/50-fake-paired.sh (rc=3" "$TMP/out" || fail "the failing paired test is not named"
# The serial test ran first; each paired test's lines are together.
[ "$(grep -m1 '^== ' "$TMP/out")" = "== $TMP/p/60-fake-serial.sh" ] || fail "serial tests do not come first: $(cat "$TMP/out")"
for n in 30 40; do
	grep -A3 "^== $TMP/p/$n-fake-paired.sh (paired)" "$TMP/out" | tr '\n' '|' |
		grep -q "$n: line one|$n: line two|-- PASS" || fail "paired output of $n mixed: $(cat "$TMP/out")"
done
rm -f "$TMP"/p/mark-*
PAIRED_JOBS=1 ONLY=fake INTEGRATION_DIR="$TMP/p" tests/integration/run-all > "$TMP/out" 2>&1
grep -q "the other paired test never ran beside me" "$TMP/out" || fail "PAIRED_JOBS=1 ran two at once: $(cat "$TMP/out")"
# Longest first ("# run-all: cost SECONDS"; 10 without one), then by name.
mkdir "$TMP/o"
printf '# run-all: paired\n# run-all: cost 300\nexit 0\n' > "$TMP/o/70-fake-long.sh"
printf '# run-all: paired\n# run-all: cost 40\nexit 0\n' > "$TMP/o/60-fake-mid.sh"
printf '# run-all: paired\nexit 0\n' > "$TMP/o/20-fake-short.sh"
printf '# run-all: paired\nexit 0\n' > "$TMP/o/10-fake-short.sh"
PAIRED_JOBS=1 ONLY=fake INTEGRATION_DIR="$TMP/o" tests/integration/run-all > "$TMP/out" 2>&1 ||
	fail "the ordered paired tests failed: $(cat "$TMP/out")"
order=$(sed -n 's#^== .*/\([0-9]*\)-fake-[a-z]*\.sh (paired)$#\1#p' "$TMP/out" | tr '\n' ' ')
[ "$order" = "70 60 10 20 " ] || fail "paired tests not longest first: '$order'"

# A test past its limit ("# run-all: timeout N", else TEST_TIMEOUT) is
# stopped with what it started, counted as failed and named; the run goes on.
# What it started is gone before the next test starts, even a child that
# ignores TERM (as a daemon does while it shuts down gracefully: a libvirtd
# that outlived test 39 kept test 40's from starting); so is what a test
# that passed left running. A test on tests/lib/common.sh says which
# command it was stopped in, and its EXIT trap (its cleanup) runs.
mkdir "$TMP/h"
for kind in serial paired; do
	n=1; [ $kind = paired ] && n=2
	hdr=; [ $kind = paired ] && hdr='# run-all: paired'
	cat > "$TMP/h/$n-fake-hangs-$kind.sh" <<EOF
$hdr
# run-all: timeout 2
. "$PWD/tests/lib/common.sh"
trap 'touch "$TMP/h/$kind.cleaned"; rm -rf "\$TMP"' EXIT
(trap '' TERM; exec sleep 300) & echo \$! > "$TMP/h/$kind.pid"
sleep 299
EOF
done
cat > "$TMP/h/3-fake-after.sh" <<EOF
pid=\$(cat "$TMP/h/serial.pid")
[ -e /proc/\$pid ] && [ "\$(awk '{print \$3}' /proc/\$pid/stat)" != Z ] && { echo "3: the hung test's child still runs"; exit 1; }
(trap '' TERM; exec sleep 300) & echo \$! > "$TMP/h/leaves.pid"
exit 0
EOF
t0=$(date +%s)
ONLY=fake INTEGRATION_DIR="$TMP/h" tests/integration/run-all > "$TMP/out" 2>&1 && fail "a hung test passed: $(cat "$TMP/out")"
[ $(( $(date +%s) - t0 )) -lt 60 ] || fail "the limits did not stop the hung tests: $(cat "$TMP/out")"
for kind in serial paired; do
	n=1; [ $kind = paired ] && n=2
	grep -q "FAIL $TMP/h/$n-fake-hangs-$kind.sh (timed out: stopped at its limit of 2 s)" "$TMP/out" ||
		fail "the hung $kind test is not named as timed out: $(cat "$TMP/out")"
	grep -q "FAIL: stopped by SIGTERM (past its time limit?) in: sleep 299" "$TMP/out" ||
		fail "the hung $kind test does not say where it was stopped: $(cat "$TMP/out")"
	[ -e "$TMP/h/$kind.cleaned" ] || fail "the hung $kind test's EXIT trap did not run"
	# (a zombie is dead: nothing here may reap an orphan)
	pid=$(cat "$TMP/h/$kind.pid")
	[ -e /proc/$pid ] && [ "$(awk '{print $3}' /proc/$pid/stat 2>/dev/null)" != Z ] &&
		fail "the hung $kind test's child outlived its limit"
done
pid=$(cat "$TMP/h/leaves.pid")
[ -e /proc/$pid ] && [ "$(awk '{print $3}' /proc/$pid/stat 2>/dev/null)" != Z ] &&
	fail "what a passed test left running outlived it"
grep -q "integration: 1 passed, 2 failed, 0 skipped" "$TMP/out" || fail "counts with hung tests: $(cat "$TMP/out")"
# A serial test's output comes as it runs, before its verdict; and every
# failed test's FAIL lines and last lines come again after the table, in
# the run's last lines (a CI page may show no more).
sed -n "/^== $(echo "$TMP" | sed 's#/#\\/#g')\/h\/1-fake-hangs-serial.sh$/,/^-- FAIL/p" "$TMP/out" |
	grep -q "^FAIL: stopped by SIGTERM (past its time limit?) in: sleep 299" ||
	fail "the serial test's output is not before its verdict: $(cat "$TMP/out")"
sed -n '/^== the failed tests. last words/,$p' "$TMP/out" > "$TMP/digest"
for kind in serial paired; do
	n=1; [ $kind = paired ] && n=2
	grep -A3 -x -- "-- $TMP/h/$n-fake-hangs-$kind.sh" "$TMP/digest" |
		grep -q "^   | FAIL: stopped by SIGTERM (past its time limit?) in: sleep 299" ||
		fail "the digest lacks the hung $kind test's words: $(cat "$TMP/out")"
done
grep -q "3-fake-after" "$TMP/digest" && fail "a passed test is in the digest: $(cat "$TMP/digest")"
sed -n '/^test times (/,$p' "$TMP/out" | grep -q "^== the failed tests. last words" ||
	fail "the digest is not after the table: $(cat "$TMP/out")"
TEST_TIMEOUT=x ONLY=fake INTEGRATION_DIR="$TMP/h" tests/integration/run-all > "$TMP/out" 2>&1
[ $? -eq 2 ] && grep -q "TEST_TIMEOUT: expected seconds, got 'x'" "$TMP/out" || fail "a bad TEST_TIMEOUT: $(cat "$TMP/out")"

# QUICK=1 runs only the tests whose header says "# run-all: quick". Every
# run writes each test's time, status and mode to TIMES_FILE afresh, and
# ends with the tests by cost, the wall time against BUDGET_S, and then,
# still last, the counts.
mkdir "$TMP/q"
printf '#!/usr/bin/env bash\n# a fake quick test\n# run-all: quick\ntouch "%s/q/quick.ran"\nexit 0\n' "$TMP" > "$TMP/q/10-fake-quick.sh"
printf '# a fake slow test\ntouch "%s/q/slow.ran"\nsleep 2\nexit 0\n' "$TMP" > "$TMP/q/20-fake-slow.sh"
printf '# run-all: paired\n# run-all: quick\necho "SKIP: none here" >&2; exit 77\n' > "$TMP/q/30-fake-quick-paired.sh"
times=$TMP/times/t.tsv
mkdir "$TMP/times"; printf 'stale\t1\tPASS\tserial\n' > "$times"
QUICK=1 TIMES_FILE=$times ONLY=fake INTEGRATION_DIR="$TMP/q" tests/integration/run-all > "$TMP/out" 2>&1 ||
	fail "the quick run failed: $(cat "$TMP/out")"
[ -e "$TMP/q/quick.ran" ] || fail "QUICK=1 did not run the quick test: $(cat "$TMP/out")"
[ -e "$TMP/q/slow.ran" ] && fail "QUICK=1 ran a test without '# run-all: quick': $(cat "$TMP/out")"
[ "$(tail -n 1 "$TMP/out")" = "integration: 1 passed, 0 failed, 1 skipped" ] ||
	fail "the quick run's last line is not the counts: $(cat "$TMP/out")"
grep -q stale "$times" && fail "the times file was not written afresh: $(cat "$times")"
[ "$(grep -vc '^#' "$times")" -eq 3 ] || fail "a quick run's times file has other than a header and 2 tests: $(cat "$times")"
grep -qP '^30-fake-quick-paired\.sh\t[0-9]+\tSKIP\tpaired\t-$' "$times" || fail "no paired skip in the times file: $(cat "$times")"
rm -f "$TMP/q/quick.ran"
STRICT=1 BUDGET_S=1 TIMES_FILE=$times ONLY=fake INTEGRATION_DIR="$TMP/q" tests/integration/run-all > "$TMP/out" 2>&1 &&
	fail "an unlisted skip passed a strict run: $(cat "$TMP/out")"
[ -e "$TMP/q/quick.ran" ] && [ -e "$TMP/q/slow.ran" ] || fail "without QUICK not every test ran: $(cat "$TMP/out")"
grep -qP '^10-fake-quick\.sh\t[0-9]+\tPASS\tserial\t[0-9]+$' "$times" || fail "the quick test's time is not recorded: $(cat "$times")"
grep -qP '^20-fake-slow\.sh\t[1-9][0-9]*\tPASS\tserial\t[0-9]+$' "$times" || fail "the slow test's time is not recorded: $(cat "$times")"
grep -qP '^30-fake-quick-paired\.sh\t[0-9]+\tFAIL\tpaired\t-$' "$times" || fail "a strict run's unlisted skip is not FAIL: $(cat "$times")"
grep -qP '^# wall\t[1-9][0-9]*$' "$times" || fail "no wall time in the times file: $(cat "$times")"
# how busy the CPUs were: per serial test (above) and for the paired phase
grep -qP '^# paired-phase\t[0-9]+\t([0-9]+|-)$' "$times" || fail "no paired phase line in the times file: $(cat "$times")"
# The table: most expensive first (20-fake-slow sleeps 2 s), over the 1 s budget.
sed -n '/^test times (/,$p' "$TMP/out" | grep -m1 -Eq ' serial +[0-9]+% +20-fake-slow\.sh$' ||
	fail "the table does not start with the slowest test: $(cat "$TMP/out")"
grep -Eq '^  serial phase: the CPUs [0-9]+ % busy; their idle time adds up to [0-9]+ s' "$TMP/out" ||
	fail "the table does not say how busy the serial phase kept the CPUs: $(cat "$TMP/out")"
grep -q "integration wall time: [0-9]* s (.*) against a budget of 1 s (0:01): OVER by" "$TMP/out" ||
	fail "the wall time is not shown against BUDGET_S: $(cat "$TMP/out")"
[ "$(tail -n 1 "$TMP/out")" = "integration: 2 passed, 1 failed, 0 skipped (strict)" ] ||
	fail "the last line is not the counts: $(cat "$TMP/out")"
# bench/ci-time reads the same table back from the run's output (a CI log).
bench/ci-time "$TMP/out" > "$TMP/ci-time" || fail "bench/ci-time cannot read run-all's output: $(cat "$TMP/ci-time")"
grep -q '^  3 tests, ' "$TMP/ci-time" && grep -Eq ' FAIL   paired +-  30-fake-quick-paired\.sh$' "$TMP/ci-time" ||
	fail "bench/ci-time's table of the log: $(cat "$TMP/ci-time")"
# With INTEGRATION_DIR and no TIMES_FILE, the times stay in that folder.
ONLY=fake INTEGRATION_DIR="$TMP/q" QUICK=1 tests/integration/run-all > "$TMP/out" 2>&1
[ -f "$TMP/q/test-times.tsv" ] || fail "INTEGRATION_DIR's run wrote its times elsewhere: $(cat "$TMP/out")"
BUDGET_S=20m ONLY=fake INTEGRATION_DIR="$TMP/q" tests/integration/run-all > "$TMP/out" 2>&1
[ $? -eq 2 ] && grep -q "BUDGET_S: expected seconds, got '20m'" "$TMP/out" || fail "a bad BUDGET_S: $(cat "$TMP/out")"

# A marker in the leading comment block past line 30 is not read: the run
# refuses to start, naming the test and the line, and runs nothing.
mkdir "$TMP/l"
{ echo '#!/usr/bin/env bash'; for i in $(seq 31); do echo "# header line $i"; done
  echo '# run-all: paired'; echo 'touch "$0.ran"'; } > "$TMP/l/10-fake-late.sh"
ONLY=fake INTEGRATION_DIR="$TMP/l" tests/integration/run-all > "$TMP/out" 2>&1
[ $? -eq 2 ] && grep -q '10-fake-late.sh:33: a "# run-all:" marker past line 30' "$TMP/out" &&
	[ ! -e "$TMP/l/10-fake-late.sh.ran" ] || fail "a marker past line 30: $(cat "$TMP/out")"

# The real list names only tests that exist.
while read -r name _; do
	[ -f "tests/integration/$name" ] || fail "expected-skips names $name, which does not exist"
done < <(grep -v '^[[:space:]]*\(#\|$\)' tests/integration/expected-skips)
exit 0
