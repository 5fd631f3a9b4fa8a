#!/usr/bin/env bash
# benchstat (golang.org/x/perf/cmd/benchstat) reads `report --benchfmt` and
# shows the same changes as the report: for the session-ab fixture, every
# improvement and regression of the report is a significant change of the
# same sign in benchstat, and benchstat's medians are the report's, in the
# Go units (ms as sec/op, ...). Both ways of feeding it are checked: one
# file with -col /kernel, and the baseline's and the patched kernel's runs
# as two files. No guest, no kernel. Skips (77) without benchstat: Debian
# 12's archive has no golang-golang-x-perf-cmd, so BENCHSTAT=PATH can name
# one built from golang.org/x/perf (docs/reports.md says how).
# run-all: paired
# run-all: quick
set -u
cd "$(dirname "$0")/../.."

fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "SKIP: $*" >&2; exit 77; }

bs=${BENCHSTAT:-$(command -v benchstat || true)}
[ -n "$bs" ] && [ -x "$bs" ] || skip "no benchstat on PATH and no BENCHSTAT=PATH (docs/reports.md)"
[ -x ./mglrulab ] || make -s mglrulab >/dev/null || fail "cannot build mglrulab"
fixture=tests/fixtures/reports/session-ab.json
out=build/test-report-benchstat
rm -rf "$out" && mkdir -p "$out" || fail "cannot create $out"

./mglrulab report "$fixture" --benchfmt -o "$out/all.bench" || fail "report --benchfmt failed"
./mglrulab report "$fixture" --json -o "$out/report.json" || fail "report --json failed"
"$bs" -format csv -col /kernel "$out/all.bench" >"$out/col.csv" 2>"$out/col.err" ||
	fail "benchstat -col /kernel failed: $(head -3 "$out/col.err")"
[ -s "$out/col.err" ] && fail "benchstat complained: $(head -3 "$out/col.err")"
# Two files: the configuration lines and one kernel's runs each.
grep -v '^Benchmark.*/kernel=patched ' "$out/all.bench" >"$out/base.bench"
grep -v '^Benchmark.*/kernel=base ' "$out/all.bench" >"$out/patched.bench"
"$bs" -format csv -ignore /kernel "$out/base.bench" "$out/patched.bench" >"$out/two.csv" \
	2>"$out/two.err" || fail "benchstat on two files failed: $(head -3 "$out/two.err")"

python3 - "$out/report.json" "$out/col.csv" "$out/two.csv" <<'PY' || fail "benchstat disagrees with the report"
import csv, json, re, sys

report = json.load(open(sys.argv[1]))
# The report's unit -> factor to the Go unit benchfmt writes (report_benchfmt.c).
scale = {"s": 1, "ms": 1e-3, "us": 1e-6, "ns": 1e-9, "KiB": 1024, "MiB": 1 << 20}

def bench_name(workload):
    w = re.sub(r"[^A-Za-z0-9_.+,:-]", "_", workload)
    return w[:1].upper() + w[1:]

def tables(path):
    """{(benchmark, metric): (base median, patched median, delta)} of benchstat's CSV."""
    rows = list(csv.reader(open(path)))
    out, unit = {}, None
    for row in rows:
        if len(row) >= 2 and row[0] == "" and row[1] and "-" in row[1] and row[1] != "CI":
            unit = row[1]
        elif len(row) >= 6 and row[0] and row[0] != "geomean" and unit:
            metric = unit.rsplit("-", 1)[0]
            out[(row[0], metric)] = (float(row[1]), float(row[3]), row[5])
    return out

col, two = tables(sys.argv[2]), tables(sys.argv[3])
assert col, "no table read from benchstat's output"
assert col == two, "one file with -col /kernel and two files differ"
checked = changes = 0
for r in report["results"]:
    # the metric as the unit's word (report_benchfmt.c: unit_part())
    key = (bench_name(r["workload"]), re.sub(r"[^A-Za-z0-9_.+,:%]", "_", r["metric"]))
    assert key in col, f"{key} missing from benchstat's tables"
    base, patched, delta = col[key]
    f = scale.get(r.get("unit"), 1)
    for got, want in ((base, r["baseline"]["median"]), (patched, r["patched"]["median"])):
        assert abs(got - want * f) <= 1e-9 * abs(want * f), f"{key}: median {got} != {want * f}"
    checked += 1
    verdict = r.get("verdict")
    if verdict not in ("improvement", "regression"):
        continue
    assert delta != "~", f"{key}: the report says {verdict}, benchstat sees no change"
    up = delta.startswith("+")
    better_up = r.get("better") == "higher"
    assert up == (better_up == (verdict == "improvement")), \
        f"{key}: the report says {verdict} ({r.get('better')} is better), benchstat {delta}"
    changes += 1
assert changes >= 3, f"only {changes} improvement(s)/regression(s) compared"
print(f"benchstat agrees: {checked} medians, {changes} changes")
PY
echo "PASS: benchstat reads --benchfmt and shows the report's changes"
