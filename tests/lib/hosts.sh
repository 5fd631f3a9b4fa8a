# A libvirt host for tests and benchmarks (sourced after common.sh): a
# libvirtd started here with its own config, sockets and log under $1, and
# an sshd on 127.0.0.1 with a host key and a client key made here, so the
# daemon is reached the way a remote host is: qemu+ssh. There is no systemd
# on the lab's machines; these are plain processes, stopped by hosts_stop.
# The daemon runs in a mount namespace of its own where /etc/libvirt,
# /run/libvirt and /var/log are folders under $1: its qemu.conf is the
# test's (QEMU as root, no virtlogd: the embedded driver's settings,
# DESIGN.md), what it writes there (pool definitions, QEMU's logs) stays in
# the test's folder, and its drivers' pid files (/run/libvirt/*/driver.pid,
# locked while it runs) are its own: another checkout's test daemon, or
# one still shutting down, does not keep it from starting.
#
#   hosts_need                 skip (77) unless root, libvirtd, sshd and nc
#   hosts_start DIR            start both; sets HOSTS_URI (qemu+ssh),
#                              HOSTS_LOCAL_URI (the daemon's unix socket)
#   hosts_virsh ARGS...        virsh on the daemon, through its socket
#   hosts_daemon_stop          stop the daemon alone (a host that drops)
#   hosts_daemon_start         start it again (after hosts_start)
#   hosts_stop                 undefine pool $HOSTS_POOL (and its volumes),
#                              stop both
# The ssh that libvirt's qemu+ssh transport runs (found on PATH) is a
# wrapper of the test's own: its known_hosts is in the test's folder, so
# the user's ~/.ssh is never written and two host tests may run at once
# (run-all pairs them).
HOSTS_LIBVIRTD=/usr/sbin/libvirtd
HOSTS_SSHD=/usr/sbin/sshd
HOSTS_POOL=mglrulab-test-$$

hosts_need() {
	[ "$(id -u)" = 0 ] || skip "needs root (a system libvirtd and an sshd)"
	[ -x "$HOSTS_LIBVIRTD" ] || skip "no $HOSTS_LIBVIRTD (apt-get install libvirt-daemon; scripts/install-deps)"
	[ -x "$HOSTS_SSHD" ] || skip "no $HOSTS_SSHD (apt-get install openssh-server; scripts/install-deps)"
	command -v nc >/dev/null || skip "no nc (apt-get install netcat-openbsd; scripts/install-deps)"
}

# (bounded: a daemon that hangs must fail the test, not hold it)
hosts_virsh() { timeout -k 5 60 virsh -q -c "$HOSTS_LOCAL_URI" "$@"; }

# The daemon alone, stopped (a host that drops) and started again.
hosts_daemon_start() {
	local d=$HOSTS_DAEMON_DIR
	rm -f "$HOSTS_SOCK"
	# (unshare and sh exec: $! is the daemon's pid)
	# (/run/libvirt is made if this machine never ran a libvirtd: a mount
	# point must exist; it is what libvirt's packages create)
	mkdir -p /run/libvirt
	unshare --mount --propagation private -- sh -c \
		'mount --bind "$1/etc" /etc/libvirt && mount --bind "$1/log" /var/log &&
		 mount --bind "$1/state" /run/libvirt && shift && exec "$@"' \
		sh "$d" "$HOSTS_LIBVIRTD" -f "$d/libvirtd.conf" -p "$d/libvirtd.pid" >>"$d/stdout" 2>&1 &
	HOSTS_LIBVIRTD_PID=$!
	for _ in $(seq 100); do [ -S "$HOSTS_SOCK" ] && break; sleep 0.1; done
	[ -S "$HOSTS_SOCK" ] || { cat "$d/stdout" "$d/libvirtd.log" >&2; fail "libvirtd did not start"; }
}

