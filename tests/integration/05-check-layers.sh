#!/usr/bin/env bash
# scripts/check-layers accepts this tree, and refuses a tree in which a
# lower stage includes a higher one, guest code includes a host header, a
# folder includes another's private header (*_priv.h), or two folders hold
# a header of the same name.
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

# The statistics' and the session's private headers (once private by
# comment only): refused to stages that may use their folders' API.
mkdir -p "$t"/lab/session "$t"/lab/cmd
echo '' > "$t"/lab/stats/stats_priv.h
echo '' > "$t"/lab/session/session_priv.h
echo '#include "stats_priv.h"' > "$t"/lab/stats/rank.c
echo '#include "session_priv.h"' > "$t"/lab/session/runs.c
out=$(scripts/check-layers "$t" 2>&1) || fail "stats and session including their own private headers were refused: $out"
echo '#include "stats_priv.h"' > "$t"/lab/report/modes.c
out=$(scripts/check-layers "$t" 2>&1) && fail "report including stats_priv.h passed"
grep -q 'lab/report/modes.c:1: includes stats_priv.h, private to lab/stats/' <<<"$out" ||
	fail "stats_priv.h: $out"
rm "$t"/lab/report/modes.c
echo '#include "session_priv.h"' > "$t"/lab/cmd/run.c
out=$(scripts/check-layers "$t" 2>&1) && fail "cmd including session_priv.h passed"
grep -q 'lab/cmd/run.c:1: includes session_priv.h, private to lab/session/' <<<"$out" ||
	fail "session_priv.h: $out"
rm -r "$t"/lab/cmd "$t"/lab/session "$t"/lab/stats/stats_priv.h "$t"/lab/stats/rank.c

# One name in two folders.
echo '' > "$t"/common/strbuf.h
out=$(scripts/check-layers "$t" 2>&1) && fail "a header name in two folders passed"
grep -q 'strbuf.h is in both' <<<"$out" || fail "duplicate name: $out"
echo "check-layers: the tree passes; stats->report, workload->lab, another folder's private header (report_priv.h, stats_priv.h, session_priv.h) and a duplicate name are refused"
