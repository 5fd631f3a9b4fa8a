#!/usr/bin/env bash
# A host that stops answering mid-session without closing its connection
# (hung, cut off the network, its libvirtd wedged): test 40 stops the
# daemon, which closes the connection at once; here it is frozen
# (SIGSTOP) while both hosts run guests, so the TCP connection stays up
# and nothing answers. libvirt's calls have no timeout: before keepalive
# the session waited in virDomainCreateXML() for as long as the daemon
# was frozen, then counted the run as the guest's boot timeout. Now the
# keepalive (LAB_VIRT_KEEPALIVE_S x LAB_VIRT_KEEPALIVE_COUNT, about 35 s)
# closes the connection, the host is dropped ("the connection closed"),
# its runs go to the embedded host and the session finishes: every
# planned run once, at most the cut one failed, naming the host. Thawed,
# the daemon holds no guest (AUTODESTROY).
# Paired (run-all): the keepalive's 35 s are idle; what it asserts is that
# the session ends, and its records, never a time on the host's clock
# beyond the 180 s it allows; the daemon, sshd, port, pool, known_hosts,
# state and reports are its own (tests/lib/hosts.sh).
# run-all: paired
# run-all: cost 46
. "$(dirname "$0")/../lib/common.sh"
. "$(dirname "$0")/../lib/hosts.sh"
hosts_need
need_kernel_source

thaw() { [ -n "${HOSTS_LIBVIRTD_PID:-}" ] && kill -CONT "$HOSTS_LIBVIRTD_PID" 2>/dev/null; }
# (hosts_stop reads how the test ends from $?: thaw's must not hide it)
trap 'rc=$?; thaw; (exit $rc); hosts_stop; rm -rf "$TMP"' EXIT
hosts_start "$TMP"
# ab-small.conf's kernels and guest on the two hosts
hosts_lab_conf "$TMP"

"$LAB" run --ab --fail-on none -c "$TMP/lab.conf" >"$TMP/out" 2>"$TMP/err" &
pid=$!
# Freeze the daemon once it has finished a run and has a guest again.
frozen=0
for _ in $(seq 900); do
	kill -0 $pid 2>/dev/null || break
	if grep -qs '"host": "remote"' "$TMP"/reports/*/runs/*.json && [ -n "$(hosts_virsh list --name)" ]; then
		kill -STOP "$HOSTS_LIBVIRTD_PID"
		frozen=$(date +%s)
		echo "froze the daemon after $(ls "$TMP"/reports/*/runs/*.json | wc -l) records, a guest on it"
		break
	fi
	sleep 0.2
done
[ "$frozen" != 0 ] || { thaw; wait $pid; tail -20 "$TMP/err"; fail "no guest ran on the remote host"; }
# Keepalive drops it in about 35 s; give the session 180 s, then thaw.
while kill -0 $pid 2>/dev/null && [ $(( $(date +%s) - frozen )) -lt 180 ]; do
	sleep 1
done
hung=0
kill -0 $pid 2>/dev/null && hung=$(( $(date +%s) - frozen ))
thaw
wait $pid
rc=$?
[ "$hung" = 0 ] || { tail -5 "$TMP/err"; fail "the session still waited on the frozen host $hung s after it froze"; }
[ $rc -eq 0 ] || { tail -30 "$TMP/err"; fail "the session exited $rc"; }
grep -q "host remote (.*) dropped at .*: the connection closed; its runs go to the other hosts" "$TMP/err" ||
	{ tail -30 "$TMP/err"; fail "the drop was not said"; }
d=$(readlink -f "$TMP/reports/latest")
python3 - "$d" <<'PY' || fail "the session's runs"
import json, glob, os, sys
d = sys.argv[1]
ctx = json.load(open(os.path.join(d, "session.json")))
runs = [json.load(open(p)) for p in glob.glob(os.path.join(d, "runs", "*.json"))]
seqs = [r["seq"] for r in runs]
assert len(seqs) == len(set(seqs)), "a run was done twice"
assert set(seqs) == {p["seq"] for p in ctx["plan"]}, "runs missing"
failed = [r for r in runs if r["status"] != "ok"]
assert len(failed) <= 1, [(r["seq"], r["host"], r["failure"][:200]) for r in failed]
for r in failed:
    assert r["host"] == "remote" and "dropped at 20" in r["failure"] and "connection closed" in r["failure"], r["failure"]
print(f"{len(runs)} runs, {sum(r['host'] == 'remote' for r in runs)} on remote, {len(failed)} failed by the hang")
PY
# Thawed, the daemon sees our connection gone and destroys the guest it ran for us.
for _ in $(seq 100); do
	[ -z "$(hosts_virsh list --name)" ] && break
	sleep 0.2
done
[ -z "$(hosts_virsh list --name)" ] || fail "the daemon still has a guest: $(hosts_virsh list --name)"
echo "the frozen host was dropped and the session finished $(( $(date +%s) - frozen )) s after the freeze"
echo ok
