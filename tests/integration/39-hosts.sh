#!/usr/bin/env bash
# Two hosts over libvirt's own connection (docs/hosts.md): the embedded
# driver and a real libvirtd that this test starts with its own config and
# socket folder, reached over qemu+ssh through an sshd on 127.0.0.1 with a
# key made for the test (tests/lib/hosts.sh). A kernel reaches the daemon's
# pool only through volume streams: the pool folder is created by the
# daemon, and mglrulab runs in a mount namespace where that folder's parent
# is an empty tmpfs, so nothing it wrote there itself could land in the
# real one. A second upload sends nothing; a partial upload (made with
# virsh) and one killed half-way (SIGKILL) are sent again; a file written
# while it is sent is refused, not committed under its old hash;
# a run's overlay has the image as its backing store; doctor reports both
# hosts, and an unreachable one by name and URI. A guest runs on the daemon
# (guest run --host): kernel, image, overlay, job and console log are volumes there, the
# console and results come back as streams into the local run folder, the
# run's volumes are deleted after it, a second run uploads nothing, a
# console over its cap destroys the guest, and a run with a 9p share is
# refused. No daemon, pool, volume or domain is left. About 45 s; the
# baseline kernel is cached by the guest tests before it.
# run-all: timeout 600
# Paired (run-all): its checks are statuses, files, volumes and streams,
# never a time or rate on the host's clock; the daemon, sshd, port, pool,
# known_hosts and state folder are its own (tests/lib/hosts.sh).
# run-all: paired
# run-all: cost 40
. "$(dirname "$0")/../lib/common.sh"
. "$(dirname "$0")/../lib/guest.sh"
. "$(dirname "$0")/../lib/hosts.sh"
hosts_need
command -v unshare >/dev/null || skip "no unshare (util-linux)"
need_lab_kernel
[ -x build/guest/yield_pingpong ] || skip "build/guest/yield_pingpong not built"

trap 'hosts_stop; rm -rf "$TMP"' EXIT
hosts_start "$TMP"
HOSTB=$TMP/hostb
mkdir -p "$HOSTB"

cat >"$TMP/lab.conf" <<CONF
[lab]
state_dir = $TMP/state
[guest tiny]
file = $ROOT/guests/tiny.conf
[host local]
[host remote]
uri = $HOSTS_URI
pool = $HOSTS_POOL
pool_dir = $HOSTB/pool
[run]
guest = tiny
hosts = local remote
CONF
"$LAB" config check -c "$TMP/lab.conf" >"$TMP/check.out" || { cat "$TMP/check.out"; fail "config check"; }
grep -q "^\[host remote\]" "$TMP/check.out" || fail "config check does not show the hosts"
# mglrulab with $HOSTB hidden under an empty tmpfs (its own mount namespace)
lab_ns_now() {
	unshare --mount --propagation private -- sh -c 'mount -t tmpfs none "$1" && shift && exec "$@"' \
		sh "$HOSTB" "$LAB" -q "$@"
}
# Every step is bounded (tests/lib/common.sh): this test hung twice in CI
# (2026-12-05, 2026-12-07) with nothing to say where; a step that hangs
# now fails in 180 s with its threads' stacks. (Each takes seconds.)
STEP_S=180
lab_ns() { bounded $STEP_S lab_ns_now "$@"; }
lab() { bounded $STEP_S "$LAB" "$@"; }
# wait_bounded PID WHAT: wait for a step started in the background
wait_bounded() {
	local i
	for ((i = 0; i < STEP_S * 10; i++)); do
		kill -0 "$1" 2>/dev/null || { wait "$1"; return; }
		sleep 0.1
	done
	{ echo "FAIL: hung for $STEP_S s: $2; its threads:"; stacks_of "$1"; } >&"$TEST_STDERR"
	fail "$2 hung"
}

