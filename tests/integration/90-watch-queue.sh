#!/usr/bin/env bash
# mglrulab watch scan / status on a generated list archive
# (tests/fixtures/gen-list-archive.py: 12 threads, among them a v1 and v2
# of one series, a resend, one outside mm/, one incomplete, one of 200
# patches, one without a cover letter, one deeply threaded, a Latin-1
# subject, a mail without Message-ID, a review with trailers): each series
# ends in the state the generator expects, from a maildir and from a
# public-inbox v2 folder, read at once or in two parts; a second scan
# reads nothing; the incomplete series is skipped once its grace is over;
# kill -9 during scans of a thread bomb (20,000 replies) loses and doubles
# nothing. No guest, no kernel: about 15 s.
# run-all: paired
# run-all: quick
. "$(dirname "$0")/../lib/common.sh"
GEN=tests/fixtures/gen-list-archive.py

# A lab of its own: lab.conf with its state folder in $TMP (the guests' and
# kernels' paths resolve through links), and a [watch] section.
conf=$TMP/lab.conf
cp lab.conf "$conf" || fail "cannot copy lab.conf"
ln -s "$ROOT/guests" "$TMP/guests" && ln -s "$ROOT/kernels" "$TMP/kernels" || fail "cannot link"
sed -i "s#^state_dir = .*#state_dir = $TMP/lab#" "$conf"
# (history = measure: the archive's threads are what is checked, not skipped as the past)
printf '\n[watch]\ngrace = 1h\nhistory = measure\n' >> "$conf"
python3 "$GEN" expect > "$TMP/expect.json" || fail "generator failed"

# The queue of state folder $1 against the generator's expectations.
check_queue() {
	"$LAB" -q watch status -c "$conf" --state "$1" --json > "$1.json" ||
		fail "watch status failed on $1"
	python3 - "$TMP/expect.json" "$1.json" "$2" <<'PY' || fail "$2: the queue is not what the archive says"
import json, sys
expect = json.load(open(sys.argv[1]))
got = {s["root"]: s for s in json.load(open(sys.argv[2]))["series"]}
assert sorted(got) == sorted(expect), (sys.argv[3], "series", sorted(got), sorted(expect))
for root, (state, why) in expect.items():
    s = got[root]
    assert s["state"] == state, (sys.argv[3], root, s["state"], state, s.get("reason"))
    if why:
        assert why in s.get("reason", ""), (sys.argv[3], root, s.get("reason"), why)
lru2 = got["lru2-0@example.org"]
assert lru2["version"] == 2 and lru2["patches"] == lru2["filed"] == 2, lru2
assert lru2["base_commit"] == "0123456789abcdef0123456789abcdef01234567", lru2
assert got["deep-0@example.org"]["rfc"] and got["deep-0@example.org"]["filed"] == 3
assert got["latin@example.org"]["title"] == "mm: caf? au lait", got["latin@example.org"]
assert got["inc-0@example.org"]["filed"] == 1 and got["inc-0@example.org"]["patches"] == 3
print(f"{sys.argv[3]}: {len(got)} series as expected")
PY
}

# One scan of a whole maildir; a second reads nothing.
python3 "$GEN" maildir "$TMP/md" || fail "generator failed"
"$LAB" watch scan -c "$conf" --archive "$TMP/md" --state "$TMP/s-md" > "$TMP/scan1" ||
	fail "watch scan failed: $(cat "$TMP/scan1")"
grep -q '24 mails filed, 0 seen before, 1 refused' "$TMP/scan1" || fail "first scan: $(cat "$TMP/scan1")"
check_queue "$TMP/s-md" maildir
"$LAB" watch scan -c "$conf" --archive "$TMP/md" --state "$TMP/s-md" > "$TMP/scan2" || fail "rescan failed"
grep -q '^watch: 0 mails filed, 0 seen before, 0 refused' "$TMP/scan2" || fail "the second scan read again: $(cat "$TMP/scan2")"

