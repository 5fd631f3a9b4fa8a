#!/usr/bin/env bash
# `kernel list` prints patch subjects and meta.json fields: a subject that
# carries terminal escapes (a title change, a screen clear) is shown with
# '?' in place of each control character, never raw. No kernel is built:
# the cache entry is written by hand.
# run-all: quick
. "$(dirname "$0")/../lib/common.sh"

key=$(printf '%064d' 0 | tr 0 a)
mkdir -p "$TMP/cache/entries/$key" || fail "cannot create the fake cache"
python3 - "$TMP/cache/entries/$key/meta.json" <<'PY' || fail "cannot write meta.json"
import json, sys
json.dump({"key": "a" * 64, "name": "evil\u001b[31m", "built_at": "2026-11-30T11:00:00Z",
           "sizes": {"bzImage": 1048576},
           "subjects": ["[PATCH] mm: \u001b]0;pwned\u0007\u001b[2J\u009b31mdone"]},
          open(sys.argv[1], "w"))
PY
MGLRULAB_CACHE_DIR=$TMP/cache "$LAB" kernel list >"$TMP/out" 2>"$TMP/err"
rc=$?
cat "$TMP/out" "$TMP/err"
[ $rc -eq 0 ] || fail "kernel list: exit status $rc"
grep -q 'evil?\[31m' "$TMP/out" || fail "the kernel name is not shown filtered"
grep -q '\[PATCH\] mm: ?\]0;pwned??\[2J?31mdone' "$TMP/out" || fail "the subject is not shown filtered"
# No control character but the line ends may reach the terminal.
if LC_ALL=C grep -q $'[\x01-\x09\x0b-\x1f\x7f]' "$TMP/out" "$TMP/err"; then
	fail "control characters reached the terminal"
fi

# A meta.json whose key points outside the cache: gc must remove the entry
# folder it found, nothing else ("../.." would be this test's own folder).
mkdir -p "$TMP/cache/outside-sentinel"
python3 - "$TMP/cache/entries/$key/meta.json" <<'PY' || fail "cannot rewrite meta.json"
import json, sys
m = json.load(open(sys.argv[1]))
m["key"] = "../.."
json.dump(m, open(sys.argv[1], "w"))
PY
printf '[kernel k]\nsource = %s/src\n[guest tiny]\nfile = %s/guests/tiny.conf\n[run]\nkernels = k\nworkloads = yield_pingpong\n' \
	"$TMP" "$ROOT" > "$TMP/lab.conf"
mkdir -p "$TMP/src"
MGLRULAB_CACHE_DIR=$TMP/cache "$LAB" kernel gc -c "$TMP/lab.conf" >"$TMP/gc.out" 2>&1
cat "$TMP/gc.out"
[ -d "$TMP/cache/outside-sentinel" ] || fail "kernel gc removed a folder outside entries/"
[ ! -d "$TMP/cache/entries/$key" ] || fail "kernel gc kept the unreferenced entry"
echo ok