# ---- doctor: both hosts; then one that does not answer ----
lab doctor -c "$TMP/lab.conf" --json >"$TMP/doctor.json"
python3 - "$TMP/doctor.json" <<'PY' || { cat "$TMP/doctor.json"; fail "doctor's host checks"; }
import json, sys
c = {x["check"]: x for x in json.load(open(sys.argv[1]))["checks"]}
for h in ("local", "remote"):
    for k in ("reachable", "memory", "CPUs"):
        assert c[f"host {h}: {k}"]["status"] == "ok", c[f"host {h}: {k}"]
    q = c[f"host {h}: QEMU"]
    assert q["status"] in ("ok", "warn") and "qemu-system-x86_64" in q["detail"], q
assert "embedded driver has no storage" in c["host local: pool"]["detail"]
p = c["host remote: pool"]
assert p["status"] == "ok" and "creates it as a dir pool" in p["detail"], p
PY
[ ! -e "$HOSTB/pool" ] || fail "doctor created the pool"
# The daemon's host key went to this test's known_hosts (tests/lib/hosts.sh's
# ssh wrapper), never to the user's: run-all runs the host tests two at a time.
# (ssh-keygen -F: Debian's ssh_config hashes the names in known_hosts)
ssh-keygen -F "[127.0.0.1]:$HOSTS_PORT" -f "$HOSTS_KNOWN" >/dev/null ||
	fail "the host key is not in $HOSTS_KNOWN"
for k in /root/.ssh/known_hosts ~/.ssh/known_hosts; do
	[ -e "$k" ] || continue
	ssh-keygen -F "[127.0.0.1]:$HOSTS_PORT" -f "$k" >/dev/null && fail "the test wrote $k"
done

sed "s/127.0.0.1:$HOSTS_PORT/127.0.0.1:1/" "$TMP/lab.conf" >"$TMP/down.conf"
lab doctor -c "$TMP/down.conf" >"$TMP/down.out" 2>&1
rc=$?
[ $rc = 2 ] || fail "doctor with an unreachable host exited $rc, not 2"
grep -q "FAIL  host remote: reachable .*host remote (qemu+ssh://root@127.0.0.1:1/system" "$TMP/down.out" ||
	{ cat "$TMP/down.out"; fail "the unreachable host is not named with its URI"; }
lab doctor -c "$TMP/down.conf" --json >"$TMP/down.json"
python3 - "$TMP/doctor.json" "$TMP/down.json" <<'PY' || fail "the unreachable host is not the one new failure"
import json, sys
up, down = (json.load(open(f)) for f in sys.argv[1:])
was = {x["check"] for x in up["checks"] if x["status"] == "FAIL"}
new = [c["check"] for c in down["checks"] if c["status"] == "FAIL" and c["check"] not in was]
assert new == ["host remote: reachable"], new
PY

# ---- the kernel: uploaded once, only through libvirt ----
ksum=$(sha256sum "$KERNEL" | cut -d' ' -f1)
vol=mglrulab-kernel-$ksum
lab_ns host upload -c "$TMP/lab.conf" --json "$KERNEL" >"$TMP/up1.json" || fail "first upload"
[ "$(json_get "$TMP/up1.json" '[h["uploaded"] for h in d]')" = "[False, True]" ] ||
	fail "first upload: expected local as is, remote uploaded: $(cat "$TMP/up1.json")"
[ "$(json_get "$TMP/up1.json" 'd[0]["path"]')" = "$(realpath "$KERNEL")" ] ||
	fail "the embedded host does not use the local file"
[ "$(json_get "$TMP/up1.json" 'd[1]["path"]')" = "$HOSTB/pool/$vol" ] || fail "remote path: $(cat "$TMP/up1.json")"
[ -d "$HOSTB/pool" ] || fail "the daemon did not create the pool folder"
[ "$(sha256sum "$HOSTB/pool/$vol" | cut -d' ' -f1)" = "$ksum" ] || fail "the pool's volume is not the kernel"
[ -e "$HOSTB/pool/$vol.complete" ] || fail "no completion marker"