# By default the first scan takes the archive as the past: nothing queued.
sed '/^history = measure$/d' "$conf" > "$TMP/past.conf"
"$LAB" watch scan -c "$TMP/past.conf" --archive "$TMP/md" --state "$TMP/s-past" > "$TMP/past.err" \
	2>&1 || fail "watch scan (history = skip) failed: $(cat "$TMP/past.err")"
grep -q 'series on the list before the watch began skipped as history' "$TMP/past.err" ||
	fail "the first scan did not say it skipped the past: $(cat "$TMP/past.err")"
"$LAB" -q watch status -c "$TMP/past.conf" --state "$TMP/s-past" > "$TMP/past.txt" || fail "status failed"
! grep -q '^ *[0-9]\+ queued ' "$TMP/past.txt" || fail "the archive's past was queued: $(cat "$TMP/past.txt")"
grep -q 'before the watch began' "$TMP/past.txt" || fail "status does not say why: $(cat "$TMP/past.txt")"

# What the database keeps: the refused mail with its reason, the review's
# own trailer (not the one it quotes), every mail once.
python3 - "$TMP/s-md/watch.sqlite" <<'PY' || fail "the database does not hold what was read"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
rej = db.execute("SELECT reason FROM rejected").fetchall()
assert len(rej) == 1 and "Message-ID" in rej[0][0], rej
tr = db.execute("SELECT trailers FROM messages WHERE message_id = 'rev1@example.org'").fetchone()
assert tr == ("Reviewed-by: Rita Reviewer <rita@example.org>",), tr
assert db.execute("SELECT is_patch, series_id FROM messages WHERE message_id = 'rev1@example.org'"
                  ).fetchone() == (0, 0)
PY

# The text status: one line per series, the reasons under them, nothing raw.
"$LAB" -q watch status -c "$conf" --state "$TMP/s-md" > "$TMP/status.txt" || fail "status failed"
[ "$(grep -c '^ *[0-9]\+ \(queued\|skipped\|incomplete\) ' "$TMP/status.txt")" = 11 ] ||
	fail "status lists not 11 series: $(cat "$TMP/status.txt")"
grep -q 'superseded by v2' "$TMP/status.txt" || fail "status gives no reason"
! LC_ALL=C grep -qP '[\x00-\x08\x0b-\x1f\x7f]' "$TMP/status.txt" || fail "a control character in status"

# public-inbox v2, in two parts: the second scan starts at the cursor.
python3 "$GEN" public-inbox "$TMP/pi" --part 1 || fail "generator failed"
"$LAB" -q watch scan -c "$conf" --archive "$TMP/pi" --state "$TMP/s-pi" > /dev/null || fail "scan of part 1 failed"
python3 "$GEN" public-inbox "$TMP/pi" --part 2 || fail "generator failed"
"$LAB" watch scan -c "$conf" --archive "$TMP/pi" --state "$TMP/s-pi" > "$TMP/scan-pi" || fail "scan of part 2 failed"
grep -q '^watch: 1[23] mails filed, 0 seen before' "$TMP/scan-pi" || fail "part 2: $(cat "$TMP/scan-pi")"
check_queue "$TMP/s-pi" public-inbox-in-two-parts

