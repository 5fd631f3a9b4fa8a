#!/usr/bin/env bash
# mglrulab watch on a git baseline: a series whose mail names its
# base-commit goes on the baseline at that commit, and so does the
# baseline it is measured against. The repository is linux-source-6.12
# committed as it is (C0) with one commit on top (C1, a comment in
# mm/vmscan.c); [kernel baseline] is the repository at C1; slow5's patch
# names C0 as its base-commit. The watch builds the baseline at C0 and
# the series on it, measures them, and its reply says which base it used.
#
# Opt-in (MGLRULAB_FULL_BUILDS=1): a git source is a tree of its own in
# the kernel cache, so the first run builds a kernel from scratch (8-10
# minutes on these 2-core machines) after committing the tarball's 90,000
# files (about a minute, once: the repository stays in the kernel cache,
# whose trees borrow its objects; add -f: the Debian tarball's .gitignore
# ignores its own top level). 759 s here on the first run.
# tests/unit/test_ksource_commit checks which base-commits are taken, in
# every run.
. "$(dirname "$0")/../lib/common.sh"
need_kernel_source
[ "${MGLRULAB_FULL_BUILDS:-}" = 1 ] ||
	skip "builds a kernel from a git source from scratch (about 10 minutes): set MGLRULAB_FULL_BUILDS=1"
CACHE=${MGLRULAB_CACHE_DIR:-$ROOT/kernels/cache}
REPO=$CACHE/test-sources/linux-6.12-git
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@t GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@t \
	GIT_AUTHOR_DATE=2026-12-01T00:00:00Z GIT_COMMITTER_DATE=2026-12-01T00:00:00Z
if ! git -C "$REPO" rev-parse -q --verify c1 > /dev/null 2>&1; then
	rm -rf "$REPO" && mkdir -p "$REPO" || fail "cannot create $REPO"
	tar -xf /usr/src/linux-source-6.12.tar.xz -C "$REPO" --strip-components=1 ||
		fail "cannot unpack the kernel source"
	git -C "$REPO" init -q && git -C "$REPO" add -A -f && git -C "$REPO" commit -q -m C0 &&
		git -C "$REPO" tag c0 || fail "cannot commit the kernel source"
	sed -i '1a /* mglrulab test: the commit after the series'"'"' base */' "$REPO/mm/vmscan.c"
	git -C "$REPO" commit -q -am C1 && git -C "$REPO" tag c1 || fail "cannot commit C1"
fi
C0=$(git -C "$REPO" rev-parse c0) && C1=$(git -C "$REPO" rev-parse c1) || fail "no c0/c1"

CONF=$TMP/watch.conf
sed 's/^threshold = 5%/threshold = 2%/; s/^guest = tiny$/guest = tiny-icount/' \
	tests/fixtures/labs/ab-small.conf > "$CONF"
sed -i "s#\.\./\.\./\.\./#$ROOT/#; s#\.\./series/#$ROOT/tests/fixtures/series/#" "$CONF"
sed -i "s#^source = /usr/src/linux-source-6.12.tar.xz\$#source = $REPO\nref = c1#" "$CONF"
grep -q "^ref = c1" "$CONF" || fail "no baseline source line to move"
printf '\n[watch]\narchive = %s\npaths = kernel/sched/\nbudget = 5m\nhistory = measure\n' \
	"$TMP/archive" >> "$CONF"
private_lab "$CONF"
W=$TMP/lab/watch
trap 'pkill -9 -f -- "$TMP/lab/"; rm -rf "$TMP"' EXIT
mkdir -p "$TMP/archive/new" "$TMP/archive/cur" "$TMP/archive/tmp"
python3 - "$TMP/archive" "$ROOT/tests/fixtures/series" "$C0" <<'PY' || fail "cannot write the archive"
import sys
d, fx, c0 = sys.argv[1:]
p = open(f"{fx}/sched-yield-delay-small.patch").read().replace("From mglrulab Mon Sep 17 00:00:00 2001\n", "")
p = p.replace("\nDate: ", "\nMessage-ID: <based@example.org>\nDate: ", 1)
p = p.replace("\n-- \n2.39.5", f"\nbase-commit: {c0}\n-- \n2.39.5", 1)
assert "base-commit: " in p
open(f"{d}/new/3000000000000.based", "w").write(p)
PY
"$LAB" watch run -c "$CONF" --once > "$TMP/watch.out" 2> "$TMP/watch.err" ||
	fail "watch run failed: $(tail -20 "$TMP/watch.err")"
grep -q "building watch-1-base (the baseline at its base-commit) and watch-1" "$TMP/watch.out" ||
	fail "the baseline at the base-commit was not built: $(cat "$TMP/watch.out")"
python3 - "$W" "$C0" "$C1" <<'PY' || fail "the series did not go on its base-commit"
import email, email.policy, json, sqlite3, sys
W, c0, c1 = sys.argv[1:]
sid, state, verdict = sqlite3.connect(f"{W}/watch.sqlite").execute(
    "SELECT id, state, verdict FROM series WHERE root = 'based@example.org'").fetchone()
assert state == "decided" and ": regression " in verdict, (state, verdict)
rep = json.load(open(f"{W}/series/{sid}/reports/latest/report.json"))
ks = {k["name"]: k for k in rep["kernels"]}
assert set(ks) == {"watch-1-base", "watch-1"}, list(ks)
assert c0 in json.dumps(ks["watch-1-base"]) and c1 not in json.dumps(rep["kernels"]), ks
m = email.message_from_binary_file(open(f"{W}/series/{sid}/reply.eml", "rb"),
                                   policy=email.policy.default)
body = " ".join(m.get_content().split())
assert f"Built on the series' base-commit {c0}: [kernel baseline] of the lab" in body, body
assert f"ref = {c0}" in body, body
print("series on its base-commit:", verdict)
PY
echo ok
