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
	guest_state_seed
	# MGLRULAB_TEST_INITRD: only to try the plumbing with a distribution kernel
	KARGS=(--kernel "$KERNEL" ${MGLRULAB_TEST_INITRD:+--initrd "$MGLRULAB_TEST_INITRD"})
}

# Each test has a state folder of its own: run-all runs guest tests two at a
# time, and an embedded libvirt root serves one process at a time. The guest
# image and the KVM probe's answer are made once, in the shared folder
# ($MGLRULAB_TEST_STATE, default .lab/test-guests) under a lock, and
# hard-linked (the probe: copied) into the test's: an image is written once,
# under a new name, and renamed, so a link never sees it change.
GUEST_SHARED_STATE=${MGLRULAB_TEST_STATE:-$ROOT/.lab/test-guests}
export MGLRULAB_STATE_DIR=$TMP/state

# guest_state_seed: the shared image and probe (made if missing), into $TMP/state
guest_state_seed() {
	mkdir -p "$GUEST_SHARED_STATE" "$MGLRULAB_STATE_DIR" || fail "cannot create the state folders"
	# the default lab's probe answers for this host too
	if [ ! -f "$GUEST_SHARED_STATE/kvm-probe.json" ] && [ -f "$ROOT/.lab/kvm-probe.json" ]; then
		cp "$ROOT/.lab/kvm-probe.json" "$GUEST_SHARED_STATE/.probe.$$" &&
			mv -f "$GUEST_SHARED_STATE/.probe.$$" "$GUEST_SHARED_STATE/kvm-probe.json"
	fi
	# A boot in the shared folder makes both (once per machine); the image
	# alone when the probe is there.
	flock "$GUEST_SHARED_STATE/.seed.lock" bash -c '
		lab=$1 shared=$2 kernel=$3
		if [ ! -f "$shared/kvm-probe.json" ]; then
			"$lab" -q guest boot tiny --kernel "$kernel" --state "$shared" >/dev/null
		else
			"$lab" -q guest image --state "$shared" >/dev/null
		fi' seed "$LAB" "$GUEST_SHARED_STATE" "$KERNEL" ||
		fail "cannot make the shared guest image in $GUEST_SHARED_STATE"
	if [ ! -d "$MGLRULAB_STATE_DIR/images" ] && [ -d "$GUEST_SHARED_STATE/images" ]; then
		cp -al "$GUEST_SHARED_STATE/images" "$MGLRULAB_STATE_DIR/images" 2>/dev/null ||
			rm -rf "$MGLRULAB_STATE_DIR/images"
	fi
	[ -f "$GUEST_SHARED_STATE/kvm-probe.json" ] && cp "$GUEST_SHARED_STATE/kvm-probe.json" "$MGLRULAB_STATE_DIR/"
	return 0
}

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
