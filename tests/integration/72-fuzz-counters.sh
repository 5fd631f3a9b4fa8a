#!/usr/bin/env bash
# Fuzz the counters of a run (lab/counters/counters.c: the guest's snapshot lines,
# paired into before/after deltas) with libFuzzer + ASan/UBSan for a
# bounded time, as 71-fuzz-report.sh does for the report reader. Seeds are
# JSON lines built from the checked-in counter fixtures.
# FUZZ_SECONDS (default 10) bounds the run.
# run-all: paired
# run-all: quick
. "$(dirname "$0")/../lib/fuzz.sh"

out=build/fuzz
mkdir -p "$out/corpus-counters" || fail "cannot create $out"
bin=$out/fuzz_counters
# The counters and their parsers, with what they use (counters_flat.c: the
# document's get-or-create of a phase, counters_doc_member()); no libvirt.
srcs="lab/counters/counters.c lab/counters/counters_flat.c lab/counters/counters_line.c lab/counters/counters_hist.c common/lru_gen_parse.c lab/counters/counters_vmstat.c
      common/wis_parse.c lab/lib/escape.c lab/lib/utf8.c lab/lib/strbuf.c lab/lib/util.c common/parse_num.c"
# shellcheck disable=SC2046,SC2086
fuzz_objects "$out/obj-counters" -std=c11 -D_GNU_SOURCE '-DMGLRULAB_VERSION="fuzz"' -O1 -g \
	$(scripts/lab-includes) -fsanitize=fuzzer-no-link,address,undefined \
	-fno-sanitize-recover=undefined $(pkg-config --cflags jansson) \
	-- tests/fuzz/fuzz_counters.c $srcs 2>"$out/build-counters.log" &&
clang -fsanitize=fuzzer,address,undefined -o "$bin" "${FUZZ_OBJS[@]}" \
	$(pkg-config --libs jansson) -lm 2>>"$out/build-counters.log" ||
	{ cat "$out/build-counters.log" >&2; fail "cannot build the fuzz target"; }

# Seeds: real snapshots paired and unpaired, under a few labels, and a
# run of tiny lines (the shape that made pairing quadratic).
python3 - "$out/corpus-counters" <<'PY' || fail "cannot write seeds"
import json, os, sys
d = sys.argv[1]
fx = "tests/fixtures/counters/"
def snap(phase, label, source, name, tp=None):
    r = {"type": "snapshot", "phase": phase, "label": label, "source": source,
         "text": open(fx + name, errors="replace").read()[:2000]}
    if tp:
        r["tracepoint"] = tp
    return json.dumps(r)
lines = []
for label in ("main", "1cpu"):
    for phase, suffix in (("before", "before"), ("after", "after")):
        lines.append(snap(phase, label, "/proc/vmstat", "vmstat." + suffix))
        lines.append(snap(phase, label, "/sys/kernel/debug/lru_gen_full", "lru_gen_full." + suffix))
    lines.append(snap("before", label, "/sys/devices/system/node/node0/vmstat", "node0_vmstat.txt"))
lines.append(json.dumps({"type": "info", "tracepoint": "vmscan:x", "absent": True, "reason": "r"}))
lines.append(json.dumps({"type": "info", "name": "counter_overhead", "before_ms": 1, "after_ms": 2,
                         "total_ms": 3}))
open(os.path.join(d, "seed-real"), "w").write("\n".join(lines) + "\n")
tiny = ['{"type":"snapshot","phase":"%s","label":"l%d","source":"/proc/vmstat","text":""}'
        % ("after" if i % 3 else "before", i % 7) for i in range(300)]
open(os.path.join(d, "seed-tiny"), "w").write("\n".join(tiny) + "\n")
PY

secs=${FUZZ_SECONDS:-10}
echo "fuzzing counters for ${secs}s"
"$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
	-artifact_prefix="$out/counters-" \
	-print_final_stats=1 "$out/corpus-counters" >"$out/fuzz-counters.log" 2>&1
rc=$?
tail -n 12 "$out/fuzz-counters.log"
[ $rc -eq 0 ] || fail "the fuzzer found a crash (see $out/fuzz-counters.log and $out/counters-crash-*)"
exit 0