# hosts_kill PID NAME: TERM, then KILL if it is still there 15 s later (a
# daemon's graceful stop may wait on a client's call), and reap it: a test
# never waits on a process without a bound.
hosts_kill() {
	local pid=$1 name=$2
	kill "$pid" 2>/dev/null || { wait "$pid" 2>/dev/null; return 0; }
	for _ in $(seq 150); do
		kill -0 "$pid" 2>/dev/null || break
		[ "$(awk '{print $3}' /proc/"$pid"/stat 2>/dev/null)" = Z ] && break
		sleep 0.1
	done
	if kill -0 "$pid" 2>/dev/null && [ "$(awk '{print $3}' /proc/"$pid"/stat 2>/dev/null)" != Z ]; then
		echo "hosts: $name (pid $pid) still there 15 s after TERM: KILL" >&2
		kill -KILL "$pid" 2>/dev/null
	fi
	wait "$pid" 2>/dev/null
	return 0
}

# (common.sh's TERM trap: a test stopped at its limit shows the daemon's
# last words and what of the test still runs)
stopped_hook() {
	[ -n "${HOSTS_DAEMON_DIR:-}" ] || return 0
	echo "hosts: the end of $HOSTS_DAEMON_DIR/libvirtd.log:" >&2
	tail -n 20 "$HOSTS_DAEMON_DIR/libvirtd.log" >&2 2>/dev/null
	echo "hosts: the test's processes:" >&2
	ps -eo pid,pgid,stat,wchan:24,etime,args |
		awk -v g="$(ps -o pgid= $$ | tr -d ' ')" 'NR == 1 || $2 == g' >&2
	# last, as run-all's digest of a failed test shows its last lines:
	# where mglrulab waits, if the TERM has not ended it yet
	local p
	for p in $(pgrep -g "$(ps -o pgid= $$ | tr -d ' ')" -x mglrulab); do
		echo "hosts: mglrulab $p's threads:" >&2
		stacks_of "$p" >&2
	done
	return 0
}

hosts_daemon_stop() {
	[ -n "${HOSTS_LIBVIRTD_PID:-}" ] || return 0
	hosts_kill "$HOSTS_LIBVIRTD_PID" libvirtd
	HOSTS_LIBVIRTD_PID=
}

hosts_start() {
	local d=$1/daemon s=$1/ssh
	mkdir -p "$d/run" "$s"
	HOSTS_SOCK=$d/run/libvirt-sock
	HOSTS_LOCAL_URI="qemu+unix:///system?socket=$HOSTS_SOCK"
	cat >"$d/libvirtd.conf" <<CONF
listen_tls = 0
listen_tcp = 0
unix_sock_dir = "$d/run"
unix_sock_rw_perms = "0700"
auth_unix_ro = "none"
auth_unix_rw = "none"
log_outputs = "3:file:$d/libvirtd.log"
CONF
	mkdir -p "$d/etc" "$d/log" "$d/state"
	cat >"$d/etc/qemu.conf" <<CONF
user = "root"
group = "root"
security_driver = "none"
stdio_handler = "file"
CONF
	HOSTS_DAEMON_DIR=$d
	hosts_daemon_start
	# (what it logs as it starts, the same every time, is not news: skipped)
	sleep 0.5
	HOSTS_LOG_MARK=$(stat -c %s "$d/libvirtd.log" 2>/dev/null || echo 0)

	HOSTS_PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	ssh-keygen -q -t ed25519 -N '' -f "$s/host_key"
	ssh-keygen -q -t ed25519 -N '' -f "$s/id"
	cp "$s/id.pub" "$s/authorized_keys"
	cat >"$s/sshd_config" <<CONF
ListenAddress 127.0.0.1:$HOSTS_PORT
HostKey $s/host_key
AuthorizedKeysFile $s/authorized_keys
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
PidFile $s/sshd.pid
LogLevel ERROR
CONF
	mkdir -p /run/sshd	# sshd's privilege separation folder (Debian's service creates it)
	"$HOSTS_SSHD" -D -f "$s/sshd_config" -E "$s/sshd.log" &
	HOSTS_SSHD_PID=$!
	for _ in $(seq 50); do
		python3 -c "import socket; socket.create_connection(('127.0.0.1', $HOSTS_PORT), 0.2)" \
			2>/dev/null && break
		sleep 0.1
	done
	HOSTS_KNOWN=$s/known_hosts
	mkdir -p "$s/bin"
	printf '#!/bin/sh\nexec /usr/bin/ssh -o UserKnownHostsFile=%s -o GlobalKnownHostsFile=/dev/null "$@"\n' \
		"$HOSTS_KNOWN" >"$s/bin/ssh" && chmod +x "$s/bin/ssh" || fail "cannot write $s/bin/ssh"
	export PATH="$s/bin:$PATH"
	# netcat=nc: the daemon's socket is ours, not the one virt-ssh-helper would pick
	HOSTS_URI="qemu+ssh://root@127.0.0.1:$HOSTS_PORT/system?keyfile=$s/id&no_verify=1&no_tty=1&socket=$HOSTS_SOCK&netcat=nc"
}

