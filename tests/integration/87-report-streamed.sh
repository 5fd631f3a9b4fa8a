#!/usr/bin/env bash
# report's outputs stream to their files (issue 27): on a session of 1500
# workloads, --html FILE and --json -o FILE take no more memory than
# --benchfmt, whose output is small (before, the 30 MB page was built whole
# and the peak grew by about its size), and give the bytes they give on
# standard output. A write that fails halfway (the file size limit, as a
# full disk) exits 2 naming the file, and leaves the old file as it was and
# no temporary; standard output on a full device exits 2 too. No guest, no
# kernel.
# run-all: paired
# run-all: quick
set -u
cd "$(dirname "$0")/../.."

fail() { echo "FAIL: $*" >&2; exit 1; }

[ -x ./mglrulab ] || make -s mglrulab >/dev/null || fail "cannot build mglrulab"
out=build/test-report-streamed
rm -rf "$out" && mkdir -p "$out/dir" || fail "cannot create $out"

# bench/input-bench's shape: 3 runs of each kernel, 2 metrics each.
python3 - "$out/in.json" 1500 <<'PY' || fail "cannot write the session"
import json, sys
path, n = sys.argv[1], int(sys.argv[2])
head = {"schema": "mglrulab-report/1", "generator": {"name": "mglrulab", "version": "0"},
        "host": {"accel": "kvm"}, "design": {"baseline": "base", "patched": "patched"},
        "statistics": {"resamples": 100, "counter_resamples": 100},
        "kernels": [{"name": "base"}, {"name": "patched"}]}
runs, seq = [], 0
for w in range(n):
    for r in range(6):
        runs.append({"seq": seq, "kernel": "patched" if r % 2 else "base",
                     "workload": "w%05d" % w, "block": seq // 4, "status": "ok",
                     "metrics": {"ops_per_s": 1000 + (seq * 7919) % 97 + r / 10,
                                 "elapsed_s": 2 + seq % 3 + (w % 10) / 10}})
        seq += 1
head["runs"] = runs
json.dump(head, open(path, "w"))
PY

# Peak RSS in KB of `mglrulab ARGS...` (getrusage of the child).
peak() {
	python3 -c 'import resource, subprocess, sys
r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss if r.returncode == 0 else -1)' \
		./mglrulab report "$out/in.json" "$@"
}
base=$(peak --benchfmt -o "$out/b.bench")
html=$(peak --html "$out/r.html")
json=$(peak --json -o "$out/r.json")
[ "$base" -gt 0 ] && [ "$html" -gt 0 ] && [ "$json" -gt 0 ] || fail "report failed"
for f in html json; do
	size=$(( $(stat -c %s "$out/r.$f") / 1024 ))
	rss=${!f}
	echo "$f: $size KB output, peak $rss KB (--benchfmt: $base KB)"
	[ "$size" -gt 10000 ] || fail "$f: only $size KB, too small to show anything"
	# Held whole, the output adds its size (or twice) to the peak.
	[ $((rss - base)) -lt $((size / 4)) ] ||
		fail "$f: peak $rss KB against $base KB: the $size KB output is held whole"
done
./mglrulab report "$out/in.json" --html - >"$out/stdout.html" || fail "--html - failed"
cmp -s "$out/r.html" "$out/stdout.html" || fail "--html FILE differs from --html -"
./mglrulab report "$out/in.json" --json >"$out/stdout.json" || fail "--json failed"
cmp -s "$out/r.json" "$out/stdout.json" || fail "--json -o FILE differs from --json"

# A write that fails after 4 MB: exit 2, the message names the file, the
# old file stays whole and no temporary is left. XFSZ ignored: write()
# fails with EFBIG instead of the signal killing the process.
echo old >"$out/dir/r.html"
(trap '' XFSZ; ulimit -f 4096; exec ./mglrulab report "$out/in.json" --html "$out/dir/r.html") \
	2>"$out/fsize.err"
rc=$?
[ "$rc" = 2 ] || fail "exit $rc on a failed write, not 2: $(cat "$out/fsize.err")"
grep -q "cannot write $out/dir/r.html: File too large" "$out/fsize.err" ||
	fail "no message naming the file: $(cat "$out/fsize.err")"
[ "$(cat "$out/dir/r.html")" = old ] || fail "the old file was changed"
[ "$(ls "$out/dir")" = r.html ] || fail "left behind: $(ls "$out/dir")"
(trap '' XFSZ; ulimit -f 4096; exec ./mglrulab report "$out/in.json" --json -o "$out/dir/new.json") \
	2>"$out/fsize2.err"
rc=$?
[ "$rc" = 2 ] || fail "--json -o: exit $rc on a failed write, not 2"
[ "$(ls "$out/dir")" = r.html ] || fail "--json -o left behind: $(ls "$out/dir")"

if [ -w /dev/full ]; then
	./mglrulab report "$out/in.json" --json >/dev/full 2>"$out/full.err"
	rc=$?
	[ "$rc" = 2 ] || fail "exit $rc on a full standard output, not 2"
	grep -q "cannot write standard output: No space left on device" "$out/full.err" ||
		fail "no message for a full standard output: $(cat "$out/full.err")"
fi
echo "PASS: report outputs stream to their files"
