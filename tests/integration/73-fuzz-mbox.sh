#!/usr/bin/env bash
# Fuzz the mbox splitter (lab/kernel/mbox.c: From_ lines, mboxrd quoting, CRLF,
# NUL bytes, RFC 2047 subjects) with libFuzzer + ASan/UBSan for a bounded
# time, the way 71-fuzz-report.sh fuzzes the report reader. Seeds are the
# series under tests/fixtures/series and kernels/patches, plus CRLF and
# mboxrd variants. FUZZ_SECONDS (default 10) bounds the run.
# run-all: paired
# run-all: quick
. "$(dirname "$0")/../lib/fuzz.sh"

out=build/fuzz-mbox
mkdir -p "$out/corpus" || fail "cannot create $out"
bin=$out/fuzz_mbox
# escape.c makes JSON strings (json_string_lossy) and the thread's author
# goes through mail_addr.c and xjson.c: jansson links in.
# shellcheck disable=SC2046
fuzz_objects "$out/obj" -std=c11 -D_GNU_SOURCE -O1 -g $(scripts/lab-includes) \
	$(pkg-config --cflags jansson) -fsanitize=fuzzer-no-link,address,undefined \
	-fno-sanitize-recover=undefined \
	-- tests/fuzz/fuzz_mbox.c lab/kernel/mbox.c lab/kernel/mail_decode.c lab/lib/escape.c lab/lib/utf8.c \
	lab/lib/strbuf.c lab/lib/util.c common/parse_num.c lab/lib/fsutil.c lab/lib/mail_addr.c \
	lab/lib/xjson.c 2>"$out/build.log" &&
clang -fsanitize=fuzzer,address,undefined -o "$bin" "${FUZZ_OBJS[@]}" \
	$(pkg-config --libs jansson) 2>>"$out/build.log" ||
	{ cat "$out/build.log" >&2; fail "cannot build the fuzz target"; }

# Seeds: every series we ship, each also as CRLF and with a quoted body line.
for f in tests/fixtures/series/* kernels/patches/*/*.mbox; do
	[ -f "$f" ] || continue
	b=$(basename "$f")
	cp "$f" "$out/corpus/seed-$b"
	sed 's/$/\r/' "$f" >"$out/corpus/seed-crlf-$b"
	sed '0,/^$/s//\n>From the numbers below, 12:30 09:00 2001\n>>From x/' "$f" \
		>"$out/corpus/seed-mboxrd-$b"
done
printf 'From x Mon Sep 17 00:00:00 2001\nSubject: =?UTF-8?q?=5BPATCH_0/1=5D_a?=\n =?utf-8?b?IGI=?=\n\nx\n' \
	>"$out/corpus/seed-rfc2047"

secs=${FUZZ_SECONDS:-10}
echo "fuzzing mbox_split_buffer for ${secs}s"
"$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
	-artifact_prefix="$out/" -print_final_stats=1 "$out/corpus" >"$out/fuzz.log" 2>&1
rc=$?
tail -n 12 "$out/fuzz.log"
[ $rc -eq 0 ] || fail "the fuzzer found a crash (see $out/fuzz.log and $out/crash-*)"
exit 0
