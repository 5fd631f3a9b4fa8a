# Shared helpers for the integration tests (sourced).
# Every test runs from the repository root with ./mglrulab built.
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"
LAB="$ROOT/mglrulab"
TMP=$(mktemp -d /tmp/mglrulab-it.XXXXXX)
trap '[ -n "${KEEP_TMP:-}" ] || rm -rf "$TMP"' EXIT
# Stopped by run-all at its time limit (TERM to the test's process group):
# name the command it was in (the hung step), then exit, which runs the
# test's EXIT trap, its cleanup (a daemon it started, its domains), rather
# than dying without it. stopped_hook, when a library defines it, adds what
# it knows (tests/lib/hosts.sh: the daemon's log).
trap 'echo "FAIL: stopped by SIGTERM (past its time limit?) in: $BASH_COMMAND" >&2
	declare -F stopped_hook >/dev/null && stopped_hook
	exit 143' TERM

fail() { echo "FAIL: $*" >&2; exit 1; }
# stacks_of PID: the threads of PID and of every process under it, one line
# each ("mglrulab 1234/1236: poll < virNetClientIOEventLoop < ..."): where
# a hung step waits, short enough to survive into CI's last lines. Shells
# and timeouts are left out (their wait says nothing). Needs gdb (bounded).
stacks_of() {
	local p pids=$1 todo=$1 comm
	while [ -n "$todo" ]; do
		todo=$(for p in $todo; do pgrep -P "$p"; done | tr '\n' ' ')
		pids="$pids $todo"
	done
	command -v gdb >/dev/null || { echo "  (no gdb: no stacks)"; return 0; }
	for p in $pids; do
		comm=$(cat /proc/"$p"/comm 2>/dev/null) || continue
		case $comm in bash|sh|timeout|sleep|unshare) continue;; esac
		timeout -k 5 30 gdb -q -batch -p "$p" -ex 'thread apply all bt 40' 2>/dev/null |
			awk -v who="$comm $p" '
			function out() { if (line != "") print "  " who "/" lwp ": " line; line = ""; q = 0 }
			/^Thread / { out(); lwp = $0; sub(/.*LWP /, "", lwp); sub(/[)].*/, "", lwp) }
			/^#[0-9]+ / { f = $0; sub(/^#[0-9]+ +/, "", f); sub(/^0x[0-9a-f]+ in /, "", f)
				      sub(/ \(.*/, "", f)
				      # (static functions of a library have no name: one "?" for a run of them)
				      if (f == "??") { if (q) next; q = 1; f = "?" } else q = 0
				      line = line (line == "" ? "" : " < ") f }
			END { out() }'
	done
	return 0
}
# The test's own stderr, for what must reach its log whatever a step's
# output is redirected to (bounded's report of a hang).
exec {TEST_STDERR}>&2
# bounded SECONDS CMD...: CMD (a function too), its status; past SECONDS,
# "FAIL: hung ..." with the stacks of what it runs (stacks_of) on the
# test's stderr, then it is killed and the status is 124. For steps that
# must not hang: a hang names its place at once instead of costing the
# test's whole limit in silence.
bounded() {
	local limit=$1 pid i
	shift
	"$@" &
	pid=$!
	for ((i = 0; i < limit * 10; i++)); do
		kill -0 "$pid" 2>/dev/null || { wait "$pid"; return; }
		sleep 0.1
	done
	{ echo "FAIL: hung for $limit s: $*; its threads:"; stacks_of "$pid"; } >&"$TEST_STDERR"
	pkill -KILL -P "$pid" 2>/dev/null
	kill -KILL "$pid" 2>/dev/null
	wait "$pid"
	return 124
}
skip() { echo "SKIP: $*" >&2; exit 77; }
# json_get FILE EXPR: tiny jq substitute on top of python3's json module.
json_get() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2], {"d": d}))' "$1" "$2"; }
need_kernel_source() {
	[ -f /usr/src/linux-source-6.12.tar.xz ] || skip "no /usr/src/linux-source-6.12.tar.xz (apt-get install linux-source-6.12)"
}
# private_state CONF: point a lab.conf copied into $TMP at a state folder of
# its own, so that run-all may run the test beside another one (a session
# holds its state folder's lock; an embedded libvirt root serves one
# process). The guest images the checkout has built are hard-linked in: an
# image is written once, under a new name, and renamed. So is the KVM
# probe's answer (it is keyed to this host): probing again costs up to 20 s.
private_state() {
	mkdir -p "$TMP/lab" "$ROOT/.lab" || fail "cannot create $TMP/lab"
	# made once, in the checkout's state folder (under a lock: tests run
	# two at a time), whichever test comes first
	flock "$ROOT/.lab/.image.lock" "$LAB" -q guest image --state "$ROOT/.lab" >/dev/null ||
		fail "cannot make the guest image in $ROOT/.lab"
	if [ -d "$ROOT/.lab/images" ] && [ ! -d "$TMP/lab/images" ]; then
		cp -al "$ROOT/.lab/images" "$TMP/lab/images" 2>/dev/null || rm -rf "$TMP/lab/images"
	fi
	[ -f "$ROOT/.lab/kvm-probe.json" ] && cp "$ROOT/.lab/kvm-probe.json" "$TMP/lab/"
	sed -i "s#^state_dir = .*#state_dir = $TMP/lab#" "$1"
	grep -qx "state_dir = $TMP/lab" "$1" || fail "$1 has no state_dir line to move"
}

