// SPDX-License-Identifier: GPL-2.0
/*
 * A session's guest: the topology lab.conf names, and the guest lab
 * (lab/guest/guest_lab.h) every run boots through: one libvirt connection,
 * the accelerator resolved once, the guest image built or found.
 */
#include "session_priv.h"
#include "lab_uri.h"
#include "escape.h"
#include "fsutil.h"
#include "guest_accel.h"
#include "lab_paths.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *session_guest_file(const struct session *s)
{
	for (size_t i = 0; i < s->cfg.nr_guests; i++)
		if (!strcmp(s->cfg.guests[i].name, s->cfg.run.guest))
			return s->cfg.guests[i].file;
	return NULL;
}

static int load_topology(const char *guest_file, struct guest_topology *topo)
{
	struct strbuf err = STRBUF_INIT;
	int r = LAB_OK;

	if (guest_topology_load(guest_file, topo, &err)) {
		term_printf(stderr, "%s", sb_str(&err));
		r = user_error("%s: the guest topology has errors (see above)", guest_file);
	}
	sb_release(&err);
	return r;
}

/*
 * The value of @key of workload @w as the guest will get it: lab.conf's,
 * else the parameter's default. NULL: the workload has no such parameter.
 */
static const char *workload_value(const struct workload_cfg *w, const char *key)
{
	const struct param_def *p = w->def ? param_find(w->def->params, key) : NULL;

	for (size_t i = 0; p && i < w->keys.n; i++)
		if (!strcmp(w->keys.v[i], key))
			return w->values.v[i];
	return p ? p->def : NULL;
}

/*
 * Every workload's node = ... names a node the guest has. Without this a
 * typo costs a newcomer two kernel builds and a boot before the guest's
 * precondition says the same.
 */
static int check_nodes(const struct session *s, const char *guest_file,
		       const struct guest_topology *topo)
{
	const struct strvec *names = s->o->workloads.n ? &s->o->workloads : &s->cfg.run.workloads;
	int r = LAB_OK;

	for (size_t i = 0; i < names->n; i++) {
		const struct workload_cfg *w = config_workload(&s->cfg, names->v[i]);
		const char *v = w ? workload_value(w, "node") : NULL;
		long node = v ? strtol(v, NULL, 10) : 0;

		if (v && node >= topo->nr_nodes)
			r = user_error("%s:%d: [workload %s] node = %ld: guest %s (%s) has node%s 0%s%d",
				       s->cfg.path, w->line, w->name, node, topo->name, guest_file,
				       topo->nr_nodes == 1 ? "" : "s", topo->nr_nodes == 1 ? "" : "-",
				       topo->nr_nodes == 1 ? 0 : topo->nr_nodes - 1);
	}
	return r;
}

int session_guest_check(const struct session *s, const char *guest_file)
{
	struct guest_topology topo;
	int r;

	memset(&topo, 0, sizeof(topo));
	r = load_topology(guest_file, &topo);
	if (!r)
		r = check_nodes(s, guest_file, &topo);
	guest_topology_release(&topo);
	return r;
}

int session_guest_open(struct session *s, const char *guest_file, const char *probe_kernel)
{
	struct strbuf err = STRBUF_INIT;
	char *bin = lab_guest_bin_dir();
	int r = load_topology(guest_file, &s->topo);

	if (r)
		goto out;
	struct guest_lab_opts lo = {
		.state_dir = s->cfg.state_dir,
		.uri = lab_uri_same(s->cfg.uri, CONFIG_EMBED_URI) ? NULL : s->cfg.uri,
		.guest_bin_dir = bin,
		/* lab.conf's accel wins over the topology's */
		.resolve_accel = 1,
		.accel = !strcmp(s->cfg.accel, "kvm") ? ACCEL_KVM :
			 !strcmp(s->cfg.accel, "tcg") ? ACCEL_TCG : s->topo.accel,
		.probe_kernel = probe_kernel,
	};
	if (guest_lab_open(&s->lab, &lo, &err)) {
		r = lab_error("%s", sb_str(&err));
		goto out;
	}
	if (!lab_quiet)
		term_printf(stderr, "guest %s: %d vCPUs, %d nodes, %s; image %s%s\n", s->topo.name,
			    s->topo.vcpus, s->topo.nr_nodes, guest_accel_name(s->lab.accel), s->lab.image,
			    s->lab.image_cache_hit ? " (cached)" : "");
out:
	free(bin);
	sb_release(&err);
	return r;
}
