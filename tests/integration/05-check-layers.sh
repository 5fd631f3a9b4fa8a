#!/usr/bin/env bash
# scripts/check-layers accepts this tree, and refuses a tree in which a
# lower stage includes a higher one, guest code includes a host header, or
# two folders hold a header of the same name.
# run-all: quick
set -u
cd "$(dirname "$0")/../.."
fail() { echo "FAIL: $*" >&2; exit 1; }

scripts/check-layers >/dev/null 2>&1 || fail "the tree itself breaks its layers: $(scripts/check-layers 2>&1)"

t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
mkdir -p "$t"/lab/lib "$t"/lab/report "$t"/lab/stats "$t"/common "$t"/workloads/lib
echo '#include "strbuf.h"' > "$t"/lab/report/render.c
echo '' > "$t"/lab/lib/strbuf.h
echo '' > "$t"/lab/report/report.h
echo '#include "strbuf.h"' > "$t"/lab/stats/mean.c
out=$(scripts/check-layers "$t" 2>&1) || fail "a clean fixture was refused: $out"

# A pure stage including a higher one.
echo '#include "report.h"' >> "$t"/lab/stats/mean.c
out=$(scripts/check-layers "$t" 2>&1) && fail "stats including report passed"
grep -q 'lab/stats/mean.c:2: includes report.h from lab/report/' <<<"$out" ||
	fail "no file:line for stats -> report: $out"
sed -i '2d' "$t"/lab/stats/mean.c

# Guest-side code including a host header.
echo '#include "strbuf.h"' > "$t"/workloads/w.c
out=$(scripts/check-layers "$t" 2>&1) && fail "a workload including lab/lib passed"
grep -q 'workloads/w.c:1: includes strbuf.h from lab/lib/' <<<"$out" || fail "workload: $out"
rm "$t"/workloads/w.c

# A folder's private header, from a stage that may use that folder.
mkdir -p "$t"/lab/history
echo '' > "$t"/lab/report/report_priv.h
echo '#include "report_priv.h"' > "$t"/lab/report/model.c
out=$(scripts/check-layers "$t" 2>&1) || fail "report including its own private header was refused: $out"
echo '#include "report_priv.h"' > "$t"/lab/history/h.c
out=$(scripts/check-layers "$t" 2>&1) && fail "history including report_priv.h passed"
grep -q 'lab/history/h.c:1: includes report_priv.h, private to lab/report/' <<<"$out" ||
	fail "private header: $out"
rm "$t"/lab/history/h.c "$t"/lab/report/model.c

# One name in two folders.
echo '' > "$t"/common/strbuf.h
out=$(scripts/check-layers "$t" 2>&1) && fail "a header name in two folders passed"
grep -q 'strbuf.h is in both' <<<"$out" || fail "duplicate name: $out"
echo "check-layers: the tree passes; stats->report, workload->lab, another folder's private header and a duplicate name are refused"
