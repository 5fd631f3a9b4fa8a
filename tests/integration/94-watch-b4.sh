#!/usr/bin/env bash
# mglrulab watch against b4, the kernel's own series assembler, on the
# same mails: tests/fixtures/gen-b4-threads.py writes 220 threads (seeded;
# SEED=N to choose, the seed is printed on failure) of issue 47's variants
# and random mixes of versions (in a thread of their own or replying into
# the older one's), shallow and deep threading, cover letters early, late,
# absent or untagged, bodies plain, quoted-printable, base64 inline or
# attached, CRLF, review replies with trailers, partial rerolls. `watch
# scan` files them all; `b4 am -m` (Debian's b4, offline: --offline-mode,
# no cache, a HOME of its own, no network namespace) assembles each thread
# from its Message-ID; tests/lib/b4-compare.py compares per thread which
# mails are the series, its version, its patches in order, the trees
# `git am` makes of both on a toy repository, and the review trailers of
# the replies per patch (b4 writes them into the commits; `watch status
# --json` lists them). A difference not listed in
# docs/watch.md ("Where b4 and the watch differ") and in b4-compare.py's
# KNOWN fails, and so does a listed one no longer seen. No guest, no
# kernel: about 30 s.
# run-all: paired
# run-all: quick
. "$(dirname "$0")/../lib/common.sh"
command -v b4 >/dev/null && /usr/bin/python3 -c 'import b4' 2>/dev/null ||
	skip "no b4 (apt-get install b4, scripts/install-deps)"
SEED=${SEED:-$(date +%s)}
GROUPS_N=${GROUPS_N:-220}
# (common.sh's EXIT trap, the cleanup, runs after the seed is said)
trap 'rc=$?; [ $rc -ne 0 ] && [ $rc -ne 77 ] && echo "94-watch-b4: seed $SEED (SEED=$SEED to repeat)" >&2
	[ -n "${KEEP_TMP:-}" ] || rm -rf "$TMP"' EXIT

conf=$TMP/lab.conf
cp lab.conf "$conf" || fail "cannot copy lab.conf"
ln -s "$ROOT/guests" "$TMP/guests" && ln -s "$ROOT/kernels" "$TMP/kernels" || fail "cannot link"
sed -i "s#^state_dir = .*#state_dir = $TMP/lab#" "$conf"
# every thread measured or waiting: nothing skipped as history or late
printf '\n[watch]\ngrace = 30d\nhistory = measure\n' >> "$conf"

python3 tests/fixtures/gen-b4-threads.py "$SEED" "$GROUPS_N" "$TMP/gen" > "$TMP/gen.out" ||
	fail "generator failed (seed $SEED)"
"$LAB" -q watch scan -c "$conf" --archive "$TMP/gen/md" --state "$TMP/state" > "$TMP/scan" 2>&1 ||
	fail "watch scan failed: $(cat "$TMP/scan")"
"$LAB" -q watch status -c "$conf" --state "$TMP/state" --json > "$TMP/status.json" ||
	fail "watch status failed"
# the reviews' trailers, under their series, with the patches they cover
"$LAB" -q watch status -c "$conf" --state "$TMP/state" > "$TMP/status.txt" || fail "watch status failed"
grep -q '^ \+Reviewed-by: Rev Iewer <rev[0-9]@example.org> (patch' "$TMP/status.txt" ||
	fail "watch status shows no review trailer: $(head -20 "$TMP/status.txt")"

# b4 without the network or anyone's configuration: a HOME and git
# identity of its own (b4 am signs nothing, but asks git for user.email)
mkdir -p "$TMP/home" && printf '[user]\n\tname = Test\n\temail = test@example.org\n' > "$TMP/home/.gitconfig"
netns=()
unshare --net true 2>/dev/null && netns=(unshare --net)
HOME=$TMP/home XDG_CONFIG_HOME=$TMP/home/.config XDG_CACHE_HOME=$TMP/home/.cache \
	GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_DATE='1 Dec 2026 10:00 +0000' \
	GIT_COMMITTER_DATE='1 Dec 2026 10:00 +0000' \
	"${netns[@]}" /usr/bin/python3 tests/lib/b4-compare.py "$TMP/gen" "$TMP/status.json" \
	"$LAB" "$conf" "$TMP/state" > "$TMP/compare" 2>&1
rc=$?
cat "$TMP/compare"
[ $rc -eq 0 ] || fail "the watch and b4 differ where docs/watch.md says nothing (seed $SEED)"
grep -q "^b4-compare: $GROUPS_N threads" "$TMP/compare" || fail "not every thread compared"
echo "PASS: $GROUPS_N threads as b4 assembles them, or as docs/watch.md says why not"
