#!/usr/bin/env bash
# Every domain the lab would start, under KVM and under TCG, checked by
# libvirt without starting it (issue 25: the first run on a workstation
# with KVM, which the development machines cannot give: their /dev/kvm is
# kvm-pvm, on which stock kernels hang).
# No guest boots and no kernel is built (the XML only names one):
# run-all: quick
# Paired (run-all): no guest, no clock; its libvirt root and state are
# under its own folder.
# run-all: paired
# run-all: cost 13
#
# For each guests/*.conf and examples/guests/*.conf (the full-size guests
# of the seed labs) in three placements (the file as it is; without
# vcpupin/emulatorpin; with every vCPU pinned and emulatorpin over them,
# which is what a [host] with cpus gives slot 0, session_hosts.c
# pin_slots(), here vCPU v on host CPU v modulo this host's CPU count;
# with icount only emulatorpin, since the guest file refuses vcpupin
# there) and for --accel kvm and --accel tcg,
# `mglrulab guest boot --print-xml` prints the domain XML guest_run()
# would start (lab/guest/domain_plan.c; nothing is started, no image or
# probe), and then:
#   1. virt-xml-validate FILE domain: libvirt's RelaxNG schema accepts it;
#   2. virsh -c 'qemu:///embed?root=TMP/libvirt' domxml-to-native qemu-argv:
#      libvirt's QEMU driver, set up as the lab sets up its embedded root
#      (lab/guest/libvirt_conn.c: qemu.conf user/group root,
#      security_driver none, stdio_handler file), parses the XML, checks it
#      against this host's QEMU capabilities and prints QEMU's command line,
#      which must have:
#        kvm: -accel kvm (or accel=kvm), -cpu host, no icount anywhere;
#        tcg: -accel tcg (or accel=tcg), and -icount shift=N,sleep=off
#             exactly when the guest file sets icount;
#        both: one -numa node per [node N] with that node's CPUs and
#             memory, one -numa dist per distance (none when they are all
#             10 and 20: libvirt leaves QEMU's and Linux's defaults,
#             which are those), -smp and -m as declared;
#   3. virsh define + vcpupin/emulatorpin --config + undefine, in the same
#      root: libvirt's own reading of the pins equals the guest file's
#      (QEMU's command line carries no affinity: libvirt applies it to the
#      threads when the domain starts, so this is as far as libvirt goes
#      without starting one). Nothing is started: define only writes the
#      definition under TMP.
# What is not checked: that the domain starts, and that a guest booted so
# sees its topology (tests 30 and 37 do that, under TCG). KVM's command
# line needs a QEMU that offers KVM: libvirt refuses virt type kvm
# (domxml-to-native and define alike) on a host where QEMU's KVM probe
# fails, and takes that from the capabilities it probes on the host
# (it probes again when /dev/kvm no longer matches its cached answer), so
# there is no honest way to fake it. On such a host steps 2 and 3 run for TCG only, the KVM
# XML still goes through step 1, and the test exits 77 naming what it
# could not check. Here /dev/kvm (kvm-pvm) cannot boot a kernel but QEMU's
# probe of it works, which is all steps 2 and 3 need.
. "$(dirname "$0")/../lib/common.sh"

command -v virt-xml-validate >/dev/null || skip "no virt-xml-validate (apt-get install libvirt-clients)"
command -v xmllint >/dev/null || skip "no xmllint, which virt-xml-validate runs (apt-get install libxml2-utils)"
command -v virsh >/dev/null || skip "no virsh (apt-get install libvirt-clients)"
command -v qemu-system-x86_64 >/dev/null || skip "no qemu-system-x86_64 (apt-get install qemu-system-x86)"
getent passwd libvirt-qemu >/dev/null || skip "no user libvirt-qemu (scripts/install-deps creates it)"
[ "$(id -u)" -eq 0 ] || skip "the embedded driver's qemu.conf runs QEMU as root: run as root"