# private_lab CONF: private_state, and a reports folder of its own (tests
# find their session through REPORTS/latest).
private_lab() {
	private_state "$1"
	mkdir -p "$TMP/reports" || fail "cannot create $TMP/reports"
	sed -i "s#^reports_dir = .*#reports_dir = $TMP/reports#" "$1"
	grep -qx "reports_dir = $TMP/reports" "$1" || fail "$1 has no reports_dir line to move"
	REPORTS=$TMP/reports
}

# fixture_lab NAME: tests/fixtures/labs/NAME.conf copied to $TMP/NAME.conf
# (its relative paths made absolute) with state and reports of its own;
# CONF names the copy.
fixture_lab() {
	CONF=$TMP/$1.conf
	sed "s#\.\./\.\./\.\./#$ROOT/#; s#\.\./series/#$ROOT/tests/fixtures/series/#" \
		"tests/fixtures/labs/$1.conf" > "$CONF" || fail "cannot copy tests/fixtures/labs/$1.conf"
	grep -q '\.\./' "$CONF" && fail "$CONF keeps a relative path: $(grep -n '\.\./' "$CONF")"
	private_lab "$CONF"
}

# wait_new_runs OLD N [TRIES]: wait (0.5 s a try, TRIES default 600) until
# REPORTS/latest is a session other than OLD with at least N run records
# on disk; D is that session (empty when none started). 0 when it has them.
wait_new_runs() {
	local old=$1 want=$2 tries=${3:-600} n
	for _ in $(seq "$tries"); do
		D=$(readlink -f "$REPORTS/latest" 2>/dev/null)
		n=0
		[ -n "$D" ] && [ "$D" != "$old" ] && n=$(ls "$D"/runs/*.json 2>/dev/null | wc -l)
		[ "$n" -ge "$want" ] && return 0
		sleep 0.5
	done
	return 1
}

# stop_within PID SIGNAL SECONDS: send SIGNAL, wait up to SECONDS (tenths
# of a second) for PID to end; past that, kill -9 it and fail naming the
# signal. Then reap it: RC is its exit status, STOP_S how long it took.
stop_within() {
	local pid=$1 sig=$2 limit=$3 t0 t1
	t0=$(date +%s.%N)
	kill "-$sig" "$pid"
	for _ in $(seq $((limit * 10))); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$pid" 2>/dev/null; then
		kill -9 "$pid"
		fail "mglrulab still running $limit s after SIG$sig"
	fi
	t1=$(date +%s.%N)
	wait "$pid"
	RC=$?
	STOP_S=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
}