lab_ns host upload -c "$TMP/lab.conf" --json "$KERNEL" >"$TMP/up2.json" || fail "second upload"
[ "$(json_get "$TMP/up2.json" 'd[1]["uploaded"]')" = False ] || fail "the second upload sent the kernel again"

# ---- a partial upload (the data volume without its marker, made through libvirt) ----
hosts_virsh vol-delete --pool "$HOSTS_POOL" "$vol.complete" >/dev/null || fail "cannot drop the marker"
head -c 65536 /dev/zero >"$TMP/zeros"
hosts_virsh vol-upload --pool "$HOSTS_POOL" "$vol" "$TMP/zeros" || fail "cannot damage the volume"
[ "$(sha256sum "$HOSTB/pool/$vol" | cut -d' ' -f1)" != "$ksum" ] || fail "the damage did not land"
lab_ns host upload -c "$TMP/lab.conf" --host remote --json "$KERNEL" >"$TMP/up3.json" 2>"$TMP/up3.err" ||
	fail "upload after a partial one"
[ "$(json_get "$TMP/up3.json" 'd[0]["uploaded"]')" = True ] || fail "a partial upload was taken as complete"
grep -q "unfinished upload" "$TMP/up3.err" || fail "the partial upload was not reported"
[ "$(sha256sum "$HOSTB/pool/$vol" | cut -d' ' -f1)" = "$ksum" ] || fail "the re-upload is not the kernel"

# ---- an upload killed half-way leaves no marker, and is sent again ----
head -c 96M /dev/urandom >"$TMP/big"
bsum=$(sha256sum "$TMP/big" | cut -d' ' -f1)
bvol=mglrulab-kernel-$bsum
# (unshare directly in the background, so that $! is the pid mglrulab gets)
unshare --mount --propagation private -- sh -c 'mount -t tmpfs none "$1" && shift && exec "$@"' \
	sh "$HOSTB" "$LAB" -q host upload -c "$TMP/lab.conf" --host remote "$TMP/big" >/dev/null 2>&1 &
up=$!
# the volume exists (sparse, full size) as soon as the upload starts: kill then
for _ in $(seq 200); do [ -e "$HOSTB/pool/$bvol" ] && break; sleep 0.05; done
[ -e "$HOSTB/pool/$bvol" ] || fail "the big upload did not start"
kill -9 $up
wait $up 2>/dev/null
for _ in $(seq 50); do hosts_virsh vol-info --pool "$HOSTS_POOL" "$bvol" >/dev/null 2>&1 && break; sleep 0.1; done
[ ! -e "$HOSTB/pool/$bvol.complete" ] || fail "a killed upload has its marker"
[ "$(sha256sum "$HOSTB/pool/$bvol" | cut -d' ' -f1)" != "$bsum" ] || fail "the upload finished before the kill"
lab_ns host upload -c "$TMP/lab.conf" --host remote --json "$TMP/big" >"$TMP/big.json" 2>"$TMP/big.err" ||
	fail "upload after a killed one"
[ "$(json_get "$TMP/big.json" 'd[0]["uploaded"]')" = True ] ||
	{ cat "$TMP/big.json" "$TMP/big.err"; ls -la "$HOSTB/pool"; fail "a killed upload was taken as complete"; }
[ "$(sha256sum "$HOSTB/pool/$bvol" | cut -d' ' -f1)" = "$bsum" ] || fail "the re-upload after a kill is not the file"
hosts_virsh vol-delete --pool "$HOSTS_POOL" "$bvol" >/dev/null
hosts_virsh vol-delete --pool "$HOSTS_POOL" "$bvol.complete" >/dev/null

# ---- a file written while it is sent is not committed under its old hash ----
# (hashed, then sent from one descriptor, the bytes checked as they go:
# before, the file was hashed by path and its new last bytes went up
# under the old content's name, marker and all)
unshare --mount --propagation private -- sh -c 'mount -t tmpfs none "$1" && shift && exec "$@"' \
	sh "$HOSTB" "$LAB" -q host upload -c "$TMP/lab.conf" --host remote "$TMP/big" >/dev/null 2>"$TMP/chg.err" &
