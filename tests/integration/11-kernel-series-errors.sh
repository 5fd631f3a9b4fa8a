#!/usr/bin/env bash
# A series whose second patch does not apply fails with exit status 1,
# naming that patch and its hunk, and leaves the work tree clean at the
# unmodified source. Bad git sources are user errors too.
. "$(dirname "$0")/../lib/common.sh"
need_kernel_source

cat > "$TMP/lab.conf" <<EOC
[kernel broken]
source = /usr/src/linux-source-6.12.tar.xz
fragments = $ROOT/kernels/configs/lab-guest.config
series = $ROOT/tests/fixtures/series/broken-second.mbox
[guest tiny]
file = $ROOT/guests/tiny.conf
EOC
"$LAB" kernel build -c "$TMP/lab.conf" > "$TMP/out" 2> "$TMP/err"
rc=$?
cat "$TMP/err"
[ $rc -eq 1 ] || fail "expected exit status 1, got $rc"
grep -q 'patch 2 of the series does not apply: "\[PATCH 2/2\] mm/mglru: a patch whose context does not match 6.12"' "$TMP/err" ||
	fail "the failing patch is not named"
grep -q "broken-second.mbox, message 2" "$TMP/err" || fail "the file is not named"
grep -q "hunk: include/linux/mm_types.h at line 1142: @@ -1142,7" "$TMP/err" || fail "the hunk is not named"
tree=$(sed -n 's/.*the work tree \(.*\) is back at the unmodified source/\1/p' "$TMP/err")
[ -d "$tree" ] || fail "no work tree named"
[ -z "$(git -c safe.directory="*" -C "$tree" status --porcelain)" ] || fail "work tree is not clean"
[ "$(git -c safe.directory="*" -C "$tree" rev-parse HEAD)" = "$(git -c safe.directory="*" -C "$tree" rev-parse mglrulab-base)" ] || fail "HEAD is not the unmodified source"
[ -d "$tree/.git/rebase-apply" ] && fail "git am left a session behind"

# The same series with the failing patch's subject RFC 2047-encoded and
# carrying terminal escapes: the error shows it decoded, each control
# character as a space (a decoded header is one line of text: mbox.c), and
# nothing that could retitle or clear the terminal.
sed 's|^Subject: \[PATCH 2/2\] .*|Subject: =?UTF-8?q?=5BPATCH_2/2=5D_mm:_=1B]0;pwned=07=1B[2Jx?=|' \
	tests/fixtures/series/broken-second.mbox > "$TMP/escapes.mbox"
sed "s|^series = .*|series = $TMP/escapes.mbox|" "$TMP/lab.conf" > "$TMP/escapes.conf"
"$LAB" kernel build -c "$TMP/escapes.conf" > "$TMP/out3" 2> "$TMP/err3"
rc=$?
cat "$TMP/err3"
[ $rc -eq 1 ] || fail "escapes: expected exit status 1, got $rc"
grep -q 'does not apply: "\[PATCH 2/2\] mm:  \]0;pwned  \[2Jx"' "$TMP/err3" ||
	fail "escapes: the subject is not shown decoded and filtered"
if LC_ALL=C grep -q $'[\x01-\x09\x0b-\x1f\x7f]' "$TMP/out3" "$TMP/err3"; then
	fail "escapes: control characters reached the terminal"
fi

# A build killed inside a git command leaves git's index.lock in the work
# tree; the next build removes it (it holds build.lock, so no git runs
# there) and goes on, saying so, instead of failing until someone removes
# it by hand (test 91's watch, killed as its bisection began, CI of
# 2026-12-07). Planted under build.lock, as a killed build left it.
flock -x "$(dirname "$(dirname "$tree")")/build.lock" touch "$tree/.git/index.lock" ||
	fail "cannot plant index.lock in $tree"
"$LAB" kernel build -c "$TMP/lab.conf" > /dev/null 2> "$TMP/err4"
rc=$?
[ -e "$tree/.git/index.lock" ] && { rm -f "$tree/.git/index.lock"; fail "index.lock was left in $tree"; }
[ $rc -eq 1 ] || fail "stale index.lock: expected exit status 1 (the series), got $rc: $(tail -3 "$TMP/err4")"
grep -q "removed git's index.lock, left by a build that was killed" "$TMP/err4" ||
	fail "stale index.lock: not said: $(cat "$TMP/err4")"
grep -q 'patch 2 of the series does not apply' "$TMP/err4" ||
	fail "stale index.lock: the build did not go on to the series: $(tail -3 "$TMP/err4")"

# A git source whose ref does not exist.
git init -q "$TMP/repo" && git -C "$TMP/repo" -c user.name=t -c user.email=t@t commit -q --allow-empty -m init
cat > "$TMP/git.conf" <<EOC
[kernel g]
source = $TMP/repo
ref = no-such-branch
[guest tiny]
file = $ROOT/guests/tiny.conf
EOC
"$LAB" kernel build -c "$TMP/git.conf" 2> "$TMP/err2"
rc=$?
[ $rc -eq 1 ] || fail "bad ref: expected exit status 1, got $rc"
grep -q "'no-such-branch' is not a commit in this git repository" "$TMP/err2" || fail "bad ref not explained: $(cat "$TMP/err2")"
echo ok
