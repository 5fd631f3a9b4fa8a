# Helpers of the guest tests (tests/integration/30-*.sh .. 39-*.sh), sourced
# after common.sh. Guests boot the lab-built kernel under the lab's state
# folder for tests (image cache shared between tests and runs).

# The kernel: $MGLRULAB_TEST_KERNEL, else lab.conf's baseline from the
# kernel cache (built first if it is not there: a cache hit normally).
need_lab_kernel() {
	KERNEL=${MGLRULAB_TEST_KERNEL:-}
	if [ -z "$KERNEL" ]; then
		[ -f /usr/src/linux-source-6.12.tar.xz ] ||
			skip "no lab kernel: set MGLRULAB_TEST_KERNEL=bzImage or install linux-source-6.12"
		KERNEL=$("$LAB" -q kernel build --json baseline |
			python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["bzImage"])') ||
			fail "cannot build or find the baseline kernel"
	fi
	[ -f "$KERNEL" ] || fail "no kernel image at $KERNEL"
	[ -x build/guest/mglrulab-runner ] || make -s workloads >/dev/null || fail "cannot build the guest programs"
	# MGLRULAB_TEST_INITRD: only to try the plumbing with a distribution kernel
	KARGS=(--kernel "$KERNEL" ${MGLRULAB_TEST_INITRD:+--initrd "$MGLRULAB_TEST_INITRD"})
}

export MGLRULAB_STATE_DIR=${MGLRULAB_TEST_STATE:-$ROOT/.lab/test-guests}

# lab_bg OUT ERR ARGS...: run mglrulab in the background; LAB_PID is its pid.
lab_bg() {
	local out=$1 err=$2
	shift 2
	"$LAB" "$@" >"$out" 2>"$err" &
	LAB_PID=$!
}

# No QEMU process of mglrulab pid $1 may remain (domains are mglrulab-PID-N).
no_qemu_of() {
	local left
	left=$(pgrep -f -- "-name guest=mglrulab-$1-" || true)
	[ -z "$left" ] || fail "QEMU processes of mglrulab pid $1 remain: $left"
}

# A copy of guests/tiny.conf with other timeouts: tiny_with BOOT RUN > FILE
tiny_with() {
	sed -e "s/^boot_timeout = .*/boot_timeout = $1/" -e "s/^run_timeout = .*/run_timeout = $2/" guests/tiny.conf
}