up=$!
for _ in $(seq 200); do [ -e "$HOSTB/pool/$bvol" ] && break; sleep 0.05; done
[ -e "$HOSTB/pool/$bvol" ] || fail "the upload of the file to change did not start"
head -c 4096 /dev/urandom | dd of="$TMP/big" bs=4096 seek=$((96 * 256 - 1)) conv=notrunc status=none
wait_bounded $up "the upload of a file written while it is sent"
rc=$?
[ $rc != 0 ] || fail "a file written while it was sent was uploaded"
grep -q "the file for $bvol changed while it was sent" "$TMP/chg.err" || { cat "$TMP/chg.err"; fail "the change was not named"; }
[ ! -e "$HOSTB/pool/$bvol.complete" ] || fail "the changed file was committed under its old hash"
[ ! -e "$HOSTB/pool/$bvol" ] || fail "the changed file's volume was left"
rm -f "$TMP/big"

# ---- the image, and a run's overlay on it ----
qemu-img create -q -f qcow2 "$TMP/image.qcow2" 64M
lab_ns host upload -c "$TMP/lab.conf" --host remote --kind image --overlay run-1.qcow2 --keep-overlay \
	--json "$TMP/image.qcow2" >"$TMP/ov1.json" || fail "image upload with an overlay"
base=$(json_get "$TMP/ov1.json" 'd[0]["path"]')
[ "$(json_get "$TMP/ov1.json" 'd[0]["format"]')" = qcow2 ] || fail "the image is not seen as qcow2"
qemu-img info --output=json "$HOSTB/pool/run-1.qcow2" >"$TMP/info.json" || fail "no overlay in the pool"
[ "$(json_get "$TMP/info.json" 'd["backing-filename"]')" = "$base" ] || fail "overlay not backed by the image"
[ "$(json_get "$TMP/info.json" 'd["virtual-size"]')" = 67108864 ] || fail "overlay size"
lab_ns host upload -c "$TMP/lab.conf" --host remote --kind image --overlay run-2.qcow2 --json \
	"$TMP/image.qcow2" >"$TMP/ov2.json" || fail "image upload with an overlay deleted after use"
[ "$(json_get "$TMP/ov2.json" 'd[0]["uploaded"]')" = False ] || fail "the image was sent twice"
[ ! -e "$HOSTB/pool/run-2.qcow2" ] || fail "the overlay was not deleted"

# ---- a guest on the daemon: everything through the connection ----
export MGLRULAB_CONFIG=$TMP/lab.conf
lab_ns guest run tiny "${KARGS[@]}" --host remote --workload yield_pingpong --arg cpus=1 \
	--arg duration=1 --arg warmup=0 --timeout 60 --json --run-dir "$TMP/run1" >"$TMP/run1.json" 2>"$TMP/run1.err" ||
	{ cat "$TMP/run1.err"; head -c 3000 "$TMP/run1.json"; fail "guest run on the daemon"; }
python3 - "$TMP/run1.json" "$TMP/run1" "$HOSTB/pool" <<'PY' || fail "the run on the daemon"
import json, sys
d = json.load(open(sys.argv[1]))
run, pool = sys.argv[2], sys.argv[3]
assert d["status"] == "ok", d["failure"]
assert d["host"]["name"] == "remote" and not d["host"]["host_error"], d["host"]
# the kernel went up earlier in this test: only the guest image is new
assert d["host"]["volumes_uploaded"] == 1, d["host"]
assert any(r["type"] == "metric" and r["name"] == "cs_per_sec_per_cpu_1cpu" and r["value"] > 0
           for r in d["records"]), d["records"]
