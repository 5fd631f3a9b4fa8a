#!/usr/bin/env bash
# Opening the lab's libvirt connection destroys the domains a dead
# mglrulab left, judged by the owner tag in their <metadata>
# (lab/guest/domain_owner.h), and nothing else named like the lab's
# (issue 27, item 12: on a daemon several jobs share, the pid in another
# job's domain name may be a dead pid here).
#
# In a state folder of its own, beside each other, paused (nothing boots):
#   -0  the lab's own XML (guest boot --print-xml, with its real tag) of a
#       process that has exited: its orphan, gone after the open;
#   -1  the same, tagged with another machine-id;
#   -2  the same, tagged with another boot of this machine-id (a clone);
#   -3  the same, tagged with another PID namespace (and state folder:
#       a tag of this locked state folder is ours whatever its namespace);
#   -4  the same without a tag (another program, or an older mglrulab);
#   -5  tagged with this machine, boot and namespace, another state
#       folder and the pid of a live process (this shell, its start time);
#   -6  like -0 but tagged with another state folder: gone by its dead pid.
# -1 to -4 carry the dead pid in their names, which is all the old rule
# looked at: it destroyed them. After `mglrulab doctor` opens the folder
# only -0 and -6 are gone, each with a warning saying why, and -4 is
# named with the command that destroys it.
# run-all: paired
# run-all: cost 25
. "$(dirname "$0")/../lib/common.sh"
. "$(dirname "$0")/../lib/guest.sh"
need_lab_kernel
command -v virsh >/dev/null || skip "no virsh (apt-get install libvirt-clients)"

STATE=$TMP/state
URI="qemu:///embed?root=$STATE/libvirt"
virsh_embed() { virsh -q -c "$URI" "$@" 2> >(grep -v -e ' info : ' -e ' warning : ' >&2); }
cleanup() {
	local d
	for d in $(virsh_embed list --name 2>/dev/null); do
		virsh_embed destroy "$d" >/dev/null 2>&1
	done
	rm -rf "$TMP"
}
trap cleanup EXIT

cat >"$TMP/lab.conf" <<CONF
[lab]
state_dir = $STATE
[guest tiny]
file = $ROOT/guests/tiny.conf
CONF
# the lab sets up its embedded root (qemu.conf) as it does for every run
"$LAB" doctor -c "$TMP/lab.conf" --state "$STATE" >"$TMP/doctor0.out" 2>&1
[ -f "$STATE/libvirt/etc/qemu.conf" ] || { cat "$TMP/doctor0.out"; fail "no embedded root set up"; }

mkdir -p "$TMP/run"
echo '{}' >"$TMP/run/job.json"
"$LAB" guest boot tiny "${KARGS[@]}" --accel tcg --no-image --state "$STATE" --run-dir "$TMP/run" \
	--print-xml >"$TMP/ours.xml" || fail "guest boot --print-xml"

python3 - "$TMP" "$STATE" $$ <<'PY' || fail "cannot write the domains"
import re, sys
tmp, state, shell = sys.argv[1], sys.argv[2], int(sys.argv[3])
xml = open(f"{tmp}/ours.xml").read()
m = re.search(r"<mglrulab:owner [^>]*\bpid='(\d+)'", xml)
assert m, "the lab's domain XML carries no owner tag:\n" + xml
dead = m.group(1)
start = open(f"/proc/{shell}/stat").read().rsplit(")", 1)[1].split()[19]
def attr(x, k, v):
    return re.sub(r"(<mglrulab:owner [^>]*\b%s=')[^']*'" % k, lambda m: m.group(1) + v + "'", x, 1)
def named(x, name):
    return re.sub(r"<name>[^<]*</name>", "<name>%s</name>" % name, x, 1)
variants = {
    0: xml,
    1: attr(xml, "machine", "0123456789abcdef0123456789abcdef"),
    2: attr(xml, "boot", "11111111-2222-3333-4444-555555555555"),
    3: attr(attr(xml, "pidns", "4026500000"), "state", "/elsewhere/.lab"),
    4: re.sub(r"\s*<metadata>.*?</metadata>", "", xml, flags=re.S),
    5: attr(attr(attr(xml, "pid", str(shell)), "start", start), "state", "/elsewhere/.lab"),
    6: attr(xml, "state", "/elsewhere/.lab"),
}
for k, x in variants.items():
    name = "mglrulab-%s-%d" % (shell if k == 5 else dead, k)
    open(f"{tmp}/d{k}.xml", "w").write(named(x, name))
    print(name)
PY
names=$(python3 - "$TMP" <<'PY'
import re, sys
for k in range(7):
    print(re.search(r"<name>([^<]*)</name>", open(f"{sys.argv[1]}/d{k}.xml").read()).group(1))
PY
)
cmds=
for k in 0 1 2 3 4 5 6; do cmds+="create $TMP/d$k.xml --paused; "; done
virsh_embed "$cmds" >"$TMP/create.out" || { cat "$TMP/create.out"; fail "virsh could not create the domains"; }
[ "$(virsh_embed list --name | grep -c .)" = 7 ] || fail "not 7 domains: $(virsh_embed list --name)"

# the lab opens its state folder: the cleanup runs
"$LAB" doctor -c "$TMP/lab.conf" --state "$STATE" >"$TMP/doctor.out" 2>&1
left=$(virsh_embed list --name | sort)
echo "left: $(echo $left)"
want=$(echo "$names" | grep -e '-[12345]$' | sort)
if [ "$left" != "$want" ]; then
	cat "$TMP/doctor.out"
	fail "expected exactly $(echo $want) to be left, not $(echo $left)"
fi
n() { echo "$names" | grep -e "-$1\$"; }
grep -q "destroying domain $(n 0) left by a dead mglrulab: .*used this state folder" "$TMP/doctor.out" ||
	{ cat "$TMP/doctor.out"; fail "no warning for $(n 0)"; }
grep -q "destroying domain $(n 6) left by a dead mglrulab: its mglrulab (pid [0-9]*) is gone" "$TMP/doctor.out" ||
	{ cat "$TMP/doctor.out"; fail "no warning for $(n 6)"; }
grep -q "left domain $(n 1) alone: .*on another machine" "$TMP/doctor.out" || fail "-1 not mentioned"
grep -q "left domain $(n 2) alone: .*in another boot" "$TMP/doctor.out" || fail "-2 not mentioned"
grep -q "left domain $(n 3) alone: .*in another PID namespace" "$TMP/doctor.out" || fail "-3 not mentioned"
grep -qF "left domain $(n 4) alone: named like the lab's, but it carries no mglrulab owner tag" "$TMP/doctor.out" &&
	grep -qF "virsh -c '$URI' destroy $(n 4)" "$TMP/doctor.out" || { cat "$TMP/doctor.out"; fail "-4 not mentioned"; }
grep -q "$(n 5)" "$TMP/doctor.out" && fail "the live owner's domain was mentioned at the default level"
echo ok
