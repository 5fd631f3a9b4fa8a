#!/usr/bin/env bash
# An A/B session on two hosts at once (docs/hosts.md): the embedded driver
# and a real libvirtd reached over qemu+ssh (tests/lib/hosts.sh), one slot
# each, so two guests run at the same time. Every block (its baseline and
# patched run) must stay on one host, and each record names its host and
# slot. Half-way, the daemon is stopped: the run it had in flight is
# recorded as failed with the host's name and the time, its remaining
# blocks finish on the embedded host, no completed run is lost, and the
# report's failed runs say which host dropped. The daemon's accelerator
# comes from a KVM probe through it (TCG here). A session naming a host
# that never answers fails at the start (exit 2), naming it and its URI;
# one whose cpus cannot hold the guest is refused with FILE:LINE. The daemon started again
# holds no guest and at most the cut run's three volumes; the test
# removes its pool.
# Paired (run-all): it asserts records, hosts and statuses, no metric; the
# daemon, sshd, port, pool, known_hosts, state and reports are its own
# (tests/lib/hosts.sh). About 30 s.
# run-all: paired
# run-all: cost 32
. "$(dirname "$0")/../lib/common.sh"
. "$(dirname "$0")/../lib/hosts.sh"
hosts_need
need_kernel_source

trap 'hosts_stop; rm -rf "$TMP"' EXIT
hosts_start "$TMP"
# ab-small.conf's kernels and guest on the two hosts
hosts_lab_conf "$TMP"

t0=$(date +%s)
"$LAB" run --ab --fail-on none -c "$TMP/lab.conf" >"$TMP/out" 2>"$TMP/err" &
pid=$!
# Stop the daemon once it has finished a run of its own, with runs to go.
stopped=0
for _ in $(seq 600); do
	kill -0 $pid 2>/dev/null || break
	if grep -qs '"host": "remote"' "$TMP"/reports/*/runs/*.json; then
		n=$(ls "$TMP"/reports/*/runs/*.json | wc -l)
		hosts_daemon_stop
		stopped=$(date +%s)
		echo "stopped the daemon after $n records"
		break
	fi
	sleep 0.2
done
# The session's end, bounded: a session that hangs after the drop fails
# here with what it was doing, instead of holding the suite until run-all's
# limit.
for _ in $(seq 4500); do
	kill -0 $pid 2>/dev/null || break
	sleep 0.2
done
if kill -0 $pid 2>/dev/null; then
	echo "the session has not ended 15 minutes after the drop; its threads:" >&2
	for t in /proc/$pid/task/*; do
		echo "  $(basename "$t") $(cat "$t/comm") wchan=$(cat "$t/wchan") syscall=$(cut -d' ' -f1 "$t/syscall")" >&2
	done
	ps -o pid,ppid,stat,etime,cmd --ppid $pid >&2
	stacks_of $pid >&2
	tail -30 "$TMP/err" >&2
	kill $pid; sleep 10; kill -KILL $pid 2>/dev/null
	fail "the session hung after the remote host dropped"
fi
wait $pid
rc=$?
[ "$stopped" != 0 ] || { tail -20 "$TMP/err"; fail "no run finished on the remote host"; }
[ $rc -eq 0 ] || { tail -30 "$TMP/err"; fail "the session exited $rc"; }
grep -q "host remote (.*) dropped at .*; its runs go to the other hosts" "$TMP/err" ||
	{ tail -30 "$TMP/err"; fail "the drop was not said"; }
d=$(readlink -f "$TMP/reports/latest")
python3 - "$d" <<'PY' || fail "the session's runs"
import json, glob, os, sys
d = sys.argv[1]
ctx = json.load(open(os.path.join(d, "session.json")))
assert [h["name"] for h in ctx["hosts"]] == ["local", "remote"], ctx["hosts"]
# the daemon's KVM probed through it: KVM cannot boot a kernel here (DESIGN.md)
remote = ctx["hosts"][1]
assert remote["accel"] == "tcg" and remote["accel_reason"].startswith("host remote: "), remote
runs = [json.load(open(p)) for p in glob.glob(os.path.join(d, "runs", "*.json"))]
planned = {p["seq"] for p in ctx["plan"]}
seqs = [r["seq"] for r in runs]
assert len(seqs) == len(set(seqs)), "a run was done twice"
assert set(seqs) == planned, ("runs missing", planned - set(seqs))
hosts = {r["host"] for r in runs}
assert hosts == {"local", "remote"}, hosts
assert all(r["slot"] == 0 for r in runs), [r["slot"] for r in runs]
# One slot on each host: a run's partners are the runs beside it on its
# own host's other slots, so none here (the other host's guest shares no
# emulator with it; they were recorded as partners before).
assert all(r.get("partners") == [] for r in runs if "partners" in r), \
    [(r["seq"], r["host"], r["partners"]) for r in runs if r.get("partners")]
assert any("partners" in r for r in runs), "no run records its partners"
ok_remote = [r for r in runs if r["host"] == "remote" and r["status"] == "ok"]
assert ok_remote, ("no remote run counted", [(r["seq"], r["status"], (r.get("failure") or "")[:300])
                                               for r in runs if r["host"] == "remote"])
failed = [r for r in runs if r["status"] != "ok"]
assert len(failed) <= 1, [(r["seq"], r["host"], r["failure"][:200]) for r in failed]
for r in failed:
    assert r["host"] == "remote" and "host remote (" in r["failure"] and "dropped at 20" in r["failure"], r["failure"]
# a block's runs on one host, except the one the drop cut
by_block = {}
for r in runs:
    if r.get("block"):
        by_block.setdefault((r["workload"], r["block"]), set()).add(r["host"])
split = [b for b, h in by_block.items() if len(h) > 1]
assert len(split) <= 1 and (not split or failed), split
print(f"{len(runs)} runs: {sum(r['host'] == 'remote' for r in runs)} on remote "
      f"({len(ok_remote)} ok), {len(failed)} failed by the drop")
PY
if grep -q "dropped" "$d"/runs/*.json; then
	# (report.txt wraps its lines)
	sed 's/^ *//' "$d/report.txt" | tr '\n' ' ' | grep -q "failed: host remote .* dropped at 20" ||
		fail "report.txt does not say the host dropped"
