// SPDX-License-Identifier: GPL-2.0
/*
 * mglrulab doctor, per host: what the host's libvirt offers, asked over the
 * connection (nothing is run on the host by us). The answers come from
 * another machine: they are only quoted, and cmd_doctor.c prints them
 * through the terminal filter.
 */
#include "host.h"
#include "guest_conf.h"
#include "libvirt_conn.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

#include <libvirt/virterror.h>

struct hdoc {
	const struct host_cfg *hc;
	host_report_fn report;
	void *ctx;
};

static void say(struct hdoc *d, enum host_level lv, const char *topic, const char *detail,
		const char *fix)
{
	char *what = xasprintf("host %s: %s", d->hc->name, topic);

	d->report(d->ctx, lv, what, detail, fix);
	free(what);
}

/* The text of the first <@tag> element after @from in @xml, or NULL. */
static char *xml_text(const char *xml, const char *from, const char *tag)
{
	char *open = xasprintf("<%s>", tag), *close = xasprintf("</%s>", tag);
	const char *s = from ? strstr(xml, from) : xml, *e;
	char *r = NULL;

	if (s)
		s = strstr(s, open);
	if (s) {
		s += strlen(open);
		e = strstr(s, close);
		if (e && e - s < 4096)
			r = xstrndup(s, (size_t)(e - s));
	}
	free(open);
	free(close);
	return r;
}

static void check_qemu(struct hdoc *d, virConnectPtr c)
{
	unsigned long ver = 0;
	char *kvm = virConnectGetDomainCapabilities(c, NULL, "x86_64", NULL, "kvm", 0);
	char *tcg = kvm ? NULL : virConnectGetDomainCapabilities(c, NULL, "x86_64", NULL, "qemu", 0);
	char *path = xml_text(kvm ? kvm : tcg ? tcg : "", NULL, "path");
	char *s;

	virConnectGetVersion(c, &ver);
	s = xasprintf("%s, QEMU %lu.%lu.%lu, %s", path ? path : "?", ver / 1000000,
		      ver / 1000 % 1000, ver % 1000,
		      kvm ? "KVM offered (whether it boots a kernel is probed at the first run)"
			  : "no KVM: guests run under TCG");
	if (kvm || tcg)
		say(d, kvm ? HOST_OK : HOST_WARN, "QEMU", s,
		    kvm ? NULL : "enable KVM on that host (modprobe kvm_intel / kvm_amd), or accept TCG");
	else
		say(d, HOST_FAIL, "QEMU", lab_virt_error(),
		    "install qemu-system-x86 and libvirt's QEMU driver on that host");
	free(s);
	free(path);
	free(kvm);
	free(tcg);
}

static void check_pool(struct hdoc *d, virConnectPtr c)
{
	const struct host_cfg *hc = d->hc;
	virStoragePoolPtr p = virStoragePoolLookupByName(c, hc->pool);
	char *s = NULL, *xml, *path;

	if (p) {
		int active = virStoragePoolIsActive(p) == 1;

		xml = virStoragePoolGetXMLDesc(p, 0);
		path = xml ? xml_text(xml, "<target>", "path") : NULL;
		s = xasprintf("%s at %s, %s", hc->pool, path ? path : "?",
			      active ? "active" : "defined but inactive (started at first use)");
		say(d, active ? HOST_OK : HOST_WARN, "pool", s, NULL);
		free(path);
		free(xml);
		virStoragePoolFree(p);
	} else if (virGetLastErrorCode() == VIR_ERR_NO_STORAGE_POOL) {
		xml = virConnectGetStoragePoolCapabilities(c, 0);
		if (xml && strstr(xml, "<pool type='dir' supported='yes'>")) {
			s = xasprintf("no pool %s yet: the lab creates it as a dir pool at %s on "
				      "first use", hc->pool, hc->pool_dir);
			say(d, HOST_OK, "pool", s, NULL);
		} else {
			s = xasprintf("no pool %s, and the host's libvirt cannot create a dir pool%s%s",
				      hc->pool, xml ? "" : ": ", xml ? "" : lab_virt_error());
			say(d, HOST_FAIL, "pool", s, "install libvirt's storage driver on that host "
			    "(Debian: libvirt-daemon), or define the pool there yourself");
		}
		free(xml);
	} else {
		s = xasprintf("cannot look up the pool %s: %s", hc->pool, lab_virt_error());
		say(d, HOST_FAIL, "pool", s, "install libvirt's storage driver on that host "
		    "(Debian: libvirt-daemon)");
	}
	free(s);
}

