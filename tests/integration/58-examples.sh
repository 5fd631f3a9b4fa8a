#!/usr/bin/env bash
# The seed-thread labs in examples/ stay usable:
#  - every examples/*.conf passes `mglrulab config check`;
#  - every seed has a small variant (*.small.conf), and each of its files
#    declares exactly the kernels of that small variant (same sources,
#    configs, fragments and series), so one kernel cache serves both and
#    the small run measures the kernels the full one would;
#  - every series under examples/series applies to the 6.12 tree and
#    touches .c files only (what keeps its kernel a one-minute rebuild
#    from the cached baseline, as examples/README.md promises).
# The small variants are run end to end by bench/seed-labs, not here (a
# few minutes each plus a kernel build each: CI's budget).
# About 5 s with a cached tree (30 s when the 6.12 archive is read).
# run-all: quick
. "$(dirname "$0")/../lib/common.sh"
need_kernel_source

ls examples/seed-*.conf >/dev/null 2>&1 || fail "no examples/seed-*.conf"
for f in examples/seed-*.conf; do
	"$LAB" config check "$f" --json >"$TMP/$(basename "$f").json" 2>"$TMP/err" ||
		fail "$f: config check failed: $(cat "$TMP/err")"
done

python3 - "$TMP" examples/seed-*.conf <<'PY' || fail "examples' kernels disagree"
import json, os, re, sys
tmp, files = sys.argv[1], sys.argv[2:]
def kernels(f):
    d = json.load(open(os.path.join(tmp, os.path.basename(f) + ".json")))
    return {k["name"]: (k["source"], k["config"], k["series"], k["fragments"]) for k in d["kernels"]}
seeds = {}
for f in files:
    seeds.setdefault(re.match(r".*/seed-(\d+)-", f).group(1), []).append(f)
for seed, fs in sorted(seeds.items()):
    small = [f for f in fs if f.endswith(".small.conf")]
    assert len(small) == 1, (seed, "needs exactly one small variant", fs)
    ref = kernels(small[0])
    assert len(ref) == 2, (small[0], "a baseline and a patched kernel", ref)
    for f in fs:
        assert kernels(f) == ref, (f, "kernels differ from", small[0], kernels(f), ref)
print(f"{len(files)} lab files, {len(seeds)} seeds, kernels consistent")
PY

tree=$(ls -d "${MGLRULAB_CACHE_DIR:-kernels/cache}"/trees/tar-*/ 2>/dev/null | head -1)
# The cache's tree is also the builds' work tree: its files hold whatever
# series the last build applied (the next build resets it first), and a
# seed's patch checked against them failed once its own kernel was the last
# built. Check against the tree's base commit, through an index of the
# test's own, never its files. (safe.directory: the tree is the build
# user's, and this test may run as root.)
tgit() { git -c safe.directory='*' -C "$tree" "$@"; }
if [ -n "$tree" ] && tgit rev-parse -q --verify mglrulab-base >/dev/null 2>&1; then
	GIT_INDEX_FILE=$TMP/base.index tgit read-tree mglrulab-base || fail "cannot read $tree's mglrulab-base"
	applies() { GIT_INDEX_FILE=$TMP/base.index tgit apply --cached --check "$PWD/$1"; }
else
	applies() { (cd "$tree" && git apply --check "$OLDPWD/$1"); }
fi
for p in examples/series/*.patch; do
	files=$(git apply --numstat "$p" | awk '{ print $3 }')
	[ -n "$files" ] || fail "$p: no files"
	for f in $files; do
		case $f in *.c) ;; *) fail "$p touches $f: not a .c file (a full kernel rebuild)";; esac
	done
	if [ -z "$tree" ]; then
		# No extracted tree in the cache: take the files from the archive.
		tree=$TMP/src
		mkdir -p "$tree"
		# shellcheck disable=SC2046
		tar -xJf /usr/src/linux-source-6.12.tar.xz -C "$tree" --strip-components=1 \
			$(for q in examples/series/*.patch; do git apply --numstat "$q" | awk '{ print "linux-source-6.12/" $3 }'; done | sort -u) ||
			fail "cannot read the 6.12 archive"
	fi
	applies "$p" || fail "$p does not apply to 6.12 ($tree)"
done
echo "ok: examples check, share their kernels, and their series apply (.c only)"