hosts_stop() {
	# (first: in the EXIT trap, $? is how the test ends)
	local rc=$?
	# A failing test ends with the daemon's last errors, which run-all's
	# digest shows: a remote run's failure seen from the host's side.
	if [ "$rc" != 0 ] && [ "$rc" != 77 ] && [ -s "${HOSTS_DAEMON_DIR:-/nonexistent}/libvirtd.log" ]; then
		local errs
		errs=$(tail -c +$((${HOSTS_LOG_MARK:-0} + 1)) "$HOSTS_DAEMON_DIR/libvirtd.log" |
			grep -v '^ *$' | tail -n 6 | cut -c 1-300)
		[ -n "$errs" ] || errs=" none"
		echo "hosts: the daemon's last errors since it started ($HOSTS_DAEMON_DIR/libvirtd.log):
$errs" | sed -e '2,$s/^/  /' -e '2s/^   none$/  (none)/' >&2
	fi
	if [ -n "${HOSTS_SOCK:-}" ] && [ -S "$HOSTS_SOCK" ]; then
		for v in $(hosts_virsh vol-list "$HOSTS_POOL" 2>/dev/null | awk '{print $1}'); do
			hosts_virsh vol-delete --pool "$HOSTS_POOL" "$v" >/dev/null 2>&1
		done
		hosts_virsh pool-destroy "$HOSTS_POOL" >/dev/null 2>&1
		hosts_virsh pool-undefine "$HOSTS_POOL" >/dev/null 2>&1
	fi
	[ -n "${HOSTS_SSHD_PID:-}" ] && hosts_kill "$HOSTS_SSHD_PID" sshd
	[ -n "${HOSTS_LIBVIRTD_PID:-}" ] && hosts_kill "$HOSTS_LIBVIRTD_PID" libvirtd
	HOSTS_SSHD_PID= HOSTS_LIBVIRTD_PID= HOSTS_PORT=
	return 0
}

# hosts_lab_conf DIR: DIR/lab.conf, ab-small.conf's kernels (cached by the
# other session tests) and guest at 6 runs, on two hosts: the embedded
# driver ([host local]) and the daemon hosts_start started ([host remote],
# its pool in DIR/hostb/pool). Reports go to DIR/reports, the state to
# $TMP/lab (private_state).
hosts_lab_conf() {
	local d=$1
	mkdir -p "$d/hostb"
	sed -e "s|^state_dir = .*|state_dir = $ROOT/.lab|" \
	    -e "s|^cache_dir = .*|cache_dir = $ROOT/kernels/cache|" \
	    -e "s|^reports_dir = .*|reports_dir = $d/reports|" \
	    -e "s|\.\./\.\./\.\./|$ROOT/|g" -e "s|\.\./series/|$ROOT/tests/fixtures/series/|" \
	    -e "s|^runs = .*|runs = 6|" \
	    "$ROOT/tests/fixtures/labs/ab-small.conf" >"$d/lab.conf"
	cat >>"$d/lab.conf" <<CONF
[host local]
[host remote]
uri = $HOSTS_URI
pool = $HOSTS_POOL
pool_dir = $d/hostb/pool
CONF
	sed -i "s|^\[run\]|[run]\nhosts = local remote|" "$d/lab.conf"
	# a state folder of its own (an embedded libvirt root serves one process)
	private_state "$d/lab.conf"
}
