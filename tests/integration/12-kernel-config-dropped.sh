#!/usr/bin/env bash
# A fragment option Kconfig cannot set (unmet dependency) stops the build
# before compiling, naming the option; exit status 1.
. "$(dirname "$0")/../lib/common.sh"
need_kernel_source

printf 'CONFIG_USB_STORAGE=y\n' > "$TMP/impossible.config"
cat > "$TMP/lab.conf" <<EOC
[kernel dropped]
source = /usr/src/linux-source-6.12.tar.xz
fragments = $ROOT/kernels/configs/lab-guest.config $TMP/impossible.config
[guest tiny]
file = $ROOT/guests/tiny.conf
EOC
"$LAB" kernel build -c "$TMP/lab.conf" > "$TMP/out" 2> "$TMP/err"
rc=$?
cat "$TMP/err"
[ $rc -eq 1 ] || fail "expected exit status 1, got $rc"
grep -q "Kconfig dropped 1 option the fragments request" "$TMP/err" || fail "no dropped-option message"
grep -q "CONFIG_USB_STORAGE: requested y, got nothing (unmet dependencies)" "$TMP/err" || fail "option not named"
grep -q "compile" "$TMP/out" && fail "it went on to compile"
echo ok
