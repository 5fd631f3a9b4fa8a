// SPDX-License-Identifier: GPL-2.0
/*
 * A session's guest: the topology lab.conf names, and the guest lab
 * (lab/guest/guest_lab.h) every run boots through: one libvirt connection,
 * the accelerator resolved once, the guest image built or found.
 */
#include "session_stages.h"
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

int session_guest_check(const char *guest_file)
{
	struct guest_topology topo;
	int r;

	memset(&topo, 0, sizeof(topo));
	r = load_topology(guest_file, &topo);
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
