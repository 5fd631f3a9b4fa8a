// SPDX-License-Identifier: GPL-2.0
/*
 * The hosts a session's runs go to (docs/hosts.md): lab.conf's [run] hosts
 * written into session.json before the first run, so a resumed session
 * reconnects to the same ones whatever lab.conf now says, and opened once
 * for the session. The host at [lab] uri shares the guest lab's connection
 * (the embedded driver admits one connection per state folder); the others
 * get their own.
 */
#include "session_priv.h"
#include "session_host_rec.h"
#include "lab_uri.h"
#include "cpulist.h"
#include "escape.h"
#include "libvirt_conn.h"

#include <stdlib.h>
#include <string.h>

struct sdoc_array session_hosts_config_rows(const struct lab_config *cfg)
{
	struct sdoc_host_entry *v = xcalloc(cfg->run.hosts.n + 1, sizeof(*v));
	size_t n = 0;

	for (size_t i = 0; i < cfg->run.hosts.n; i++) {
		const struct host_cfg *h = config_host(cfg, cfg->run.hosts.v[i]);

		if (h)	/* else config_load() refused it already */
			v[n++] = session_host_row(h, NULL, NULL);
	}
	return (struct sdoc_array){ .v = v, .n = n, .present = 1 };
}

/*
 * Each slot of a host with `cpus` its own CPUs: slot k takes the k-th
 * run of vCPUs-many ids in the order lab.conf lists them (list them node
 * by node for NUMA-aligned slots), one per vCPU, and QEMU's own threads
 * on the same set, so that guests at once on one host do not measure
 * each other. Under icount one emulator thread runs every vCPU: a slot
 * is one CPU, the thread's (guest_slot_cpus()). The slot's topology is
 * the guest's with that placement.
 */
static int pin_slots(struct session *s, struct session_host *h)
{
	int v = guest_slot_cpus(&s->topo);

	if (!h->cfg.nr_cpus)
		return LAB_OK;	/* the topology's own placement, if any */
	if ((long)h->cfg.nr_cpus < h->cfg.slots * v)
		return user_error("host %s: cpus = %s holds %d CPUs, fewer than %ld slot%s x %d "
				  "CPU%s", h->cfg.name, h->cfg.cpus, h->cfg.nr_cpus,
				  h->cfg.slots, h->cfg.slots == 1 ? "" : "s", v, v == 1 ? "" : "s");
	h->slot_topo = xcalloc((size_t)h->cfg.slots, sizeof(*h->slot_topo));
	for (long k = 0; k < h->cfg.slots; k++) {
		struct guest_topology *t = &h->slot_topo[k];
		struct strbuf all = STRBUF_INIT;

		*t = s->topo;	/* shallow: the strings stay the guest's */
		for (int i = 0; i < v; i++) {
			int cpu = h->cfg.cpu_ids[k * v + i];

			/* icount: one emulator thread runs every vCPU; the set pins it. */
			if (s->topo.icount_shift < 0)
				t->vcpupin[i] = xasprintf("%d", cpu);
			sb_addf(&all, "%s%d", i ? "," : "", cpu);
		}
		t->emulatorpin = sb_detach(&all);
	}
	return LAB_OK;
}

struct sdoc_array session_hosts_rows(const struct session *s)
{
	struct sdoc_host_entry *v = xcalloc(s->hosts.n + 1, sizeof(*v));

	for (size_t i = 0; i < s->hosts.n; i++) {
		const struct session_host *h = &s->hosts.v[i];

		/* the [host] as opened, and its accelerator */
		v[i] = session_host_row(&h->cfg, guest_accel_name(h->accel), h->accel_reason);
	}
	return (struct sdoc_array){ .v = v, .n = s->hosts.n, .present = 1 };
}

/*
 * Sessions from before hosts have no "hosts": they ran at [lab] uri, one
 * guest at a time, and that is what they resume on.
 */
static const struct sdoc_host_entry *implicit_host(const struct session *s,
						   struct sdoc_host_entry *e)
{
	*e = (struct sdoc_host_entry){ .name = "local", .uri = s->cfg.uri, .slots = 1 };
	return e;
}