fi
t1=$(date +%s)
# The daemon back: the guest it had in flight is gone, and hosts_stop can
# remove the pool and its volumes.
hosts_daemon_start
for _ in $(seq 50); do
	[ -z "$(hosts_virsh list --name)" ] && break
	sleep 0.2
done
[ -z "$(hosts_virsh list --name)" ] || fail "the daemon still has a guest: $(hosts_virsh list --name)"
# The in-flight run's overlay, job and console volumes cannot be deleted over a
# dead connection: at most those three are left (docs/hosts.md), never more.
left=$(hosts_virsh vol-list "$HOSTS_POOL" | awk '{print $1}' | grep -cv -e '^mglrulab-kernel-' -e '^mglrulab-image-')
[ "$left" -le 3 ] || fail "$left volumes other than kernels and images were left: $(hosts_virsh vol-list "$HOSTS_POOL")"

# A host that never answers: an error at the start naming it and its URI (exit 2).
sed -e "s|^uri = qemu+ssh.*|uri = qemu+ssh://root@127.0.0.1:1/system?no_verify=1\&no_tty=1|" \
    -e "s|^\[host remote\]|[host gone]|" -e "s|^hosts = local remote|hosts = local gone|" \
    "$TMP/lab.conf" >"$TMP/gone.conf"
"$LAB" run --ab -c "$TMP/gone.conf" >/dev/null 2>"$TMP/gone.err"
rc=$?
[ $rc -eq 2 ] || { cat "$TMP/gone.err"; fail "a session with a host that does not answer exited $rc, expected 2"; }
grep -q "host gone (qemu+ssh://root@127.0.0.1:1/" "$TMP/gone.err" || fail "the dead host is not named: $(tail -3 "$TMP/gone.err")"
# A slot's CPUs that cannot hold the guest: refused before anything runs, with FILE:LINE.
sed -e "s|^\[host local\]|[host local]\ncpus = 0|" -e "s|^hosts = local remote|hosts = local|" \
    "$TMP/lab.conf" >"$TMP/cpus.conf"
"$LAB" run --ab -c "$TMP/cpus.conf" >/dev/null 2>"$TMP/cpus.err"
rc=$?
[ $rc -eq 1 ] || { cat "$TMP/cpus.err"; fail "a host whose cpus cannot hold the guest exited $rc, expected 1"; }
grep -q "cpus.conf:[0-9]*: \[host local\] cpus: 1 slot x 2 CPUs need 2 CPUs" "$TMP/cpus.err" ||
	fail "the cpus error lacks FILE:LINE: $(cat "$TMP/cpus.err")"
echo "session on two hosts with the daemon stopped half-way: $((t1 - t0)) s"
echo ok