# The embedded root, as lab_virt_open() sets it up: its qemu.conf is the
# string lab/guest/libvirt_conn.c writes (taken from there, so the two
# cannot drift apart); virsh's own files in TMP too.
ROOTDIR=$TMP/libvirt
mkdir -p "$ROOTDIR/etc" "$TMP/home" "$TMP/state" || fail "cannot create $TMP"
python3 - lab/guest/libvirt_conn.c "$ROOTDIR/etc/qemu.conf" <<'PY' || fail "no qemu_conf_root[] in lab/guest/libvirt_conn.c"
import ast, re, sys
src = open(sys.argv[1]).read()
m = re.search(r'static const char qemu_conf_root\[\] =((?:\s*"(?:[^"\\]|\\.)*")+)\s*;', src)
conf = "".join(ast.literal_eval(x) for x in re.findall(r'"(?:[^"\\]|\\.)*"', m.group(1)))
assert 'security_driver = "none"' in conf and 'user = "root"' in conf, conf
open(sys.argv[2], "w").write(conf)
PY
URI="qemu:///embed?root=$ROOTDIR"
export HOME=$TMP/home XDG_CONFIG_HOME=$TMP/home/.config XDG_CACHE_HOME=$TMP/home/.cache
export LIBVIRT_LOG_OUTPUTS="3:file:$TMP/libvirt.log" MGLRULAB_STATE_DIR=$TMP/state
vsh() { virsh -q -c "$URI" "$@"; }
KERNEL=$TMP/bzImage	# the XML only names it
: >"$KERNEL"

kvm_native=1
if ! vsh domcapabilities --virttype kvm --arch x86_64 >/dev/null 2>"$TMP/kvmcaps.err"; then
	kvm_native=0
	echo "note: libvirt offers no KVM here ($(head -c 300 "$TMP/kvmcaps.err")):" \
		"KVM's XML is only schema-checked" >&2
fi

# variant SRC OUT KIND: the guest file SRC with its placement as KIND says (above).
variant() {
	python3 - "$@" <<'PY'
import os, re, sys
src, out, kind = sys.argv[1:]
lines = open(src).read().splitlines()
sec = None
keep = []
for l in lines:
    m = re.match(r'\s*\[([^]]+)\]', l)
    if m:
        sec = m.group(1).strip()
    key = re.match(r'\s*(\w+)\s*=', l)
    if kind != "file" and sec == "placement" and key and key.group(1) in ("vcpupin", "emulatorpin"):
        continue
    keep.append(l)
text = "\n".join(keep) + "\n"
if kind == "pin":
    vcpus = int(re.search(r'(?m)^\s*vcpus\s*=\s*(\d+)', text).group(1))
    icount = re.search(r'(?m)^\s*icount\s*=\s*\d+', text) is not None
    # CPUs this host has: libvirt shows a pin only within them (virsh vcpupin --config)
    cpus = [v % (os.cpu_count() or 1) for v in range(vcpus)]
    add = ([] if icount else ["vcpupin = " + " ".join("%d:%d" % (v, c) for v, c in enumerate(cpus))]) + \
          ["emulatorpin = " + ",".join(str(c) for c in sorted(set(cpus)))]
    if re.search(r'(?m)^\s*\[placement\]', text):
        text = re.sub(r'(?m)^(\s*\[placement\][^\n]*\n)', lambda m: m.group(1) + "\n".join(add) + "\n", text, 1)
    else:
        text += "\n[placement]\n" + "\n".join(add) + "\n"
open(out, "w").write(text)
PY
}

