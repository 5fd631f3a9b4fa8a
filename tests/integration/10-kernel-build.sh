#!/usr/bin/env bash
# Build the real baseline and patched kernels of lab.conf from the 6.12
# tarball (or take them from the cache), then check that the series is in
# the patched tree only, that the images differ, that the lab options
# survived Kconfig, and that a second build is a cache hit.
. "$(dirname "$0")/../lib/common.sh"
need_kernel_source

"$LAB" kernel build --json baseline patched > "$TMP/first.json" || fail "kernel build failed"
"$LAB" kernel build --json baseline patched > "$TMP/second.json" || fail "second kernel build failed"

base_img=$(json_get "$TMP/first.json" 'd[0]["bzImage"]')
patch_img=$(json_get "$TMP/first.json" 'd[1]["bzImage"]')
[ -s "$base_img" ] && [ -s "$patch_img" ] || fail "missing images"
cmp -s "$base_img" "$patch_img" && fail "baseline and patched images are identical"

for i in 0 1; do
	[ "$(json_get "$TMP/second.json" "d[$i]['cache_hit']")" = True ] || fail "second build of kernel $i was not a cache hit"
done

entry=$(dirname "$patch_img")
tree=$(json_get "$entry/meta.json" 'd["tree"]')
head=$(json_get "$entry/meta.json" 'd["head_commit"]')
grep -q "READ_ONCE(mm->lru_gen.bitmap) != -1UL" <(git -c safe.directory="*" -C "$tree" show "$head:include/linux/mm_types.h") ||
	fail "patched tree lacks the series' change"
grep -q "READ_ONCE(mm->lru_gen.bitmap)" <(git -c safe.directory="*" -C "$tree" show "mglrulab-base:include/linux/mm_types.h") &&
	fail "baseline tree has the series' change"
[ "$(json_get "$entry/meta.json" 'd["subjects"][0]')" = \
  "[PATCH 1/1] mm/mglru: avoid the redundant bitmap store in lru_gen_use_mm()" ] || fail "wrong subject in meta.json"

for opt in CONFIG_LRU_GEN=y CONFIG_LRU_GEN_STATS=y CONFIG_NUMA=y CONFIG_MEMCG=y CONFIG_HIST_TRIGGERS=y; do
	grep -qx "$opt" "$entry/config" || fail "$opt missing from the built config"
done
for f in bzImage config System.map build.log meta.json; do
	[ -s "$entry/$f" ] || fail "cache entry lacks $f"
done
"$LAB" kernel list --json > "$TMP/list.json" || fail "kernel list failed"
python3 - "$TMP/list.json" "$(basename "$entry")" <<'PY' || fail "kernel list does not show the patched entry"
import json, sys
keys = [e.get("key") for e in json.load(open(sys.argv[1]))]
sys.exit(0 if sys.argv[2] in keys else 1)
PY
"$LAB" kernel gc --dry-run | grep -q "would remove $entry" && fail "gc would remove a referenced entry"
echo "baseline $(basename "$(dirname "$base_img")" | cut -c1-12), patched $(basename "$entry" | cut -c1-12): ok"