lines = [json.loads(l) for l in open(f"{run}/results.jsonl")]
assert lines[0]["type"] == "hello" and lines[-1]["type"] == "done", (lines[0], lines[-1])
con = open(f"{run}/console.log", errors="replace").read()
# the first byte the kernel wrote is there: the streams were open before it ran
assert con.startswith("Linux version"), con[:200]
assert "reboot: Power down" in con, con[-500:]
# the domain named paths in the pool only, nothing of this machine
xml = open(f"{run}/domain.xml").read()
assert f"<kernel>{pool}/mglrulab-kernel-" in xml, xml
assert f"<source file='{pool}/mglrulab-run-" in xml, xml
assert f"<entry name='opt/org.mglrulab/job' file='{pool}/mglrulab-run-" in xml, xml
# the console's bytes come from QEMU's own log of it, a volume of the run
assert f"<log file='{pool}/mglrulab-run-" in xml and ".console' append='off'/>" in xml, xml
assert run not in xml and "type='file'>\n      <source path" not in xml, xml
PY
if command -v virt-xml-validate >/dev/null && command -v xmllint >/dev/null; then
	virt-xml-validate "$TMP/run1/domain.xml" domain >/dev/null 2>"$TMP/xml.err" ||
		fail "the remote domain's XML (with its console log) is not libvirt's schema: $(cat "$TMP/xml.err")"
fi
[ -z "$(ls "$HOSTB/pool" | grep mglrulab-run-)" ] || fail "the run's volumes were left: $(ls "$HOSTB/pool")"
[ -z "$(hosts_virsh list --all --name)" ] || fail "a domain was left on the daemon"
# a second run finds every volume there
lab_ns guest boot tiny "${KARGS[@]}" --host remote --json --run-dir "$TMP/run2" >"$TMP/run2.json" 2>"$TMP/run2.err" ||
	{ cat "$TMP/run2.err"; fail "second guest run on the daemon"; }
[ "$(json_get "$TMP/run2.json" 'd["host"]["volumes_uploaded"]')" = 0 ] || fail "the second run uploaded: $(cat "$TMP/run2.json")"
# the caps hold on streams: a console over its (lowered) cap destroys the guest
MGLRULAB_TEST_CONSOLE_MAX=4096 lab_ns guest boot tiny "${KARGS[@]}" --host remote --run-dir "$TMP/run4" \
	>/dev/null 2>"$TMP/run4.err" && fail "a console over its cap ran on"
grep -q "console.log grew to 4097 bytes, over GUEST_CONSOLE_LOG_MAX (4096 bytes.*the guest was destroyed" \
	"$TMP/run4.err" || fail "console cap on the daemon: $(cat "$TMP/run4.err")"
[ "$(stat -c %s "$TMP/run4/console.log")" = 4096 ] || fail "the streamed console was not cut to its cap"
[ -z "$(hosts_virsh list --all --name)" ] || fail "the capped guest was left on the daemon"
# 9p shares are folders of this machine: refused on the daemon, before anything is sent
lab_ns guest run tiny "${KARGS[@]}" --host remote --workload yield_pingpong --share "$TMP:tools" \
	--run-dir "$TMP/run3" >/dev/null 2>"$TMP/run3.err" && fail "a 9p share ran on the daemon"
grep -q "workload yield_pingpong needs the 9p share tools ($TMP), a folder on this machine, which a run on host remote cannot reach" \
	"$TMP/run3.err" || fail "9p share on the daemon: $(cat "$TMP/run3.err")"
[ -z "$(ls "$HOSTB/pool" | grep mglrulab-run-)" ] || fail "the refused run left volumes"

# ---- nothing left behind ----
[ -z "$(hosts_virsh list --all --name)" ] || fail "a domain was left on the daemon"
pid=$HOSTS_LIBVIRTD_PID
hosts_stop
[ -z "$(ls -A "$HOSTB/pool")" ] || fail "volumes left in the pool: $(ls "$HOSTB/pool")"
kill -0 "$pid" 2>/dev/null && fail "libvirtd still runs"
exit 0
