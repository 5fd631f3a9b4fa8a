#!/usr/bin/env bash
# The command line as a maintainer meets it (issue 50), without a guest:
# `report --mail -` writes the mail to stdout as `--html -` writes the
# page (it was "too many arguments"); `report DIR` reads DIR/report.json
# (it was "Is a directory"); a prefix of a long option is refused with
# the whole name (`--htm x.html` was taken as --html without a word); a
# mistyped command or subcommand gets "did you mean" (`reprot`: none);
# `compare A A` says it compares a session with itself; `doctor` on a
# state folder whose embedded libvirt driver another process holds
# names the folder and the holder's pid (it said "FAIL ... install
# libvirt-daemon-driver-qemu; see DESIGN.md", a file the project does
# not have, and "run 'mglrulab doctor'" from inside doctor). Each of
# these failed on the tree before. About 5 s.
# run-all: quick
. "$(dirname "$0")/../lib/common.sh"
FX=tests/fixtures/reports/session-ab.json
S=$TMP/session
mkdir -p "$S" && cp "$FX" "$S/report.json" || fail "cannot copy the fixture"

# --- report --mail - ---
"$LAB" report "$S/report.json" --mail - >"$TMP/mail.txt" 2>"$TMP/mail.err" ||
	fail "report --mail - failed: $(cat "$TMP/mail.err")"
grep -q '^Subject: ' "$TMP/mail.txt" || fail "report --mail - wrote no mail"
# --mail FILE.json keeps the report an argument; a file for the mail is -o's
"$LAB" report --mail "$S/report.json" >"$TMP/mail2.txt" 2>"$TMP/mail2.err" ||
	fail "report --mail REPORT failed: $(cat "$TMP/mail2.err")"
cmp -s "$TMP/mail.txt" "$TMP/mail2.txt" || fail "--mail - and --mail differ"
"$LAB" report "$S/report.json" --mail=x.txt >/dev/null 2>"$TMP/err" &&
	fail "--mail=x.txt was accepted"
grep -q -- '-o FILE' "$TMP/err" || fail "--mail=x.txt: no word of -o FILE: $(cat "$TMP/err")"

# --- report DIR ---
"$LAB" report "$S" --text >"$TMP/dir.txt" 2>"$TMP/err" ||
	fail "report DIR failed: $(cat "$TMP/err")"
"$LAB" report "$S/report.json" --text >"$TMP/file.txt" 2>/dev/null || fail "report FILE failed"
cmp -s "$TMP/dir.txt" "$TMP/file.txt" || fail "report DIR and report DIR/report.json differ"
"$LAB" report "$S/" --text >/dev/null 2>&1 || fail "report DIR/ failed"

# --- no abbreviated long options ---
"$LAB" report "$S/report.json" --htm "$TMP/x.html" >/dev/null 2>"$TMP/err" &&
	fail "--htm was taken as --html"
[ -e "$TMP/x.html" ] && fail "--htm wrote the page"
grep -q "did you mean --html" "$TMP/err" || fail "--htm: no --html in: $(cat "$TMP/err")"

# --- did you mean ---
"$LAB" reprot "$S" >/dev/null 2>"$TMP/err" && fail "reprot ran"
grep -q "did you mean 'report'" "$TMP/err" || fail "reprot: $(cat "$TMP/err")"
"$LAB" kernel bulid >/dev/null 2>"$TMP/err" && fail "kernel bulid ran"
grep -q "did you mean 'build'" "$TMP/err" || fail "kernel bulid: $(cat "$TMP/err")"
"$LAB" help comapre >/dev/null 2>"$TMP/err" && fail "help comapre succeeded"
grep -q "did you mean 'compare'" "$TMP/err" || fail "help comapre: $(cat "$TMP/err")"

# --- compare A A ---
"$LAB" compare "$S/report.json" "$FX" --text >/dev/null 2>"$TMP/err" || fail "compare A A failed"
grep -q "same session" "$TMP/err" || fail "compare A A said nothing: $(cat "$TMP/err")"
"$LAB" compare tests/fixtures/reports/nightly-a.json tests/fixtures/reports/nightly-b.json \
	--text >/dev/null 2>"$TMP/err" || fail "compare A B failed"
grep -q "same session" "$TMP/err" && fail "compare A B warned of the same session"

# --- doctor on a held state folder ---
st=$TMP/state
mkdir -p "$st/libvirt/run/qemu" && : >"$st/libvirt/run/qemu/driver.pid"
# libvirt's embedded driver locks its pid file with fcntl: hold it as one would
python3 - "$st/libvirt/run/qemu/driver.pid" "$TMP/held" <<'PY' &
import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDWR)
fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, 0)
open(sys.argv[2], "w").close()
time.sleep(60)
PY
holder=$!
trap 'kill $holder 2>/dev/null; [ -n "${KEEP_TMP:-}" ] || rm -rf "$TMP"' EXIT
for _ in $(seq 50); do [ -e "$TMP/held" ] && break; sleep 0.1; done
[ -e "$TMP/held" ] || fail "the lock holder did not start"
"$LAB" doctor --state "$st" >"$TMP/doctor.txt" 2>&1
grep 'libvirt embedded driver' "$TMP/doctor.txt" >"$TMP/line" || fail "doctor: no libvirt line"
grep -q "$st" "$TMP/line" || fail "doctor does not name the held folder: $(cat "$TMP/line")"
grep -q "pid $holder" "$TMP/line" || fail "doctor does not name pid $holder: $(cat "$TMP/line")"
grep -q '^FAIL  libvirt embedded driver' "$TMP/doctor.txt" && fail "a held folder is a FAIL"
grep -q "DESIGN.md" "$TMP/doctor.txt" && fail "doctor names DESIGN.md, which is not in the project"
grep -q "run 'mglrulab doctor'" "$TMP/doctor.txt" && fail "doctor says to run doctor"
echo "cli: --mail -, report DIR, no prefixes, did you mean, compare A A, doctor on a held folder"