# check XML ARGV PINS GUESTFILE ACCEL: what must be in the XML, the command line and the pins.
check() {
	python3 - "$@" <<'PY'
import configparser, re, sys
xml_f, argv_f, pins_f, conf_f, accel = sys.argv[1:]
xml = open(xml_f).read()
argv = open(argv_f).read() if argv_f != "-" else None
pins = open(pins_f).read() if pins_f != "-" else None
c = configparser.ConfigParser(inline_comment_prefixes=("#", ";"))
c.read(conf_f)
g = c["guest"]
nodes = sorted((s for s in c.sections() if s.startswith("node ")), key=lambda s: int(s.split()[1]))
icount = g.get("icount", "off").strip()
icount = None if icount == "off" else int(icount)
errs = []
def need(cond, what):
    if not cond:
        errs.append(what)
def mib(v):
    v = v.strip()
    mult = {"M": 1, "G": 1024, "T": 1024 * 1024}.get(v[-1], None)
    return int(v[:-1]) * mult if mult else int(v)
def cpulist(s):
    out = []
    for part in s.replace(" ", "").split(","):
        if not part:
            continue
        a, _, b = part.partition("-")
        out += range(int(a), int(b or a) + 1)
    return out

# the XML
need(("<domain type='kvm'" if accel == "kvm" else "<domain type='qemu'") in xml, "domain type for " + accel)
need(xml.count("<cell id=") == len(nodes), "%d NUMA cells in the XML" % len(nodes))
# (paths name the guest, e.g. tiny-icount: look at elements and options only)
if accel == "kvm" or icount is None:
    need("<qemu:commandline>" not in xml and "value='-icount'" not in xml, "no icount in the XML")
else:
    need("<qemu:arg value='-icount'/>\n    <qemu:arg value='shift=%d,sleep=off'/>" % icount in xml,
         "-icount shift=%d,sleep=off in the XML" % icount)
placement = c["placement"] if c.has_section("placement") else {}
vpin = {}
for pair in placement.get("vcpupin", "").split():
    v, _, cpus = pair.partition(":")
    vpin[int(v)] = cpus
for v, cpus in vpin.items():
    need("<vcpupin vcpu='%d' cpuset='%s'/>" % (v, cpus) in xml, "vcpupin %d:%s in the XML" % (v, cpus))
need(xml.count("<vcpupin ") == len(vpin), "%d vcpupin in the XML" % len(vpin))
epin = placement.get("emulatorpin", "").strip()
need(("<emulatorpin cpuset='%s'/>" % epin in xml) if epin else "<emulatorpin" not in xml, "emulatorpin " + (epin or "none"))

# QEMU's command line, as libvirt makes it
if argv is not None:
    a = argv.split()
    args = " ".join(a)
    # every option's value (QEMU options are "-opt value" here), by option
    opt = {}
    for i, x in enumerate(a[:-1]):
        if x.startswith("-") and not x.startswith("--"):
            opt.setdefault(x, []).append(a[i + 1])
    accels = opt.get("-accel", []) + [m.group(1) for v in opt.get("-machine", [])
                                      for m in re.finditer(r"(?:^|,)accel=(\w+)", v)]
    need(accels == [accel], "the accelerator %s alone (got %s)" % (accel, accels))
    if accel == "kvm":
        need(any(v.split(",")[0] == "host" for v in opt.get("-cpu", [])), "-cpu host")
    want_icount = [] if accel == "kvm" or icount is None else ["shift=%d,sleep=off" % icount]
    need(opt.get("-icount", []) == want_icount, "-icount %s (got %s)" % (want_icount, opt.get("-icount")))
    need([v.split(",")[0] for v in opt.get("-smp", [])] == [g["vcpus"].strip()], "-smp " + g["vcpus"])
    total = sum(mib(c[n]["memory"]) for n in nodes)
    need(opt.get("-m", []) in (["%d" % total], ["size=%d" % (total * 1024)]), "-m %d (got %s)" % (total, opt.get("-m")))
    numa = [x for i, x in enumerate(a) if i and a[i - 1] == "-numa" and x.startswith("node,")]
    need(len(numa) == len(nodes), "%d -numa node (got %d: %s)" % (len(nodes), len(numa), numa))
    for i, n in enumerate(nodes):
        want_cpus = cpulist(c[n].get("cpus", ""))
        got = [x for x in numa if re.search(r"nodeid=%d(,|$)" % i, x)]
        if len(got) != 1:
            errs.append("one -numa node,nodeid=%d" % i)
            continue
        got_cpus = []
        for m in re.finditer(r"cpus=([0-9-]+)", got[0]):
            got_cpus += cpulist(m.group(1))
        need(sorted(got_cpus) == want_cpus, "node %d cpus %s (got %s)" % (i, want_cpus, got_cpus))
        memdev = re.search(r"memdev=([\w-]+)", got[0])
        size = memdev and re.search(r'"id":"%s"[^}]*"size":(\d+)' % memdev.group(1), args)
        need(size is not None and int(size.group(1)) == mib(c[n]["memory"]) << 20,
             "node %d memory %s" % (i, c[n]["memory"]))
    dist = [x for i, x in enumerate(a) if i and a[i - 1] == "-numa" and x.startswith("dist,")]
    if "distances" in c[nodes[0]]:
        matrix = [[int(d) for d in c[n]["distances"].split(",")] for n in nodes]
        # libvirt passes none when all are the defaults (10 local, 20 remote):
        # without a -numa dist QEMU builds no SLIT, and Linux then assumes the same
        default = all(d == (10 if i == j else 20) for i, r in enumerate(matrix) for j, d in enumerate(r))
        for i, r in enumerate(matrix):
            for j, d in enumerate(r):
                need("dist,src=%d,dst=%d,val=%d" % (i, j, d) in dist or (default and not dist),
                     "distance %d-%d %d" % (i, j, d))

# the pins as libvirt read them (virsh vcpupin/emulatorpin --config)
if pins is not None:
    table = dict(re.findall(r"(?m)^\s*(\d+)\s+([0-9,-]+)\s*$", pins.split("EMULATOR")[0]))
    emu = re.search(r"(?m)^\s*(?:\*:\s*)?([0-9][0-9,-]*)\s*$", pins.split("EMULATOR", 1)[1])
    for v, cpus in vpin.items():
        need(cpulist(table.get(str(v), "")) == cpulist(cpus), "libvirt's pin of vCPU %d: %s (got %s)" % (v, cpus, table.get(str(v))))
    if epin:
        need(emu is not None and cpulist(emu.group(1)) == cpulist(epin), "libvirt's emulatorpin %s (got %s)" % (epin, emu and emu.group(1)))
if errs:
    print("missing or wrong: " + "; ".join(errs))
    sys.exit(1)
PY
}

