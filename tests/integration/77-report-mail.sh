#!/usr/bin/env bash
# `mglrulab report --mail`: a reply mail a maintainer can send, built from a
# fixture report (no guest, no kernel build). The series' Message-Ids come
# from the fixture mbox (read here with Python's mailbox module, not the
# lab's parser), so In-Reply-To is checked against an independent reading.
# Python's email parser must read the mail without defects; lines stay
# within 80 columns; a cover subject that tries to add a Bcc header and
# escape sequences in host strings get nothing through; lab.conf's
# [report] gives From/To/Cc and the link, and a bad value is refused at
# its line. Guards issue 29 ("report --mail").
# run-all: paired
# run-all: quick
set -u
cd "$(dirname "$0")/../.."

fail() { echo "FAIL: $*" >&2; exit 1; }

[ -x ./mglrulab ] || make -s mglrulab >/dev/null || fail "cannot build mglrulab"
LAB=$PWD/mglrulab
fixture=$PWD/tests/fixtures/reports/session-ab.json
mbox=$PWD/tests/fixtures/series/yield-three.mbox
out=$PWD/build/test-report-mail
rm -rf "$out" && mkdir -p "$out/lab" "$out/none" || fail "cannot create $out"

# The fixture as a session of today records its series: Message-Ids, cover.
python3 - "$fixture" "$mbox" "$out" <<'PY' || fail "cannot build the fixtures"
import json, mailbox, sys
fixture, mbox, out = sys.argv[1:]
msgs = list(mailbox.mbox(mbox))
cover = [m for m in msgs if "[PATCH 0/" in m["Subject"]][0]
patches = [m for m in msgs if m is not cover]
doc = json.load(open(fixture))
k = doc["kernels"][1]
for e, m in zip(k["series"], patches):
    e["message_id"] = m["Message-Id"]
k["cover"] = {"subject": " ".join(cover["Subject"].split()), "message_id": cover["Message-Id"]}
json.dump(doc, open(f"{out}/threaded.json", "w"))
open(f"{out}/cover-id", "w").write(cover["Message-Id"])
# A hostile report: header injection in the subject, escapes in host strings.
k["cover"]["subject"] = "[PATCH 0/1] x\r\nBcc: victim@example.org\x1b[2J"
doc["host"]["cpu"] = "CPU\x1b]0;pwned\x07"
json.dump(doc, open(f"{out}/hostile.json", "w"))
PY
cover_id=$(cat "$out/cover-id")

cat > "$out/lab/lab.conf" <<'CONF' || fail "cannot write lab.conf"
# Only [report]: `report --mail` needs no lab.
[report]
mail_from = Lab Bot <lab@example.org>
mail_to = linux-mm@kvack.org
mail_cc = maintainer@example.org
base_url = https://lab.example.org/reports
CONF

( cd "$out/lab" && "$LAB" report "$out/threaded.json" --mail -o "$out/mail.txt" ) \
	2>"$out/mail.err" || fail "report --mail failed: $(cat "$out/mail.err")"
[ -s "$out/mail.err" ] && fail "a threaded mail warned: $(cat "$out/mail.err")"

python3 - "$out/mail.txt" "$cover_id" <<'PY' || fail "the mail is not what it should be"
import email, email.policy, sys
path, cover_id = sys.argv[1:]
raw = open(path, "rb").read()
msg = email.message_from_bytes(raw, policy=email.policy.default)
assert not msg.defects, msg.defects
assert msg["From"] == "Lab Bot <lab@example.org>", msg["From"]
assert msg["To"] == "linux-mm@kvack.org", msg["To"]
assert msg["Cc"] == "maintainer@example.org", msg["Cc"]
assert msg["In-Reply-To"] == cover_id, msg["In-Reply-To"]
assert msg["References"] == cover_id, msg["References"]
subj = str(msg["Subject"])
assert subj.startswith("Re: [PATCH 0/3] sched: a three-patch series"), subj
assert "1 regression (kbuild: elapsed_s +3.5%)" in subj, subj
body = msg.get_content()
assert body.index("Answer:") < body.index("Setup"), "the answer is not first"
assert "  kbuild: elapsed_s" in body
assert "https://lab.example.org/reports/2026-11-29T184628Z-ab/report.html" in body
for line in raw.decode().split("\n"):
    assert len(line) <= 80, f"line over 80 columns: {line!r}"
