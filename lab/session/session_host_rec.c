// SPDX-License-Identifier: GPL-2.0
/* session.json's hosts (session_host_rec.h): rows to [host]s and back. */
#include "session_host_rec.h"
#include "cpulist.h"

#include <stdlib.h>
#include <string.h>

struct sdoc_host_entry session_host_row(const struct host_cfg *h, const char *accel,
					const char *accel_reason)
{
	return (struct sdoc_host_entry){
		.name = h->name, .uri = h->uri, .slots = h->slots, .cpus = h->cpus,
		.pool = h->pool, .pool_dir = h->pool_dir, .accel = accel,
		.accel_reason = accel_reason,
	};
}

void session_host_release(struct host_cfg *hc)
{
	free(hc->name);
	free(hc->uri);
	free(hc->cpus);
	free(hc->cpu_ids);
	free(hc->pool);
	free(hc->pool_dir);
	memset(hc, 0, sizeof(*hc));
}

int session_host_from_row(const struct sdoc_host_entry *e, struct host_cfg *hc,
			  struct strbuf *err)
{
	memset(hc, 0, sizeof(*hc));
	/* name, uri and slots are required by the table: a row that decoded has them */
	if (!e->name || !*e->name) {
		sb_addf(err, "name: expected a non-empty string, got %s",
			e->name ? "an empty one" : "nothing");
		return -1;
	}
	if (!e->uri) {
		sb_adds(err, "uri: expected a string, got nothing");
		return -1;
	}
	if (e->slots < 1 || e->slots > 1024) {
		if (e->slots == SDOC_NONE)
			sb_adds(err, "slots: expected 1 to 1024, got nothing");
		else
			sb_addf(err, "slots: expected 1 to 1024, got %lld", e->slots);
		return -1;
	}
	hc->name = xstrdup(e->name);
	hc->uri = xstrdup(e->uri);
	hc->slots = (long)e->slots;
	hc->pool = xstrdup(e->pool ? e->pool : CONFIG_DEFAULT_POOL);
	hc->pool_dir = xstrdup(e->pool_dir ? e->pool_dir : CONFIG_DEFAULT_POOL_DIR);
	/* NULL (null): every CPU, as a host whose cpus lab.conf does not set */
	if (!e->cpus)
		return 0;
	hc->cpus = xstrdup(e->cpus);
	hc->cpu_ids = xcalloc(CONFIG_MAX_HOST_CPUS, sizeof(int));
	hc->nr_cpus = cpulist_ids(hc->cpus, CONFIG_MAX_HOST_CPUS, hc->cpu_ids,
				  CONFIG_MAX_HOST_CPUS);
	if (hc->nr_cpus <= 0) {
		sb_addf(err, "host %s: cpus '%s' is not a CPU list", hc->name, hc->cpus);
		return -1;
	}
	return 0;
}
