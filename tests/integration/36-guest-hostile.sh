#!/usr/bin/env bash
# A hostile guest cannot reach past its caps on the host. The workload is
# tests/guest/hostile.c, in an image of its own (--bin-dir: it is in no lab
# image):
#  1. it leaves a setuid and a setgid program, world-writable block and
#     character device nodes, links to /etc/shadow and /etc, a FIFO and a
#     name with a newline in /results, then prints 1.6 M counter snapshot
#     records. Under TCG the runner forwards about 2000 records a second
#     here, so its own cap (GUEST_WORKLOAD_RECORDS_MAX, 100000: 52 s) is
#     tested on the host by 35-guest-runner-limits.sh; this test lowers the
#     host's cap on results.jsonl to 1 MiB ($MGLRULAB_TEST_CHANNEL_MAX) and
#     checks the host destroys the guest there and fails the run naming
#     the file and the limit. `guest extract` then brings back only the
#     regular files and folders, 0644/0755, and lists every refusal in
#     extract.json;
#  2. it floods the console (100 MB): with the cap lowered to 512 KiB
#     ($MGLRULAB_TEST_CONSOLE_MAX: the serial console takes about 100 KB/s
#     under TCG; the default, 16 MiB, is in the message and in
#     tests/unit/test_domain_output.c) the host destroys the guest and fails
#     the run naming console.log and the limit, and the file stays within
#     the cap.
# No domain is left running.
# run-all: paired
# run-all: cost 30
. "$(dirname "$0")/../lib/common.sh"
. "$(dirname "$0")/../lib/guest.sh"
need_lab_kernel
make -s test-guest >/dev/null || fail "cannot build tests/guest/hostile.c"
limit() { sed -n "s/^#define $1[[:space:]]*(\?\([0-9 *L]*\))\?.*/\1/p" common/guest_protocol.h | tr -d 'L' | bc; }
RESULT_MAX=$(limit GUEST_RESULT_FILE_MAX)
CONSOLE_DEFAULT=$(limit GUEST_CONSOLE_LOG_MAX)
CONSOLE_CAP=$((512 * 1024))
CHANNEL_CAP=$((1024 * 1024))

# the image: the runner and the hostile workload, nothing else (cached by content)
BIN=$TMP/bin
mkdir -p "$BIN"
cp build/guest/mglrulab-runner build/tests/guest/hostile "$BIN/"

domain_gone() {
	local name
	name=$(sed -n 's/.*<name>\(.*\)<\/name>.*/\1/p' "$1/domain.xml")
	[ -n "$name" ] || fail "no domain name in $1/domain.xml"
	! pgrep -f -- "-name guest=$name," >/dev/null || fail "QEMU of $name still runs"
}

# ---- 1: files and a record flood ----
start=$(date +%s)
MGLRULAB_TEST_CHANNEL_MAX=$CHANNEL_CAP "$LAB" guest run tiny "${KARGS[@]}" --bin-dir "$BIN" \
	--workload hostile --arg files=1 --arg records=1600000 --timeout 300 --keep-disk --json \
	--run-dir "$TMP/run1" >"$TMP/out1.json" 2>"$TMP/err1"
rc=$?
echo "run 1 (files, 1.6 M records): exit $rc, $(( $(date +%s) - start )) s" >&2
[ $rc -eq 2 ] || { tail -5 "$TMP/err1" >&2; fail "run 1 exited $rc, expected 2 (a failed run)"; }
grep -q "results.jsonl grew to [0-9]* bytes, over GUEST_RESULT_FILE_MAX ($CHANNEL_CAP bytes, lowered by \$MGLRULAB_TEST_CHANNEL_MAX from $RESULT_MAX): the guest was destroyed" "$TMP/err1" ||
	{ head -5 "$TMP/err1" >&2; fail "run 1 did not fail with the cap on results.jsonl"; }
[ "$(json_get "$TMP/out1.json" 'd["status"]')" = failed ] || fail "run 1: status is not failed"
[ "$(json_get "$TMP/out1.json" '[r for r in d["records"] if r.get("name") == "hostile_files"][0]["ok"]')" = True ] ||
	fail "run 1: the workload could not make its hostile files"