int session_hosts_open(struct session *s, const struct sdoc_array *rows,
		       const char *probe_kernel)
{
	struct session_hosts *hs = &s->hosts;
	struct sdoc_host_entry local;
	const struct sdoc_host_entry *list = rows->n ? rows->v : implicit_host(s, &local);
	struct strbuf err = STRBUF_INIT;
	int r = LAB_OK;

	hs->n = rows->n ? rows->n : 1;
	hs->v = xcalloc(hs->n, sizeof(*hs->v));
	for (size_t i = 0; i < hs->n; i++) {
		struct session_host *h = &hs->v[i];

		if (session_host_from_row(&list[i], &h->cfg, &err)) {
			r = user_error("%s/session.json: hosts[%zu]: %s", s->dir, i, sb_str(&err));
			hs->n = i + 1;	/* what it allocated goes with the rest */
			break;
		}
		/*
		 * Connect with lab.conf's URI, never session.json's: a resume
		 * checks only that the two reach the same daemon, and what
		 * that identity leaves out (?command=, ?no_verify=, ?keyfile=
		 * ...) decides how libvirt connects, even what it runs.
		 */
		{
			const struct host_cfg *hc = config_host(&s->cfg, h->cfg.name);

			if (hc && strcmp(hc->uri, h->cfg.uri)) {
				free(h->cfg.uri);
				h->cfg.uri = xstrdup(hc->uri);
			}
		}
		h->index = (int)i;
		if (lab_uri_same(h->cfg.uri, s->cfg.uri)) {
			/* the guest lab's own connection: shared, closed by guest_lab_close() */
			h->host.cfg = &h->cfg;
			h->host.conn = s->lab.conn;
			h->host.embedded = lab_virt_is_embedded(s->lab.conn);
			h->borrowed = 1;
			h->accel = s->lab.accel;
			h->accel_reason = xstrdup(s->lab.accel_reason ? s->lab.accel_reason : "");
		} else {
			if (host_open(&h->host, &h->cfg, s->cfg.state_dir, &err)) {
				/* a host that never answers: exit 2, named with its URI */
				r = lab_error("%s", sb_str(&err));
				hs->n = i + 1;
				break;
			}
			/* lab.conf's accel, else the topology's, as on the lab's own host */
			enum guest_accel want = !strcmp(s->cfg.accel, "kvm") ? ACCEL_KVM :
						!strcmp(s->cfg.accel, "tcg") ? ACCEL_TCG : s->topo.accel;

			if (host_accel_resolve(&h->host, s->cfg.state_dir, probe_kernel, want,
					       &h->accel, &h->accel_reason)) {
				r = lab_error("host %s (%s): %s", h->cfg.name, h->cfg.uri,
					      h->accel_reason ? h->accel_reason : "interrupted");
				hs->n = i + 1;
				break;
			}
		}
		r = pin_slots(s, h);
		if (r) {
			hs->n = i + 1;
			break;
		}
		hs->nr_slots += (size_t)h->cfg.slots;
		if (!lab_quiet && hs->n > 1)
			term_printf(stderr, "host %s: %s, %ld slot%s, %s%s%s\n", h->cfg.name, h->cfg.uri,
				    h->cfg.slots, h->cfg.slots == 1 ? "" : "s",
				    guest_accel_name(h->accel), h->cfg.cpus ? ", CPUs " : "",
				    h->cfg.cpus ? h->cfg.cpus : "");
	}
	sb_release(&err);
	return r;
}

const struct guest_topology *session_slot_topology(const struct session *s,
						   const struct session_host *h, int slot)
{
	return h->slot_topo ? &h->slot_topo[slot] : &s->topo;
}

void session_hosts_close(struct session *s)
{
	struct session_hosts *hs = &s->hosts;

	for (size_t i = 0; i < hs->n; i++) {
		struct session_host *h = &hs->v[i];

		for (long k = 0; h->slot_topo && k < h->cfg.slots; k++) {
			for (int v = 0; v < s->topo.vcpus; v++)
				free(h->slot_topo[k].vcpupin[v]);
			free(h->slot_topo[k].emulatorpin);
		}
		free(h->slot_topo);

		if (!h->borrowed && h->host.conn)
			host_close(&h->host);
		session_host_release(&h->cfg);
		free(h->down_reason);
		free(h->accel_reason);
	}
	free(hs->v);
	memset(hs, 0, sizeof(*hs));
}

int session_hosts_check_shares(const struct session *s)
{
	for (size_t i = 0; i < s->jobs.nw; i++) {
		const struct session_job *w = &s->jobs.w[i];

		if (!w->nshares)
			continue;
		for (size_t k = 0; k < s->hosts.n; k++) {
			const struct session_host *h = &s->hosts.v[k];

			if (h->host.embedded)
				continue;
			return user_error("workload %s shares host folders with the guest over 9p "
					  "(kernel_build's toolchain), which needs the lab's own host; "
					  "host %s (%s) is another: run this workload with [run] hosts "
					  "naming only an embedded host",
					  w->name, h->cfg.name, h->cfg.uri);
		}
	}
	return LAB_OK;
}
