#!/usr/bin/env bash
# The guest runner's own limits, run on the host (no kernel, no guest):
# whatever a workload prints, every line the runner sends is a well-formed
# protocol record (v, seq without gaps, type), and what goes over a limit
# comes back as an "error" record that names the limit.
#  - a line within the 1 MiB contract that grows past GUEST_RECORD_MAX
#    (4 MiB) when re-serialised (209000 times 1e-9);
#  - a line that is not JSON, cut in the middle of a UTF-8 sequence;
#  - more records than GUEST_WORKLOAD_RECORDS_MAX;
#  - more bytes than GUEST_WORKLOAD_BYTES_MAX.
# Paired (run-all): the runner on the host in the test's own folder, no
# guest, nothing timed.
# run-all: quick
# run-all: paired
. "$(dirname "$0")/../lib/common.sh"
[ -x build/guest/mglrulab-runner ] || make -s workloads >/dev/null || fail "cannot build the guest programs"
RUNNER=build/guest/mglrulab-runner
limit() { sed -n "s/^#define $1[[:space:]]*(\?\([0-9 *L]*\))\?.*/\1/p" common/guest_protocol.h | tr -d 'L' | bc; }
RECORD_MAX=$(limit GUEST_RECORD_MAX)
RECORDS_MAX=$(limit GUEST_WORKLOAD_RECORDS_MAX)
BYTES_MAX=$(limit GUEST_WORKLOAD_BYTES_MAX)
[ -n "$RECORD_MAX" ] && [ -n "$RECORDS_MAX" ] && [ -n "$BYTES_MAX" ] || fail "limits not found in common/guest_protocol.h"

mkdir -p "$TMP/wl"
cat >"$TMP/wl/floats" <<'EOF'
#!/usr/bin/env python3
import sys
sys.stdout.write('{"type":"info","v":[' + ','.join(['1e-9'] * 209000) + ']}\n')
sys.stdout.write('{"type":"metric","name":"after","value":1}\n')
EOF
cat >"$TMP/wl/badutf8" <<'EOF'
#!/usr/bin/env python3
import sys
# not JSON; the runner quotes its first 80 bytes, which end inside a 3-byte sequence
sys.stdout.buffer.write(b'x' * 79 + '\u20ac'.encode() + b' tail\n')
EOF
cat >"$TMP/wl/manyrecs" <<'EOF'
#!/bin/sh
yes '{"type":"snapshot","source":"/proc/vmstat","text":"nr_free_pages 1"}' | head -n "$(( ${1#--n=} ))"
EOF
cat >"$TMP/wl/manybytes" <<'EOF'
#!/usr/bin/env python3
import sys
line = '{"type":"snapshot","source":"x","text":"' + 'y' * 1000000 + '"}\n'
for _ in range(int(sys.argv[1].split('=')[1])):
    sys.stdout.write(line)
EOF
chmod +x "$TMP"/wl/*

# run NAME [ARG]: the runner on the host, records into $TMP/NAME.jsonl
run() {
	local args='[]'
	[ $# -gt 1 ] && args="[\"$2\"]"
	printf '{"v":1,"run_id":"t","workload":"%s","args":%s,"timeout_s":120}\n' "$1" "$args" >"$TMP/job.json"
	timeout 300 "$RUNNER" --job "$TMP/job.json" --out "$TMP/$1.jsonl" --workload-dir "$TMP/wl" \
		2>"$TMP/$1.err" || fail "the runner failed on $1: $(tail -3 "$TMP/$1.err")"
}

# check FILE PYTHON-EXPR: every line a record with v, seq 0.. without gaps and type;
# then EXPR (over recs, the records) must hold
check() {
	python3 - "$@" <<'EOF' || fail "$1: $2"
import json, sys
recs = []
for i, line in enumerate(open(sys.argv[1], 'rb')):
    r = json.loads(line)
    assert r.get('v') == 1 and r.get('seq') == i and isinstance(r.get('type'), str), \
        'line %d is not a well-formed record: %.200s' % (i + 1, line)
    recs.append(r)
assert recs[-1]['type'] == 'done' and recs[-1]['records'] == len(recs) - 1, 'no done record'
errs = [r.get('message', '') for r in recs if r['type'] == 'error']
work = [r for r in recs if r['type'] == 'workload']
ok = eval(sys.argv[2])
if not ok:
    print('errors:', [e[:300] for e in errs], 'workload records:', len(work), file=sys.stderr)
sys.exit(0 if ok else 1)
EOF
}

run floats
check "$TMP/floats.jsonl" "any('GUEST_RECORD_MAX ($RECORD_MAX bytes)' in e for e in errs) and \
	[w['record'].get('name') for w in work] == ['after']"

run badutf8
check "$TMP/badutf8.jsonl" "any('not a JSON object' in e for e in errs)"

run manyrecs --n=$((RECORDS_MAX + 5000))
check "$TMP/manyrecs.jsonl" "len(work) == $RECORDS_MAX and \
	any('GUEST_WORKLOAD_RECORDS_MAX ($RECORDS_MAX records)' in e for e in errs)"

run manybytes --n=$((BYTES_MAX / 1000000 + 20))
check "$TMP/manybytes.jsonl" "sum(len(json.dumps(w, separators=(',', ':'))) for w in work) <= $BYTES_MAX and \
	len(work) >= $BYTES_MAX // 1000100 - 1 and any('GUEST_WORKLOAD_BYTES_MAX ($BYTES_MAX bytes)' in e for e in errs)"
size=$(stat -c %s "$TMP/manybytes.jsonl")
[ "$size" -lt $((BYTES_MAX + 1048576)) ] || fail "the runner sent $size bytes, over GUEST_WORKLOAD_BYTES_MAX ($BYTES_MAX) and then some"
exit 0
