// SPDX-License-Identifier: GPL-2.0
#include "domain_xml.h"
#include "escape.h"
#include "guest_protocol.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

/* "  <tag attr='VALUE'/>" helpers keep the generator readable. */
static void add_text_elem(struct strbuf *sb, const char *indent, const char *tag, const char *text)
{
	sb_addf(sb, "%s<%s>", indent, tag);
	sb_add_xml(sb, text);
	sb_addf(sb, "</%s>\n", tag);
}

static int has_cputune(const struct guest_topology *t)
{
	if (t->emulatorpin)
		return 1;
	for (int v = 0; v < t->vcpus; v++)
		if (t->vcpupin[v])
			return 1;
	return 0;
}

static int has_numatune(const struct guest_topology *t)
{
	if (t->numatune_nodes)
		return 1;
	for (int i = 0; i < t->nr_nodes; i++)
		if (t->nodes[i].host_nodes)
			return 1;
	return 0;
}

static void add_tuning(struct strbuf *sb, const struct guest_topology *t)
{
	const char *mode = t->numatune_mode ? t->numatune_mode : "strict";

	if (t->hugepage_kib || t->nosharepages) {
		sb_adds(sb, "  <memoryBacking>\n");
		if (t->hugepage_kib)
			sb_addf(sb, "    <hugepages><page size='%llu' unit='KiB'/></hugepages>\n",
				(unsigned long long)t->hugepage_kib);
		if (t->nosharepages)
			sb_adds(sb, "    <nosharepages/>\n");
		sb_adds(sb, "  </memoryBacking>\n");
	}
	if (has_cputune(t)) {
		sb_adds(sb, "  <cputune>\n");
		for (int v = 0; v < t->vcpus; v++)
			if (t->vcpupin[v]) {
				sb_addf(sb, "    <vcpupin vcpu='%d' cpuset='", v);
				sb_add_xml(sb, t->vcpupin[v]);
				sb_adds(sb, "'/>\n");
			}
		if (t->emulatorpin) {
			sb_adds(sb, "    <emulatorpin cpuset='");
			sb_add_xml(sb, t->emulatorpin);
			sb_adds(sb, "'/>\n");
		}
		sb_adds(sb, "  </cputune>\n");
	}
	if (has_numatune(t)) {
		sb_adds(sb, "  <numatune>\n");
		if (t->numatune_nodes) {
			sb_addf(sb, "    <memory mode='%s' nodeset='", mode);
			sb_add_xml(sb, t->numatune_nodes);
			sb_adds(sb, "'/>\n");
		}
		for (int i = 0; i < t->nr_nodes; i++)
			if (t->nodes[i].host_nodes) {
				sb_addf(sb, "    <memnode cellid='%d' mode='%s' nodeset='", i,
					!strcmp(mode, "interleave") ? "interleave" :
					!strcmp(mode, "preferred") ? "preferred" : "strict");
				sb_add_xml(sb, t->nodes[i].host_nodes);
				sb_adds(sb, "'/>\n");
			}
		sb_adds(sb, "  </numatune>\n");
	}
}

static void add_cpu(struct strbuf *sb, const struct guest_topology *t, enum guest_accel accel)
{
	/* TCG: QEMU's default CPU model; KVM: the host's, so results mean the host. */
	if (accel == ACCEL_KVM)
		sb_adds(sb, "  <cpu mode='host-passthrough' check='none'>\n");
	else
		sb_adds(sb, "  <cpu>\n");
	sb_adds(sb, "    <numa>\n");
	for (int i = 0; i < t->nr_nodes; i++) {
		const struct guest_node *n = &t->nodes[i];

		sb_addf(sb, "      <cell id='%d'", i);
		/* a memory-only node has no cpus attribute (libvirt >= 6.6) */
		if (cpuset_count(&n->cpus)) {
			sb_adds(sb, " cpus='");
			cpuset_format(&n->cpus, sb);
			sb_adds(sb, "'");
		}
		sb_addf(sb, " memory='%llu' unit='MiB'", (unsigned long long)n->memory_mib);
		if (!t->has_distances) {
			sb_adds(sb, "/>\n");
			continue;
		}
		sb_adds(sb, ">\n        <distances>\n");
		for (int j = 0; j < t->nr_nodes; j++)
			sb_addf(sb, "          <sibling id='%d' value='%d'/>\n", j, n->distances[j]);
		sb_adds(sb, "        </distances>\n      </cell>\n");
	}
	sb_adds(sb, "    </numa>\n  </cpu>\n");
}

/* <os>: the machine, and the kernel booted directly with its command line. */
static void add_os(struct strbuf *sb, const struct domain_spec *s)
{
	const struct guest_topology *t = s->topo;

	sb_adds(sb, "  <os>\n    <type arch='x86_64' machine='");
	sb_add_xml(sb, t->machine ? t->machine : "pc");
	sb_adds(sb, "'>hvm</type>\n");
	add_text_elem(sb, "    ", "kernel", s->kernel);
	if (s->initrd)
		add_text_elem(sb, "    ", "initrd", s->initrd);
	add_text_elem(sb, "    ", "cmdline", s->cmdline);
	sb_adds(sb, "  </os>\n");
}