n=$(json_get "$TMP/out1.json" 'sum(r.get("type") == "snapshot" for r in d["records"])')
size=$(stat -c %s "$TMP/run1/results.jsonl")
[ "$size" -le "$CHANNEL_CAP" ] || fail "results.jsonl is $size bytes, over the cap $CHANNEL_CAP"
echo "run 1: results.jsonl $size bytes, $n snapshot records of 1.6 M" >&2
[ "$n" -gt 1000 ] || fail "run 1: only $n snapshot records arrived: the flood did not happen"
domain_gone "$TMP/run1"

start=$(date +%s)
"$LAB" guest extract "$TMP/run1" >"$TMP/ext.out" 2>"$TMP/ext.err" ||
	{ cat "$TMP/ext.err" >&2; fail "guest extract failed"; }
echo "extract: $(( $(date +%s) - start )) s; $(grep -c refused "$TMP/ext.err") refusal line" >&2
R=$TMP/run1/results
[ "$(cat "$R/ok.json")" = '{"honest":true}' ] || fail "the honest file did not arrive"
[ "$(cat "$R/tmp/inner.txt")" = inner ] || fail "the file in the folder did not arrive"
left=$(find "$R" ! -type f ! -type d)
[ -z "$left" ] || fail "not a regular file or folder on the host: $left"
left=$(find "$R" -perm /7000)
[ -z "$left" ] || fail "setuid/setgid/sticky on the host: $left"
left=$(find "$R" \( -type f ! -perm 0644 \) -o \( -type d ! -perm 0755 \))
[ -z "$left" ] || fail "modes other than 0644/0755 on the host: $left"
left=$(find "$R" ! -user "$(id -u)")
[ -z "$left" ] || fail "not owned by us: $left"
grep -q "refused" "$TMP/ext.err" || fail "guest extract did not say it refused entries"
python3 - "$TMP/run1/extract.json" <<'EOF' || fail "extract.json does not list every refusal"
import json, sys
d = json.load(open(sys.argv[1]))
why = {r['path']: r['reason'] for r in d['refused']}
want = {
    '/results/suid': 'setuid/setgid', '/results/sgid': 'setuid/setgid',
    '/results/sda': 'block device', '/results/mem': 'character device',
    '/results/fifo': 'FIFO', '/results/shadow': 'symbolic link', '/results/etc': 'symbolic link',
    '/results/evil?name': 'control character',
}
bad = [p for p, w in want.items() if w not in why.get(p, '')]
if bad or d['refused_total'] != len(want) or d['files'] != 2 or d['dirs'] != 1:
    print('missing or wrong:', bad, 'record:', json.dumps(d, indent=1), file=sys.stderr)
    sys.exit(1)
EOF

# ---- 2: a console flood ----
start=$(date +%s)
MGLRULAB_TEST_CONSOLE_MAX=$CONSOLE_CAP "$LAB" guest run tiny "${KARGS[@]}" --bin-dir "$BIN" \
	--workload hostile --arg console=100000000 --timeout 300 --run-dir "$TMP/run2" \
	>"$TMP/out2" 2>"$TMP/err2"
rc=$?
echo "run 2 (console flood): exit $rc, $(( $(date +%s) - start )) s" >&2
[ $rc -eq 2 ] || { tail -5 "$TMP/err2" >&2; fail "run 2 exited $rc, expected 2 (a failed run)"; }
grep -q "console.log grew to [0-9]* bytes, over GUEST_CONSOLE_LOG_MAX ($CONSOLE_CAP bytes, lowered by \$MGLRULAB_TEST_CONSOLE_MAX from $CONSOLE_DEFAULT): the guest was destroyed" "$TMP/err2" ||
	{ head -5 "$TMP/err2" >&2; fail "run 2 did not fail with the console cap"; }
size=$(stat -c %s "$TMP/run2/console.log")
[ "$size" -le "$CONSOLE_CAP" ] || fail "console.log is $size bytes, over the cap $CONSOLE_CAP"
tail -c 200 "$TMP/run2/console.log" | grep -q "mglrulab: cut here, at GUEST_CONSOLE_LOG_MAX" ||
	fail "console.log does not say where it was cut"
echo "run 2: console.log $size bytes" >&2
domain_gone "$TMP/run2"
exit 0
