#!/usr/bin/env bash
# A regression injected on purpose (sched_yield() made 50 us slower) is
# reported as a regression with exit status 3 under --fail-on regression,
# and the JUnit test case fails. The unmodified pair is checked by 60-run-ab.
. "$(dirname "$0")/../lib/common.sh"
need_kernel_source
CONF=$TMP/regression.conf
sed 's/^kernels = baseline patched/kernels = baseline slow/' tests/fixtures/labs/ab-small.conf > "$CONF"
# The copy lives in $TMP: make its relative paths absolute again.
sed -i "s#\.\./\.\./\.\./#$ROOT/#; s#\.\./series/#$ROOT/tests/fixtures/series/#" "$CONF"

"$LAB" run --ab -c "$CONF" --fail-on regression --junit "$TMP/junit.xml" > "$TMP/out" 2> "$TMP/err"
rc=$?
tail -8 "$TMP/err"
cat "$TMP/out"
[ $rc -eq 3 ] || fail "expected exit status 3 (regression found), got $rc"
grep -q "<failure type=\"regression\"" "$TMP/junit.xml" || fail "JUnit does not fail the metric"
d=$(readlink -f "$ROOT/reports/tests/latest")
python3 - "$d" <<'PY' || fail "no regression verdict"
import json, os, sys
rep = json.load(open(os.path.join(sys.argv[1], "report.json")))
v = {r["metric"]: r.get("verdict") for r in rep["results"] if "verdict" in r}
assert v.get("cs_per_sec_per_cpu_1cpu") == "regression", v
PY
"$LAB" report "$d/report.json" --text > /dev/null || fail "report regeneration failed"
# --fail-on none turns the same finding into exit status 0.
"$LAB" run --resume "$(basename "$d")" -c "$CONF" --fail-on none > /dev/null 2>&1 || fail "--fail-on none still failed"
echo ok
