// SPDX-License-Identifier: GPL-2.0
/* Hosts: their connections and pools (host.h). */
#include "host.h"
#include "mechanism.h"
#include "lab_uri.h"
#include "escape.h"
#include "guest_conf.h"
#include "libvirt_conn.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

#include <libvirt/virterror.h>

int host_open(struct lab_host *h, const struct host_cfg *hc, const char *state_dir,
	      struct strbuf *err)
{
	struct strbuf why = STRBUF_INIT;

	memset(h, 0, sizeof(*h));
	h->cfg = hc;
	h->embedded = lab_uri_same(hc->uri, CONFIG_EMBED_URI);
	h->conn = lab_virt_open(h->embedded ? NULL : hc->uri, state_dir, &why);
	if (!h->conn)
		sb_addf(err, "host %s (%s): %s", hc->name, hc->uri, sb_str(&why));
	sb_release(&why);
	return h->conn ? 0 : -1;
}

void host_close(struct lab_host *h)
{
	if (h->pool)
		virStoragePoolFree(h->pool);
	lab_virt_close(h->conn);
	memset(h, 0, sizeof(*h));
}

/* A dir pool at pool_dir: defined (persistent), built, started, autostarted. */
static virStoragePoolPtr pool_create(struct lab_host *h, struct strbuf *err)
{
	const struct host_cfg *hc = h->cfg;
	struct strbuf xml = STRBUF_INIT;
	virStoragePoolPtr p;

	sb_adds(&xml, "<pool type='dir'>\n  <name>");
	sb_add_xml(&xml, hc->pool);
	sb_adds(&xml, "</name>\n  <target>\n    <path>");
	sb_add_xml(&xml, hc->pool_dir);
	sb_adds(&xml, "</path>\n    <permissions><mode>0755</mode></permissions>\n"
		"  </target>\n</pool>\n");
	p = virStoragePoolDefineXML(h->conn, sb_str(&xml), 0);
	sb_release(&xml);
	if (!p) {
		sb_addf(err, "host %s: cannot define the dir pool %s at %s: %s", hc->name, hc->pool,
			hc->pool_dir, lab_virt_error());
		return NULL;
	}
	/* Build creates the folder on the host: the lab never writes there itself. */
	if (virStoragePoolBuild(p, 0) < 0 || virStoragePoolCreate(p, 0) < 0) {
		sb_addf(err, "host %s: cannot build and start the dir pool %s at %s: %s", hc->name,
			hc->pool, hc->pool_dir, lab_virt_error());
		virStoragePoolUndefine(p);
		virStoragePoolFree(p);
		return NULL;
	}
	if (virStoragePoolSetAutostart(p, 1) < 0)
		warning("host %s: pool %s will not start with libvirt: %s", hc->name, hc->pool,
			lab_virt_error());
	info("host %s: created the storage pool %s at %s", hc->name, hc->pool, hc->pool_dir);
	return p;
}

int host_pool_ensure(struct lab_host *h, struct strbuf *err)
{
	const struct host_cfg *hc = h->cfg;
	virStoragePoolPtr p;

	if (h->embedded || h->pool)
		return 0;
	p = virStoragePoolLookupByName(h->conn, hc->pool);
	if (!p && virGetLastErrorCode() != VIR_ERR_NO_STORAGE_POOL) {
		sb_addf(err, "host %s: cannot look up the storage pool %s: %s", hc->name, hc->pool,
			lab_virt_error());
		return -1;
	}
	if (!p) {
		p = pool_create(h, err);
		if (!p)
			return -1;
	} else if (virStoragePoolIsActive(p) != 1 && virStoragePoolCreate(p, 0) < 0) {
		sb_addf(err, "host %s: cannot start the storage pool %s: %s", hc->name, hc->pool,
			lab_virt_error());
		virStoragePoolFree(p);
		return -1;
	} else if (virStoragePoolRefresh(p, 0) < 0) {
		/* volumes another controller uploaded since libvirt last looked */
		warning("host %s: cannot refresh the pool %s: %s", hc->name, hc->pool,
			lab_virt_error());
	}
	h->pool = p;
	return 0;
}

int hosts_open(struct lab_hosts *hs, const struct lab_config *cfg, const char *state_dir,
	       struct strbuf *err)
{
	memset(hs, 0, sizeof(*hs));
	hs->v = xcalloc(cfg->run.hosts.n ? cfg->run.hosts.n : 1, sizeof(*hs->v));
	for (size_t i = 0; i < cfg->run.hosts.n; i++) {
		const struct host_cfg *hc = config_host(cfg, cfg->run.hosts.v[i]);

		if (!hc || host_open(&hs->v[i], hc, state_dir, err)) {
			if (!hc)
				sb_addf(err, "no [host %s]", cfg->run.hosts.v[i]);
			hosts_close(hs);
			return -1;
		}
		hs->n = i + 1;
	}
	return 0;
}

void hosts_close(struct lab_hosts *hs)
{
	for (size_t i = hs->n; i-- > 0;)
		host_close(&hs->v[i]);
	free(hs->v);
	memset(hs, 0, sizeof(*hs));
}

/* The [run] guest's topology file, as config.c resolved it. */
static const char *run_guest_file(const struct lab_config *cfg)
{
	for (size_t i = 0; i < cfg->nr_guests; i++)
		if (!strcmp(cfg->guests[i].name, cfg->run.guest))
			return cfg->guests[i].file;
	return NULL;
}

/*
 * A [claim] whose mechanism the guest cannot see (mechanism.h): the
 * session's "no change" would say nothing of the patch, so say it before
 * it runs (config check, run, doctor). Under accel = kvm icount is
 * ignored; auto falls back to TCG where KVM does not boot a guest, so a
 * guest with icount is taken to run under it (the warning says so).
 */
static void claim_guest_warning(const struct lab_config *cfg, int icount)
{
	unsigned mech = mechanism_parse(cfg->claim.mechanism);
	int kvm = cfg->accel && !strcmp(cfg->accel, "kvm");

	/* without icount, auto may well be KVM: nothing to say before the probe */
	if (!mech || kvm || (!icount && strcmp(cfg->accel ? cfg->accel : "", "tcg")))
		return;
	if (mechanism_guest_sees(0, icount) & mech)
		return;
	warning("%s: [claim] mechanism = %s: guest %s runs under %s, which cannot see %s: "
		"the answer for the claim will be \"cannot test here\", not \"no change\" "
		"(a KVM host can test it; docs/reports.md, \"What this guest can test\")",
		cfg->path, cfg->claim.mechanism, cfg->run.guest, mechanism_guest_mode(0, icount),
		mechanism_words(mech));
}

int hosts_check_config(const struct lab_config *cfg, struct strbuf *err)
{
	struct guest_topology t;
	const char *file = run_guest_file(cfg);
	int r;

	if (!file)
		return LAB_OK;	/* config_load() said so already */
	memset(&t, 0, sizeof(t));
	r = guest_topology_load(file, &t, err);
	if (r == 0) {
		r = config_check_host_cpus(cfg, guest_slot_cpus(&t), t.icount_shift >= 0, err);
		claim_guest_warning(cfg, t.icount_shift >= 0);
	} else
		r = LAB_EUSER;
	guest_topology_release(&t);
	return r;
}