print("mail: headers, thread, answer and link as expected")
PY

# -c FILE from another folder, and names that are not ASCII: only the names
# are RFC 2047 encoded, so a reader still finds every address (before, the
# whole "Name <address>" was one encoded word, which hides the address).
mkdir -p "$out/elsewhere"
cat > "$out/utf8.conf" <<'CONF' || fail "cannot write utf8.conf"
[report]
mail_from = Jörg Müller <joerg@example.org>
mail_to = linux-mm@kvack.org, "Morton, Andrew" <akpm@example.org>
mail_cc = Zoë Ångström-Ödegaard von Überlänge <zoe@example.org>, plain@example.org
CONF
( cd "$out/elsewhere" && "$LAB" report "$out/threaded.json" --mail -c "$out/utf8.conf" \
	-o "$out/utf8.txt" ) 2>"$out/utf8.err" || fail "report --mail -c failed: $(cat "$out/utf8.err")"
python3 - "$out/utf8.txt" <<'PY' || fail "the names or addresses are not what lab.conf says"
import email, email.policy, sys
raw = open(sys.argv[1], "rb").read()
msg = email.message_from_bytes(raw, policy=email.policy.default)
assert not msg.defects, msg.defects
def pairs(h):
    return [(a.display_name, a.addr_spec) for a in msg[h].addresses]
assert pairs("From") == [("Jörg Müller", "joerg@example.org")], pairs("From")
assert pairs("To") == [("", "linux-mm@kvack.org"), ("Morton, Andrew", "akpm@example.org")], pairs("To")
assert pairs("Cc") == [("Zoë Ångström-Ödegaard von Überlänge", "zoe@example.org"),
                       ("", "plain@example.org")], pairs("Cc")
for h in ("From", "To", "Cc"):
    assert not msg[h].defects, (h, msg[h].defects)
for line in raw.decode("ascii").split("\n"):
    assert len(line) <= 80, f"line over 80 columns: {line!r}"
print("mail: -c FILE read, UTF-8 names encoded, addresses intact")
PY

# An address lab.conf cannot take is refused at its line, with the form expected.
printf '[report]\nmail_to = Jörg <jörg@example.org>\n' > "$out/badaddr.conf"
"$LAB" report "$fixture" --mail -c "$out/badaddr.conf" >/dev/null 2>"$out/badaddr.err" &&
	fail "a non-ASCII address was accepted"
grep -q 'badaddr.conf:2: \[report\] mail_to: expected mail addresses' "$out/badaddr.err" ||
	fail "the bad address is not named at its line: $(cat "$out/badaddr.err")"

# Hostile strings: nothing but '\n' of the control characters, no Bcc header.
( cd "$out/none" && "$LAB" report "$out/hostile.json" --mail -o "$out/hostile.txt" ) \
	2>"$out/hostile.err" || fail "report --mail failed on the hostile report"
LC_ALL=C grep -q $'[\x01-\x09\x0b-\x1f\x7f]' "$out/hostile.txt" &&
	fail "a control character reached the mail"
grep -qi '^Bcc:' "$out/hostile.txt" && fail "a subject added a Bcc header"
awk 'length($0) > 80 { bad = 1 } END { exit bad }' "$out/hostile.txt" ||
	fail "the hostile mail has lines over 80 columns"

# No Message-Ids (a report from before they were recorded): a mail all the same,
# without In-Reply-To, and stderr says why.
( cd "$out/none" && "$LAB" report "$fixture" --mail -o "$out/plain.txt" ) 2>"$out/plain.err" ||
	fail "report --mail failed without Message-Ids"
grep -q '^In-Reply-To:' "$out/plain.txt" && fail "In-Reply-To without a Message-Id"
grep -q 'no In-Reply-To' "$out/plain.err" || fail "stderr does not say why the mail is not threaded"
grep -q '^From: .*@' "$out/plain.txt" || fail "no default From"

# A bad [report] value is refused at its line.
printf '[report]\nbase_url = javascript:alert(1)\n' > "$out/none/lab.conf"
( cd "$out/none" && "$LAB" report "$fixture" --mail ) >/dev/null 2>"$out/bad.err" &&
	fail "a bad base_url was accepted"
grep -q 'lab.conf:2: \[report\] base_url: expected an http:// or https:// URL' "$out/bad.err" ||
	fail "the bad base_url is not named at its line: $(cat "$out/bad.err")"
echo "PASS: report --mail"
