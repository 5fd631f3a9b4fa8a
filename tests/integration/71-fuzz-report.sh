#!/usr/bin/env bash
# Fuzz the report reader (and, for inputs it accepts, the analysis and the
# renderers) with libFuzzer + ASan/UBSan for a bounded time. Seeds are the
# checked-in fixtures, cut down so that mutations reach deep fields quickly.
# FUZZ_SECONDS (default 30) bounds the run.
# run-all: paired
# run-all: cost 45
# run-all: quick
. "$(dirname "$0")/../lib/fuzz.sh"

out=build/fuzz
mkdir -p "$out/corpus" || fail "cannot create $out"
bin=$out/fuzz_report_load
# The reader, the analysis and the renderers with everything they use; no libvirt.
# Every file of lab/report/, so a new one (a decoder) is in without a word here.
srcs="lab/report/*.c lab/lib/escape.c lab/stats/stats_*.c lab/stats/rng.c common/sort_cmp.c
      lab/lib/utf8.c lab/lib/strbuf.c lab/lib/util.c common/parse_num.c lab/lib/fsutil.c lab/lib/xjson.c
      lab/lib/mail_addr.c lab/lib/strmap.c
      lab/workload/workload_defs.c lab/workload/mechanism.c
      common/workload_params.c"
# shellcheck disable=SC2046,SC2086
fuzz_objects "$out/obj-report" -std=c11 -D_GNU_SOURCE '-DMGLRULAB_VERSION="fuzz"' -O1 -g \
	$(scripts/lab-includes) -fsanitize=fuzzer-no-link,address,undefined \
	-fno-sanitize-recover=undefined $(pkg-config --cflags jansson) \
	-- tests/fuzz/fuzz_report_load.c $srcs 2>"$out/build.log" &&
clang -fsanitize=fuzzer,address,undefined -o "$bin" "${FUZZ_OBJS[@]}" \
	$(pkg-config --libs jansson) -lm 2>>"$out/build.log" ||
	{ cat "$out/build.log" >&2; fail "cannot build the fuzz target"; }

# Seeds: a small valid session (few runs keeps each execution fast) and the
# fixtures themselves.
python3 - "$out/corpus" <<'PY' || fail "cannot write seeds"
import json, sys, os, glob
d = sys.argv[1]
for f in glob.glob("tests/fixtures/reports/*.json"):
    s = json.load(open(f))
    s["runs"] = [r for r in s["runs"] if r["workload"] in ("yp_shared", "wis_ctx1")][:14]
    s["statistics"]["resamples"] = 200
    s["statistics"]["counter_resamples"] = 200
    json.dump(s, open(os.path.join(d, "seed-" + os.path.basename(f)), "w"))
    # The host-state adjustment reads cells and references (report_hoststate.c).
    for i, r in enumerate(s["runs"]):
        if r["workload"] == "yp_shared":
            r.setdefault("series", {})["cs_per_sec_per_cpu_1cpu_cells"] = [1e5 + 7 * i, 1.6e5, 9e4, 1.5e5, 1e5]
            r["series"]["ref_1cpu_cells"] = [3e6, 4.4e6, 2.9e6, 4.5e6, 0]
    json.dump(s, open(os.path.join(d, "seed-cells-" + os.path.basename(f)), "w"))
PY

# Inputs that once failed, run first (a leak of report_layout.c, 2026-12-05).
cp tests/fuzz/regress-report/* "$out/corpus/" || fail "cannot copy the regression inputs"

secs=${FUZZ_SECONDS:-30}
echo "fuzzing report_load for ${secs}s"
"$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
	-artifact_prefix="$out/" \
	-print_final_stats=1 "$out/corpus" >"$out/fuzz.log" 2>&1
rc=$?
tail -n 12 "$out/fuzz.log"
[ $rc -eq 0 ] || fail "the fuzzer found a crash (see $out/fuzz.log and $out/crash-*)"
exit 0