/* @vcpus: host CPUs per slot (guest_slot_cpus()). */
static void check_cpus(struct hdoc *d, virConnectPtr c, int vcpus)
{
	const struct host_cfg *hc = d->hc;
	virNodeInfo ni;
	char *s;
	int top = -1;

	if (virNodeGetInfo(c, &ni) < 0) {
		say(d, HOST_WARN, "CPUs", lab_virt_error(), NULL);
		return;
	}
	for (int i = 0; i < hc->nr_cpus; i++)
		top = hc->cpu_ids[i] > top ? hc->cpu_ids[i] : top;
	if (top >= (int)ni.cpus) {
		s = xasprintf("cpus = %s names CPU %d; the host has %u (0-%u)", hc->cpus, top,
			      ni.cpus, ni.cpus - 1);
		say(d, HOST_FAIL, "CPUs", s, "fix cpus = in the [host] section");
	} else if (!hc->nr_cpus && hc->slots * vcpus > (long)ni.cpus) {
		s = xasprintf("%ld slots x %d CPU%s need %ld CPUs; the host has %u", hc->slots, vcpus,
			      vcpus == 1 ? "" : "s", hc->slots * vcpus, ni.cpus);
		say(d, HOST_WARN, "CPUs", s, "fewer slots, or a smaller guest");
	} else {
		s = xasprintf("%u CPUs, %u NUMA node%s; the lab uses %s for %ld slot%s", ni.cpus,
			      ni.nodes, ni.nodes == 1 ? "" : "s", hc->cpus ? hc->cpus : "all",
			      hc->slots, hc->slots == 1 ? "" : "s");
		say(d, HOST_OK, "CPUs", s, NULL);
	}
	free(s);
}

static void check_memory(struct hdoc *d, virConnectPtr c, uint64_t guest_mib)
{
	unsigned long long free_b = virNodeGetFreeMemory(c);
	uint64_t free_mib = free_b / (1024 * 1024), need = guest_mib * (uint64_t)d->hc->slots;
	char *s;

	if (!free_b) {
		say(d, HOST_WARN, "memory", lab_virt_error(), NULL);
		return;
	}
	s = xasprintf("%llu MiB free; the guest needs %llu MiB x %ld slot%s",
		      (unsigned long long)free_mib, (unsigned long long)guest_mib, d->hc->slots,
		      d->hc->slots == 1 ? "" : "s");
	enum host_level lv = free_mib < guest_mib ? HOST_FAIL : free_mib < need ? HOST_WARN : HOST_OK;

	say(d, lv, "memory", s, lv == HOST_OK ? NULL :
	    "fewer slots, a smaller guest, or free memory on that host");
	free(s);
}

static void doctor_one(struct hdoc *d, const char *state_dir, const struct guest_topology *t)
{
	struct lab_host h;
	struct strbuf err = STRBUF_INIT;
	unsigned long lib = 0;
	char *host = NULL, *s;

	if (host_open(&h, d->hc, state_dir, &err)) {
		if (strstr(sb_str(&err), "is in use by"))	/* a session runs: not a fault */
			say(d, HOST_WARN, "reachable", sb_str(&err), NULL);
		else
			say(d, HOST_FAIL, "reachable", sb_str(&err), "start libvirtd on that host, "
			    "check the URI (user, ssh key, port) in lab.conf");
		sb_release(&err);
		return;
	}
	virConnectGetLibVersion(h.conn, &lib);
	host = h.embedded ? NULL : virConnectGetHostname(h.conn);
	s = xasprintf("%s%s%s, libvirt %lu.%lu.%lu", d->hc->uri, host ? " on " : "",
		      host ? host : "", lib / 1000000, lib / 1000 % 1000, lib % 1000);
	say(d, HOST_OK, "reachable", s, NULL);
	free(s);
	free(host);
	check_qemu(d, h.conn);
	if (h.embedded)
		say(d, HOST_OK, "pool", "none: the embedded driver has no storage driver; kernels "
		    "and images stay local files", NULL);
	else
		check_pool(d, h.conn);
	if (t) {
		check_cpus(d, h.conn, guest_slot_cpus(t));
		check_memory(d, h.conn, t->memory_mib);
	}
	host_close(&h);
	sb_release(&err);
}

void hosts_doctor(const struct lab_config *cfg, const char *state_dir, host_report_fn report,
		  void *ctx)
{
	struct guest_topology t;
	struct strbuf err = STRBUF_INIT;
	const char *file = NULL;
	int have = 0;

	for (size_t i = 0; i < cfg->nr_guests; i++)
		if (!strcmp(cfg->guests[i].name, cfg->run.guest))
			file = cfg->guests[i].file;
	memset(&t, 0, sizeof(t));
	if (file && guest_topology_load(file, &t, &err) == 0)
		have = 1;
	else
		report(ctx, HOST_WARN, "guest", err.len ? sb_str(&err) : "no [run] guest",
		       "mglrulab config check");
	for (size_t i = 0; i < cfg->run.hosts.n; i++) {
		struct hdoc d = { .hc = config_host(cfg, cfg->run.hosts.v[i]), .report = report,
				  .ctx = ctx };

		if (d.hc)
			doctor_one(&d, state_dir, have ? &t : NULL);
	}
	guest_topology_release(&t);
	sb_release(&err);
}