n=0 native=0 kvm_skipped=0
for conf in guests/*.conf examples/guests/*.conf; do
	guest=$(basename "$conf" .conf)
	for kind in file nopin pin; do
		gf=$TMP/guests/$guest-$kind.conf
		mkdir -p "$TMP/guests"
		variant "$conf" "$gf" "$kind" || fail "cannot make $gf"
		for accel in kvm tcg; do
			id=$guest-$kind-$accel
			xml=$TMP/$id.xml
			"$LAB" guest boot "$gf" --kernel "$KERNEL" --accel "$accel" --print-xml \
				--run-dir "$TMP/runs/$id" >"$xml" 2>"$TMP/$id.err" ||
				fail "$id: guest boot --print-xml failed: $(cat "$TMP/$id.err")"
			[ ! -e "$TMP/runs/$id" ] || fail "$id: --print-xml created its run folder"
			virt-xml-validate "$xml" domain >"$TMP/$id.valid" 2>&1 ||
				fail "$id: libvirt's schema refuses the XML: $(cat "$TMP/$id.valid")"
			argv=- pins=-
			if [ "$accel" = tcg ] || [ $kvm_native = 1 ]; then
				vsh domxml-to-native qemu-argv "$xml" >"$TMP/$id.argv" 2>"$TMP/$id.argv.err" ||
					fail "$id: libvirt cannot make QEMU's command line: $(cat "$TMP/$id.argv.err")"
				name=$(sed -n "s|.*<name>\(.*\)</name>.*|\1|p" "$xml")
				vsh "define $xml; vcpupin $name --config; echo EMULATOR; emulatorpin $name --config; undefine $name" \
					>"$TMP/$id.pins" 2>"$TMP/$id.pins.err" ||
					fail "$id: libvirt cannot define the domain: $(cat "$TMP/$id.pins.err")"
				argv=$TMP/$id.argv pins=$TMP/$id.pins
				native=$((native + 1))
			else
				kvm_skipped=$((kvm_skipped + 1))
			fi
			out=$(check "$xml" "$argv" "$pins" "$gf" "$accel") ||
				fail "$id: $out
XML: $xml
argv: $(cat "$argv" 2>/dev/null)
pins: $(cat "$pins" 2>/dev/null)"
			n=$((n + 1))
		done
	done
done
# nothing was left defined in the test's root, and nothing ran
left=$(vsh list --all --name 2>/dev/null | grep -c . || true)
[ "$left" = 0 ] || fail "$left domains left defined in $ROOTDIR"
echo "$n domains: schema-valid; $native turned into QEMU's command line and defined by libvirt, as expected"
[ $kvm_skipped -eq 0 ] ||
	skip "$kvm_skipped KVM domains only schema-checked: libvirt offers no KVM on this host (see the note above)"
exit 0