# A maildir in two parts, the first read ones moved to cur/ with flags.
python3 "$GEN" maildir "$TMP/md2" --part 1 || fail "generator failed"
"$LAB" -q watch scan -c "$conf" --archive "$TMP/md2" --state "$TMP/s-md2" > /dev/null || fail "scan failed"
for f in "$TMP"/md2/new/*; do mv "$f" "$TMP/md2/cur/$(basename "$f"):2,S"; done
python3 "$GEN" maildir "$TMP/md2" --part 2 || fail "generator failed"
"$LAB" -q watch scan -c "$conf" --archive "$TMP/md2" --state "$TMP/s-md2" > /dev/null || fail "scan failed"
check_queue "$TMP/s-md2" maildir-in-two-parts

# The grace: a series still incomplete after it is skipped, saying what is missing.
sed -i 's/^grace = 1h$/grace = 1s/' "$conf"
sleep 2
"$LAB" -q watch scan -c "$conf" --archive "$TMP/md" --state "$TMP/s-md" > /dev/null || fail "scan failed"
"$LAB" -q watch status -c "$conf" --state "$TMP/s-md" --json > "$TMP/grace.json" || fail "status failed"
python3 - "$TMP/grace.json" <<'PY' || fail "the incomplete series outlived its grace"
import json, sys
s = {x["root"]: x for x in json.load(open(sys.argv[1]))["series"]}["inc-0@example.org"]
assert s["state"] == "skipped" and "patches 2, 3 of 3 missing" in s["reason"], s
PY
sed -i 's/^grace = 1s$/grace = 1h/' "$conf"

# kill -9 while a thread bomb is read, several times, then a whole scan:
# the queue is the one a scan without kills makes, every mail filed once.
python3 "$GEN" maildir "$TMP/bomb" --bomb 20000 || fail "generator failed"
count() { python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("SELECT COUNT(*) FROM messages").fetchone()[0])' "$1" 2>/dev/null || echo 0; }
partial=0 counts=
for delay in 0.05 0.1 0.15 0.2 0.3 0.4 0.5; do
	"$LAB" -q watch scan -c "$conf" --archive "$TMP/bomb" --state "$TMP/s-bomb" > /dev/null 2>&1 &
	pid=$!
	sleep "$delay"
	kill -9 "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	n=$(count "$TMP/s-bomb/watch.sqlite")
	counts="$counts $n"
	[ "$n" -gt 0 ] && [ "$n" -lt 20024 ] && partial=$((partial + 1))
done
echo "mails filed after each kill:$counts"
# (a scan of the 20,024 mails takes about 0.7 s here: most kills land inside one)
[ "$partial" -gt 0 ] || fail "no kill landed inside a scan:$counts"
"$LAB" watch scan -c "$conf" --archive "$TMP/bomb" --state "$TMP/s-bomb" > "$TMP/scan-bomb" ||
	fail "the scan after kills failed: $(cat "$TMP/scan-bomb")"
check_queue "$TMP/s-bomb" after-kill-9
python3 - "$TMP/s-bomb/watch.sqlite" <<'PY' || fail "kill -9 lost or doubled mails"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
n = db.execute("SELECT COUNT(*), COUNT(DISTINCT message_id) FROM messages").fetchone()
assert n == (20024, 20024), n
seen = db.execute("SELECT COUNT(*) FROM seen").fetchone()[0]
assert seen == 20025, seen          # the refused mail is seen too
rej = db.execute("SELECT COUNT(*) FROM rejected").fetchone()[0]
assert rej == 1, rej
ev = db.execute("SELECT COUNT(*) FROM (SELECT series_id, state FROM events"
                " GROUP BY series_id, state HAVING COUNT(*) > 1)").fetchone()[0]
assert ev == 0, "a state entered twice"
print("after kill -9: 20024 mails, each once")
PY

# Bad input: no archive of either kind, no archive at all.
mkdir -p "$TMP/empty"
"$LAB" -q watch scan -c "$conf" --archive "$TMP/empty" --state "$TMP/s-x" 2> "$TMP/err" &&
	fail "an empty folder was scanned"
grep -q "$TMP/empty: neither a maildir (cur/, new/) nor a public-inbox v2 folder" "$TMP/err" ||
	fail "no clear error: $(cat "$TMP/err")"
"$LAB" -q watch scan -c "$conf" --state "$TMP/s-x" 2> "$TMP/err" && fail "a scan without archive ran"
grep -q 'no archive: give --archive DIR or \[watch\] archive' "$TMP/err" || fail "$(cat "$TMP/err")"
echo "garbage" > "$TMP/s-x/watch.sqlite"
"$LAB" -q watch status -c "$conf" --state "$TMP/s-x" 2> "$TMP/err" && fail "a garbage queue was read"
grep -q "$TMP/s-x/watch.sqlite: file is not a database" "$TMP/err" || fail "$(cat "$TMP/err")"
echo ok
