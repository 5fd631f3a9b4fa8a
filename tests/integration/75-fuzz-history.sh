#!/usr/bin/env bash
# Fuzz history's digest cache and state (tests/fuzz/fuzz_history.c) with
# libFuzzer + ASan/UBSan for a bounded time: lines sealed with the right key
# (so the checks after the MAC are what is fuzzed: a digest, a state line,
# then the series, change points and renderers) and raw bytes for the
# seal's reader. Seeds: the cache and state history writes for a small
# synthetic history. FUZZ_SECONDS (default 30) bounds the run.
# run-all: paired
# run-all: cost 50
# run-all: quick
. "$(dirname "$0")/../lib/fuzz.sh"

out=build/fuzz
mkdir -p "$out/history-corpus" || fail "cannot create $out"
bin=$out/fuzz_history
# history with everything it uses; no libvirt. The statistics (the exact
# Mann-Whitney distribution of each change point's size) are built
# without coverage: they took nine tenths of each run, and their input is
# fuzzed by tests 71; sanitizers stay on everywhere.
srcs="lab/history/*.c lab/report/*.c common/sort_cmp.c
      lab/lib/escape.c lab/lib/utf8.c lab/lib/strbuf.c lab/lib/strmap.c lab/lib/util.c lab/lib/sha256.c
      lab/lib/mail_addr.c
      common/parse_num.c lab/lib/fsutil.c lab/lib/xjson.c lab/workload/workload_defs.c lab/workload/mechanism.c
      common/workload_params.c"
# shellcheck disable=SC2206,SC2207
cflags=(-std=c11 -D_GNU_SOURCE '-DMGLRULAB_VERSION="fuzz"' -O1 -g $(scripts/lab-includes)
	$(pkg-config --cflags jansson libcrypto))
fuzz_objects "$out/obj-history-stats" "${cflags[@]}" -fsanitize=address,undefined \
	-fno-sanitize-recover=undefined -- lab/stats/stats_*.c lab/stats/rng.c 2>"$out/history-build.log" ||
	{ cat "$out/history-build.log" >&2; fail "cannot build the statistics"; }
stats_objs=("${FUZZ_OBJS[@]}")
# shellcheck disable=SC2086
fuzz_objects "$out/obj-history" "${cflags[@]}" -fsanitize=fuzzer-no-link,address,undefined \
	-fno-sanitize-recover=undefined -- tests/fuzz/fuzz_history.c $srcs 2>>"$out/history-build.log" &&
clang -fsanitize=fuzzer,address,undefined -o "$bin" "${FUZZ_OBJS[@]}" "${stats_objs[@]}" \
	$(pkg-config --libs jansson libcrypto) -lm 2>>"$out/history-build.log" ||
	{ cat "$out/history-build.log" >&2; fail "cannot build the fuzz target"; }

reports=$out/history-reports
rm -rf "$reports" "$out/history-seed"
mkdir -p "$out/history-seed" || fail "cannot create $out/history-seed"
python3 tests/fixtures/gen-reports.py history "$reports" --seed 5 --nights 40 --runs 2 \
	--metrics 1 >/dev/null || fail "generator failed"
[ -x ./mglrulab ] || fail "./mglrulab is not built"
XDG_STATE_HOME="$out/history-seed/key" ./mglrulab -q history "$reports" --no-state \
	--cache "$out/history-seed/cache" --json -o /dev/null || fail "history failed"
XDG_STATE_HOME="$out/history-seed/key" ./mglrulab -q history "$reports" --no-cache \
	--state "$out/history-seed/state" --json -o /dev/null || fail "history failed"
python3 - "$out/history-seed" "$out/history-corpus" <<'PY' || fail "cannot write seeds"
import json, os, sys
seed, corpus = sys.argv[1], sys.argv[2]
body = lambda p: [l.split(" ", 1)[1] for l in open(p).read().split("\n")[2:] if l]
digests = [json.dumps(json.loads(l)["digest"], separators=(",", ":"))
           for l in body(seed + "/cache")]
state = body(seed + "/state")
for i in range(4):
    open(os.path.join(corpus, "seed-%d" % i), "w").write(
        "\n".join([state[0]] + digests[i * 3:i * 3 + 3]) + "\n")
open(os.path.join(corpus, "seed-raw"), "w").write("!" + open(seed + "/cache").read()[:4000])
# found by this fuzzer on 2026-12-06: a state line that is a number, not an
# object ("202"), made the sealed writer die with "out of memory"
open(os.path.join(corpus, "seed-number-state"), "w").write("202\nUmask:T01:30:00Z")
PY

secs=${FUZZ_SECONDS:-30}
echo "fuzzing history's cache and state for ${secs}s"
FUZZ_HISTORY_DIR="$reports" "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
	-max_len=65536 -artifact_prefix="$out/history-" -print_final_stats=1 "$out/history-corpus" \
	>"$out/history-fuzz.log" 2>&1
rc=$?
tail -n 12 "$out/history-fuzz.log"
[ $rc -eq 0 ] || fail "the fuzzer found a crash (see $out/history-fuzz.log and $out/history-crash-*)"
exit 0
