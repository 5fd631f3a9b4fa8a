#!/usr/bin/env bash
# The lab without root (docs/security.md, "The lab without root"): as the
# user nobody, with a state folder of its own, mglrulab builds the guest
# image with libguestfs and boots tiny through libvirt's embedded driver;
# QEMU runs as nobody, with libvirt's seccomp sandbox; qemu.conf names no
# user (naming root made libvirt create its dbus folder as uid 0: "Operation
# not permitted", no guest could start); doctor says the build sandbox works
# as this user. A host kernel this user may not read (SUPERMIN_KERNEL at a
# 0600 file: the fault of Debian's 0600 /boot/vmlinuz-*, without touching
# /boot) stops the image build before libguestfs, naming the file and the
# fix. Root only: it has to become someone else.
# run-all: paired
# run-all: cost 45
. "$(dirname "$0")/../lib/common.sh"
. "$(dirname "$0")/../lib/guest.sh"
[ "$(id -u)" = 0 ] || skip "needs root to run the lab as nobody"
command -v setpriv >/dev/null || skip "no setpriv (util-linux)"
need_lab_kernel
nobody_gid=$(id -g nobody) || skip "no user nobody"

# nobody's corner of $TMP (mktemp made it 0700, root's), with copies of the
# lab, its guest programs and configurations and the kernel: the checkout
# and the kernel cache may be where nobody cannot look (a clone under /root)
chmod 0755 "$TMP"
U=$TMP/u
mkdir -p "$U/tmp" "$U/lab/build" || fail "cannot make $U"
cp "$LAB" "$U/lab/mglrulab" && cp -r build/guest "$U/lab/build/guest" && cp -r guests "$U/lab/guests" &&
	cp "$KERNEL" "$U/bzImage" || fail "cannot copy the lab into $U"
chown -R nobody: "$U" || fail "cannot give $U to nobody"
KERNEL=$U/bzImage LAB=$U/lab/mglrulab
cd "$U/lab" || fail "cannot enter $U/lab"

as_nobody() {
	setpriv --reuid=nobody --regid="$nobody_gid" --clear-groups \
		env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME="$U" TMPDIR="$U/tmp" \
		LIBGUESTFS_CACHEDIR="$U/tmp" ${SUPERMIN_KERNEL:+SUPERMIN_KERNEL="$SUPERMIN_KERNEL"} "$@"
}

as_nobody "$LAB" guest boot tiny --kernel "$KERNEL" --accel tcg --state "$U/state" \
	--run-dir "$U/run" > "$TMP/boot.out" 2>&1 || { cat "$TMP/boot.out"; fail "nobody's guest boot failed"; }
grep -q "topology verified" "$TMP/boot.out" || fail "no verified topology: $(cat "$TMP/boot.out")"
grep -qE '^(user|group) *=' "$U/state/libvirt/etc/qemu.conf" &&
	fail "nobody's qemu.conf names a user: $(cat "$U/state/libvirt/etc/qemu.conf")"
log=$(ls "$U"/state/libvirt/log/qemu/*.log 2>/dev/null | head -1)
[ -n "$log" ] || fail "no QEMU log in nobody's embedded root"
grep -q -- "-sandbox on" "$log" || fail "QEMU ran without the seccomp sandbox: $(grep -m1 qemu-system "$log")"
for f in "$U/run/console.log" "$U/run/results.jsonl" "$(ls "$U"/state/images/*.qcow2 | head -1)"; do
	[ "$(stat -c %U "$f")" = nobody ] || fail "$f is $(stat -c %U "$f")'s, not nobody's"
done
[ -z "$(find "$U" -user root -print -quit)" ] || fail "root's files in nobody's folder: $(find "$U" -user root | head -3)"

as_nobody "$LAB" doctor --state "$U/state" > "$TMP/doctor.out" 2>&1
grep -qE '^ok +build sandbox +bubblewrap, as this user' "$TMP/doctor.out" ||
	fail "doctor: no build sandbox as nobody: $(grep -i sandbox "$TMP/doctor.out")"
grep -qE '^ok +running as +uid [0-9]+: the embedded driver runs QEMU as this user' "$TMP/doctor.out" ||
	fail "doctor does not say QEMU runs as this user: $(grep -i running "$TMP/doctor.out")"

# a kernel nobody may not read: said before libguestfs tries, with the fix
printf 'not a kernel\n' > "$TMP/vmlinuz-root-only" && chmod 0600 "$TMP/vmlinuz-root-only"
SUPERMIN_KERNEL=$TMP/vmlinuz-root-only as_nobody "$LAB" guest image --state "$U/state2" \
	> "$TMP/image.out" 2>&1 && fail "an image was built with a kernel nobody cannot read"
grep -q "SUPERMIN_KERNEL=$TMP/vmlinuz-root-only: not a kernel this user may read" "$TMP/image.out" ||
	fail "no clear error for the unreadable kernel: $(cat "$TMP/image.out")"
echo "nobody: image and boot ok ($(grep -o 'boot to runner: [0-9.]* s' "$TMP/boot.out"))"
exit 0
