#!/usr/bin/env bash
# The guest image is a cache hit when its inputs are unchanged, a rebuild
# when one changes, and a run leaves the base image byte-identical.
# run-all: paired
. "$(dirname "$0")/../lib/common.sh"
. "$(dirname "$0")/../lib/guest.sh"
need_lab_kernel

"$LAB" guest image --json >"$TMP/a.json" || fail "guest image failed"
"$LAB" guest image --json >"$TMP/b.json" || fail "second guest image failed"
[ "$(json_get "$TMP/b.json" 'd["cache_hit"]')" = True ] || fail "second image request was not a cache hit"
[ "$(json_get "$TMP/b.json" 'd["appliance_launches"]')" = 0 ] || fail "a cache hit launched an appliance"
img=$(json_get "$TMP/b.json" 'd["image"]')
[ "$img" = "$(json_get "$TMP/a.json" 'd["image"]')" ] || fail "same inputs, different image"

before=$(sha256sum "$img" | cut -d' ' -f1)
"$LAB" guest boot tiny "${KARGS[@]}" --keep-disk --run-dir "$TMP/run" >"$TMP/boot.out" 2>&1 ||
	{ cat "$TMP/boot.out"; fail "boot failed"; }
after=$(sha256sum "$img" | cut -d' ' -f1)
[ "$before" = "$after" ] || fail "the run changed the base image"
qemu-img info "$TMP/run/disk.qcow2" | grep -q "backing file: $(realpath "$img")" || fail "overlay not backed by the image"

# the cache key follows the inputs: same programs, same hash; one more, another
mkdir -p "$TMP/bin"
cp build/guest/* "$TMP/bin/" 2>/dev/null
h0=$("$LAB" guest image --hash) || fail "hash failed"
[ "$("$LAB" guest image --hash --bin-dir "$TMP/bin")" = "$h0" ] || fail "a copy of the same programs hashes differently"
printf '#!/bin/sh\necho changed\n' >"$TMP/bin/extra_tool"
chmod +x "$TMP/bin/extra_tool"
[ "$("$LAB" guest image --hash --bin-dir "$TMP/bin")" != "$h0" ] || fail "a new program did not change the hash"
printf 'x' >>"$TMP/bin/mglrulab-runner"
rm "$TMP/bin/extra_tool"
[ "$("$LAB" guest image --hash --bin-dir "$TMP/bin")" != "$h0" ] || fail "a changed runner did not change the hash"
exit 0