/* The console and the results channel: files, or streams over the connection. */
static void add_console_and_channel(struct strbuf *sb, const struct domain_spec *s)
{
	if (s->streams) {
		/*
		 * Read over the connection (domain_streams.c): the console as a pty
		 * (opened while the domain is still paused: QEMU drops what the
		 * serial port sends to a pty nobody holds open), the results
		 * port as a UNIX socket QEMU listens on, in a folder libvirt
		 * picks (virDomainOpenChannel() takes nothing else; until it
		 * connects, the guest's writes to the port wait).
		 */
		sb_adds(sb, "    <serial type='pty'>\n");
		if (s->console_host_log) {
			sb_adds(sb, "      <log file='");
			sb_add_xml(sb, s->console_host_log);
			sb_adds(sb, "' append='off'/>\n");
		}
		sb_adds(sb, "      <target port='0'/>\n    </serial>\n"
			"    <channel type='unix'>\n      <source mode='bind'/>\n"
			"      <target type='virtio' name='" GUEST_CHANNEL_NAME "'/>\n    </channel>\n");
	} else {
		sb_adds(sb, "    <serial type='file'>\n      <source path='");
		sb_add_xml(sb, s->console_log);
		sb_adds(sb, "'/>\n      <target port='0'/>\n    </serial>\n");
	}
	if (s->channel_log && !s->streams) {
		sb_adds(sb, "    <channel type='file'>\n      <source path='");
		sb_add_xml(sb, s->channel_log);
		sb_adds(sb, "'/>\n      <target type='virtio' name='" GUEST_CHANNEL_NAME "'/>\n    </channel>\n");
	}
}

/* <devices>: the disk, console, channel and shares, and nothing else. */
static void add_devices(struct strbuf *sb, const struct domain_spec *s)
{
	sb_adds(sb, "  <devices>\n");
	if (s->disk) {
		sb_adds(sb, "    <disk type='file' device='disk'>\n"
			"      <driver name='qemu' type='qcow2' cache='writeback'/>\n"
			"      <source file='");
		sb_add_xml(sb, s->disk);
		sb_adds(sb, "'/>\n      <target dev='vda' bus='virtio'/>\n    </disk>\n");
	}
	add_console_and_channel(sb, s);
	for (int i = 0; i < s->nr_shares; i++) {
		sb_adds(sb, "    <filesystem type='mount' accessmode='passthrough'>\n      <source dir='");
		sb_add_xml(sb, s->shares[i].host_dir);
		sb_adds(sb, "'/>\n      <target dir='");
		sb_add_xml(sb, s->shares[i].tag);
		sb_adds(sb, "'/>\n      <readonly/>\n    </filesystem>\n");
	}
	/* nothing the run does not need: no USB, no balloon, no network, no graphics */
	sb_adds(sb, "    <controller type='usb' model='none'/>\n"
		"    <memballoon model='none'/>\n");
	sb_adds(sb, "  </devices>\n");
}

char *domain_xml(const struct domain_spec *s)
{
	const struct guest_topology *t = s->topo;
	struct strbuf sb = STRBUF_INIT;

	int icount = s->accel == ACCEL_TCG && t->icount_shift >= 0;
	const char *plugin = s->accel == ACCEL_TCG ? s->qemu_plugin : NULL;

	/* libvirt has no element for -icount: the QEMU namespace passes it on. */
	sb_addf(&sb, "<domain type='%s'%s>\n", s->accel == ACCEL_KVM ? "kvm" : "qemu",
		icount || plugin ? " xmlns:qemu='http://libvirt.org/schemas/domain/qemu/1.0'" : "");
	add_text_elem(&sb, "  ", "name", s->name);
	/* who started it: what a later mglrulab judges a leftover by (domain_owner.h) */
	if (s->owner)
		domain_owner_xml(s->owner, "  ", &sb);
	sb_addf(&sb, "  <memory unit='MiB'>%llu</memory>\n", (unsigned long long)t->memory_mib);
	sb_addf(&sb, "  <vcpu placement='static'>%d</vcpu>\n", t->vcpus);
	add_tuning(&sb, t);
	if (s->job) {
		/* the job travels as a fw_cfg file: no disk, no command-line limit */
		sb_adds(&sb, "  <sysinfo type='fwcfg'>\n    <entry name='" GUEST_FWCFG_JOB_NAME "' file='");
		sb_add_xml(&sb, s->job);
		sb_adds(&sb, "'/>\n  </sysinfo>\n");
	}
	add_os(&sb, s);
	/* without ACPI and APIC the guest sees neither all vCPUs nor the NUMA nodes, and cannot power off */
	sb_adds(&sb, "  <features>\n    <acpi/>\n    <apic/>\n  </features>\n");
	add_cpu(&sb, t, s->accel);
	sb_adds(&sb, "  <clock offset='utc'/>\n");
	/* every way out of the guest ends the domain: the run is over */
	sb_adds(&sb, "  <on_poweroff>destroy</on_poweroff>\n"
		"  <on_reboot>destroy</on_reboot>\n"
		"  <on_crash>destroy</on_crash>\n");
	add_devices(&sb, s);
	/*
	 * sleep=off: when every vCPU is idle, guest time jumps to the next
	 * timer instead of waiting for the host's clock, so an idle guest
	 * costs no wall time and nothing of the host's pace leaks in.
	 */
	if (icount || plugin)
		sb_adds(&sb, "  <qemu:commandline>\n");
	if (icount)
		sb_addf(&sb, "    <qemu:arg value='-icount'/>\n"
			"    <qemu:arg value='shift=%d,sleep=off'/>\n", t->icount_shift);
	if (plugin) {
		sb_adds(&sb, "    <qemu:arg value='-plugin'/>\n    <qemu:arg value='");
		sb_add_xml(&sb, plugin);
		sb_adds(&sb, "'/>\n");
	}
	if (icount || plugin)
		sb_adds(&sb, "  </qemu:commandline>\n");
	sb_adds(&sb, "</domain>\n");
	return sb_detach(&sb);
}
