#!/usr/bin/env bash
# The reports folder fills up during a session (ENOSPC): a small tmpfs is
# the session's reports folder, and it is filled while a guest runs (after
# two records). The session must stop with exit status 2 and an error that
# names a file or folder of the session and says "No space left on device";
# no run may be recorded as failed for it (--resume would skip such a run);
# every record on disk parses, and report.json if any. A resume while the
# folder is still full changes nothing and says so again. Once room is
# made, `run --resume` finishes the session: each planned run once, ok.
# run-all: paired
# run-all: cost 25
. "$(dirname "$0")/../lib/common.sh"
need_kernel_source
[ "$(id -u)" = 0 ] || skip "needs root to mount a tmpfs"
CONF=$TMP/lab.conf
MNT=$TMP/mnt
mkdir -p "$MNT"
mount -t tmpfs -o size=64m,mode=0755 mglrulab-enospc "$MNT" 2> "$TMP/mount.err" ||
	skip "cannot mount a tmpfs on $MNT: $(cat "$TMP/mount.err")"
pid=
cleanup() {
	# our session first (SIGTERM: it destroys its guest), then the mount
	if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
		kill -TERM "$pid"
		wait "$pid" 2>/dev/null
	fi
	umount "$MNT" 2>/dev/null || umount -l "$MNT"
	rm -rf "$TMP"
}
trap cleanup EXIT

# ab-small.conf's kernels (cached), a state folder of its own with the
# checkout's guest image, the reports on the tmpfs
sed -e "s|^reports_dir = .*|reports_dir = $MNT/reports|" \
    -e "s|\.\./\.\./\.\./|$ROOT/|g" -e "s|\.\./series/|$ROOT/tests/fixtures/series/|" \
    tests/fixtures/labs/ab-small.conf > "$CONF"
private_state "$CONF"

# check_folder DIR: every record parses and is the run its name says;
# report.json, if there is one, parses; no temporary file is left.
check_folder() {
	python3 - "$1" <<'PY' || fail "the session folder is damaged"
import glob, json, os, re, sys
d = sys.argv[1]
for p in glob.glob(os.path.join(d, "runs", "*")):
    name = os.path.basename(p)
    assert re.fullmatch(r"\d{4}\.json", name), "not a record: " + p
    rec = json.load(open(p))
    assert rec["seq"] == int(name[:4]), p
    assert rec["status"] == "ok", (p, rec["failure"])
if os.path.exists(os.path.join(d, "report.json")):
    json.load(open(os.path.join(d, "report.json")))
json.load(open(os.path.join(d, "session.json")))
left = glob.glob(os.path.join(d, "**", "*.tmp.*"), recursive=True)
assert not left, left
PY
}

"$LAB" run --ab -c "$CONF" --runs 3 --fail-on none > "$TMP/out" 2> "$TMP/err" &
pid=$!
# Two records, then a guest that has said hello: fill the folder under it.
filled=0
for _ in $(seq 1200); do
	kill -0 $pid 2>/dev/null || break
	d=$(readlink -f "$MNT/reports/latest" 2>/dev/null)
	if [ -n "$d" ] && [ "$(ls "$d"/runs/*.json 2>/dev/null | wc -l)" -ge 2 ]; then
		for ch in "$d"/logs/run-*/results.jsonl; do
			rec=$d/runs/$(basename "$(dirname "$ch")" | sed 's/^run-//').json
			if [ ! -e "$rec" ] && grep -qs '"type":"hello"' "$ch"; then
				dd if=/dev/zero of="$MNT/filler" bs=1M 2> "$TMP/dd.err"
				filled=1
				break 2
			fi
		done
	fi
	sleep 0.1
done
[ $filled = 1 ] || { tail -5 "$TMP/err"; fail "no guest ran after two records"; }
grep -q "No space left" "$TMP/dd.err" || fail "the tmpfs did not fill: $(cat "$TMP/dd.err")"
echo "filled $d while $(basename "$(dirname "$ch")") ran"
wait $pid
rc=$?
pid=
tail -6 "$TMP/err"
[ $rc -eq 2 ] || fail "the session on a full folder exited $rc, expected 2"
grep -F "$d" "$TMP/err" | grep -q "No space left on device" ||
	fail "no error naming a file of the session with \"No space left on device\""
grep -q "mglrulab run --resume $(basename "$d") -c $CONF" "$TMP/err" || fail "the resume command is not said"
check_folder "$d"
before=$(ls "$d"/runs/*.json | wc -l)
[ "$before" -ge 2 ] && [ "$before" -lt 6 ] || fail "expected a partial session, found $before runs"
cp "$d/session.json" "$TMP/plan-before.json"

# Still full: the resume stops at its first run, nothing recorded.
"$LAB" run --resume "$(basename "$d")" -c "$CONF" --fail-on none > "$TMP/out2" 2> "$TMP/err2"
rc=$?
tail -4 "$TMP/err2"
[ $rc -eq 2 ] || fail "a resume on a full folder exited $rc, expected 2"
grep -q "No space left on device" "$TMP/err2" || fail "the full folder is not said on resume"
check_folder "$d"
[ "$(ls "$d"/runs/*.json | wc -l)" -eq "$before" ] || fail "a resume on a full folder recorded a run"

# Room made: the session finishes, each planned run once.
rm -f "$MNT/filler"
"$LAB" run --resume "$(basename "$d")" -c "$CONF" --fail-on none > "$TMP/out3" 2> "$TMP/err3"
rc=$?
tail -3 "$TMP/err3"
[ $rc -eq 0 ] || fail "the resume after making room exited $rc"
cmp -s "$TMP/plan-before.json" "$d/session.json" || fail "the plan changed"
check_folder "$d"
python3 - "$d" <<'PY' || fail "the finished session is wrong"
import glob, json, os, sys
d = sys.argv[1]
plan = json.load(open(os.path.join(d, "session.json")))["plan"]
rep = json.load(open(os.path.join(d, "report.json")))
recs = [json.load(open(p)) for p in sorted(glob.glob(os.path.join(d, "runs", "*.json")))]
assert [r["seq"] for r in recs] == [p["seq"] for p in plan] == list(range(1, 7)), [r["seq"] for r in recs]
for r, p in zip(recs, plan):
    assert (r["kernel"], r["workload"], r["block"]) == (p["kernel"], p["workload"], p["block"]), (r["seq"], p)
    assert r["status"] == "ok", (r["seq"], r["failure"])
assert rep["runs"] == recs, "report.json's runs are not the records"
assert rep["session"]["complete"] is True, rep["session"]
PY
echo ok
