// SPDX-License-Identifier: GPL-2.0
/*
 * [host NAME] sections and [run] hosts: where a session's runs go. Each
 * host is a libvirt URI with a number of slots (guests at once), the host
 * CPUs the lab may pin them to, and the storage pool its volumes live in
 * (docs/hosts.md). Without any [host] section the lab has one implicit
 * host, "local", at [lab] uri: what every lab.conf meant before hosts.
 */
#include "config_priv.h"
#include "cpulist.h"
#include "lab_uri.h"

#include <sched.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define HOST(f) .offset = offsetof(struct host_cfg, f)
static const struct ini_key host_keys[] = {
	{ "uri", INI_STRING, HOST(uri), .expected = "a libvirt URI" },
	{ "slots", INI_LONG, HOST(slots), .set_flag = INI_FLAG(struct host_cfg, slots_set),
	  .min = 1, .max = 1024 },
	{ "cpus", INI_STRING, HOST(cpus), .expected = "a CPU list such as 0-3,6" },
	{ "pool", INI_STRING, HOST(pool), .expected = "a storage pool name" },
	{ "pool_dir", INI_STRING, HOST(pool_dir), .expected = "an absolute folder on that host" },
	{ NULL },
};

#define IMPLICIT_HOST "local"

static void host_defaults(struct host_cfg *h, const char *name, int line)
{
	memset(h, 0, sizeof(*h));
	h->name = xstrdup(name);
	h->line = line;
	h->slots = 1;
}

/*
 * Hosts are found through cfg->host_index, never by a scan: every key of
 * every [host] section looks its host up, and so does each check below,
 * so a scan made 2,000 hosts cost seconds (O(n^2) and, in
 * check_distinct(), O(n^3)).
 */
struct host_cfg *config_get_host(struct lab_config *cfg, const char *name, int line)
{
	size_t i;

	if (strmap_get(&cfg->host_index, name, &i))
		return &cfg->hosts[i];
	ALLOC_GROW(cfg->hosts, cfg->nr_hosts + 1, cfg->alloc_hosts);
	struct host_cfg *h = &cfg->hosts[cfg->nr_hosts];
	host_defaults(h, name, line);
	strmap_put(&cfg->host_index, name, cfg->nr_hosts++);
	return h;
}

const struct host_cfg *config_host(const struct lab_config *cfg, const char *name)
{
	size_t i;

	return strmap_get(&cfg->host_index, name, &i) ? &cfg->hosts[i] : NULL;
}

/* cpus = LIST into ids: every id below CONFIG_MAX_HOST_CPUS, none twice. */
static int check_cpus(struct host_cfg *h, struct ini_check *ini, int line)
{
	int *ids = xmalloc(sizeof(*ids) * CONFIG_MAX_HOST_CPUS);
	unsigned char *seen = xcalloc(CONFIG_MAX_HOST_CPUS, 1);
	int r = 0;
	int n = cpulist_ids(h->cpus, CONFIG_MAX_HOST_CPUS, ids, CONFIG_MAX_HOST_CPUS);

	if (n <= 0) {
		ini_check_error(ini, line, "[host %s] cpus: expected a CPU list such as 0-3,6 "
				"(ids below %d), not '%s'", h->name, CONFIG_MAX_HOST_CPUS, h->cpus);
		free(ids);
		free(seen);
		return -1;
	}
	for (int i = 0; i < n; i++) {
		if (seen[ids[i]]++ == 1) {
			ini_check_error(ini, line, "[host %s] cpus: CPU %d is listed twice in '%s'",
					h->name, ids[i], h->cpus);
			r = -1;
		}
	}
	h->cpu_ids = xrealloc(ids, sizeof(*ids) * (size_t)n);	/* not 4096 per host */
	h->nr_cpus = n;
	h->cpus_line = line;	/* config_check_host_cpus() names it, after the parse */
	free(seen);
	return r;
}

int config_host_key(struct ini_check *ini, struct host_cfg *h, const char *section,
		    const char *key, const char *value, int line)
{
	if (ini_check_set(ini, h, host_keys, section, key, value, line))
		return -1;
	if (!strcmp(key, "cpus"))
		return check_cpus(h, ini, line);
	if (!strcmp(key, "uri") && !*value) {
		ini_check_error(ini, line, "[host %s] uri: empty (a libvirt URI such as "
				"qemu+ssh://root@box/system, or %s)", h->name, CONFIG_EMBED_URI);
		return -1;
	}
	if (!strcmp(key, "pool") && !config_valid_name(value)) {
		ini_check_error(ini, line, "[host %s] pool: expected a pool name of letters, "
				"digits, '-', '_' or '.', not '%s'", h->name, value);
		return -1;
	}
	if (!strcmp(key, "pool_dir") && value[0] != '/') {
		ini_check_error(ini, line, "[host %s] pool_dir: expected an absolute folder on "
				"that host, not '%s'", h->name, value);
		return -1;
	}
	return 0;
}

/* What a [host] section left unset. */
static void host_fill_defaults(struct host_cfg *h)
{
	if (!h->uri)
		h->uri = xstrdup(CONFIG_EMBED_URI);
	if (!h->pool)
		h->pool = xstrdup(CONFIG_DEFAULT_POOL);
	if (!h->pool_dir)
		h->pool_dir = xstrdup(CONFIG_DEFAULT_POOL_DIR);
}

/* Where [host NAME] set uri; its header's line when it did not (the default). */
static int uri_line(const struct ini_check *ini, const struct host_cfg *h)
{
	char *section = xasprintf("host %s", h->name);
	int line = ini_check_line(ini, section, "uri");

	free(section);
	return line ? line : h->line;
}

/*
 * Two hosts of one session must be two machines (or the embedded driver
 * once). Each URI is looked up among those seen before: a host that
 * repeats one is named with the first host that has it.
 */
static void check_distinct(struct lab_config *cfg, struct ini_check *ini)
{
	struct strmap uris = STRMAP_INIT;
	size_t first;

	for (size_t i = 0; i < cfg->run.hosts.n; i++) {
		const struct host_cfg *a = config_host(cfg, cfg->run.hosts.v[i]);

		if (!a)
			continue;
		/* by what the URI reaches, not how it is spelled (lab_uri.h) */
		char *id = lab_uri_identity(a->uri);
		const char *key = id ? id : a->uri;

		if (!strmap_get(&uris, key, &first)) {
			strmap_put(&uris, key, (size_t)(a - cfg->hosts));
			free(id);
			continue;
		}
		free(id);
		const struct host_cfg *b = &cfg->hosts[first];

		if (b == a)
			continue;	/* listed twice in [run] hosts: said there */
		if (!strcmp(a->uri, b->uri))
			ini_check_error(ini, uri_line(ini, a), "[host %s] uri: %s is also [host %s]'s "
					"(line %d); one machine is one host: give it slots = N instead",
					a->name, a->uri, b->name, uri_line(ini, b));
		else
			ini_check_error(ini, uri_line(ini, a), "[host %s] uri: %s reaches the same "
					"libvirt as [host %s]'s %s (line %d); one machine is one host: "
					"give it slots = N instead", a->name, a->uri, b->name, b->uri,
					uri_line(ini, b));
	}
	strmap_clear(&uris);
}

void config_check_hosts(struct lab_config *cfg, struct ini_check *ini, int run_line)
{
	struct strvec *names = &cfg->run.hosts;
	struct strvec known = STRVEC_INIT;

	if (!names->n && !cfg->nr_hosts) {
		/* today's lab.conf: one host, [lab] uri */
		struct host_cfg *h = config_get_host(cfg, IMPLICIT_HOST, 0);

		h->uri = xstrdup(cfg->uri);
	}
	for (size_t i = 0; i < cfg->nr_hosts; i++)
		host_fill_defaults(&cfg->hosts[i]);
	if (!names->n)
		for (size_t i = 0; i < cfg->nr_hosts; i++)
			strvec_push(names, cfg->hosts[i].name);
	struct strmap listed = STRMAP_INIT;
	size_t count;

	for (size_t i = 0; i < cfg->nr_hosts; i++)
		strvec_push(&known, cfg->hosts[i].name);
	for (size_t i = 0; i < names->n; i++) {
		/* the line that names it: [run] hosts may span lines */
		int line = ini_check_item_line(ini, "run", "hosts", i);

		if (!line)
			line = run_line;
		if (!config_host(cfg, names->v[i])) {
			struct strbuf sb = STRBUF_INIT;

			ini_did_you_mean(&sb, names->v[i], (const char *const *)known.v, known.n);
			ini_check_error(ini, line, "[run] hosts: no [host %s] section%s", names->v[i],
					sb_str(&sb));
			sb_release(&sb);
		}
		count = 0;
		strmap_get(&listed, names->v[i], &count);
		strmap_put(&listed, names->v[i], ++count);
		if (count > 1)	/* once per repeat, not per pair: O(n) errors at most */
			ini_check_error(ini, line, "[run] hosts: '%s' is listed twice", names->v[i]);
	}
	strmap_clear(&listed);
	strvec_clear(&known);
	check_distinct(cfg, ini);
}

/*
 * Each host's cpus against its slots, @slot_cpus host CPUs per guest
 * (guest_slot_cpus(): one per vCPU, one under @icount).
 */
int config_check_host_cpus(const struct lab_config *cfg, int slot_cpus, int icount,
			   struct strbuf *err)
{
	int r = LAB_OK;

	for (size_t i = 0; i < cfg->run.hosts.n; i++) {
		const struct host_cfg *h = config_host(cfg, cfg->run.hosts.v[i]);
		long need;

		if (!h || !h->nr_cpus)
			continue;
		need = h->slots * slot_cpus;
		if (need <= h->nr_cpus)
			continue;
		sb_addf(err, "%s:%d: [host %s] cpus: %ld slot%s x %d CPU%s need %ld CPUs, '%s' has "
			"%d (%s keeps the slots from measuring each other)\n", cfg->path,
			h->cpus_line ? h->cpus_line : h->line, h->name, h->slots,
			h->slots == 1 ? "" : "s", slot_cpus, slot_cpus == 1 ? "" : "s", need, h->cpus,
			h->nr_cpus, icount ? "one host CPU for the icount guest's emulator thread" :
			"one host CPU per guest vCPU");
		r = LAB_EUSER;
	}
	return r;
}

/*
 * The CPUs this process may run on, as @h's cpus: each slot is pinned to
 * one of them (pin_slots()), and session.json keeps the list, so that a
 * resumed session pins the same.
 */
static void own_cpus(struct host_cfg *h)
{
	struct strbuf sb = STRBUF_INIT;
	cpu_set_t set;
	int n = 0;

	if (sched_getaffinity(0, sizeof(set), &set))
		return;
	h->cpu_ids = xmalloc(sizeof(*h->cpu_ids) * (size_t)(CPU_COUNT(&set) + 1));
	for (int c = 0; c < CPU_SETSIZE && c < CONFIG_MAX_HOST_CPUS; c++) {
		if (!CPU_ISSET(c, &set))
			continue;
		h->cpu_ids[n++] = c;
		sb_addf(&sb, "%s%d", n > 1 ? "," : "", c);
	}
	h->nr_cpus = n;
	free(h->cpus);
	h->cpus = sb_detach(&sb);
}

/*
 * Each guest under icount keeps one host CPU busy (its one emulator
 * thread) and its figures count the guest's instructions, not the host's
 * time: guests side by side on CPUs of their own do not measure each
 * other (bench/icount-slots). Host-clock figures do, so they keep one
 * slot unless lab.conf says otherwise. Another machine's CPUs are known
 * only once connected: one slot there too.
 */
void config_resolve_slots(struct lab_config *cfg, int icount)
{
	for (size_t i = 0; i < cfg->run.hosts.n; i++) {
		struct host_cfg *h = (struct host_cfg *)config_host(cfg, cfg->run.hosts.v[i]);
		long n = 1;

		if (!h || h->slots_set)
			continue;
		if (icount && (lab_uri_is_embedded(h->uri) || lab_uri_same(h->uri, "qemu:///system"))) {
			if (!h->nr_cpus)
				own_cpus(h);
			n = h->nr_cpus ? h->nr_cpus : 1;
		}
		h->slots = n > 1024 ? 1024 : n;
	}
}

void config_free_hosts(struct lab_config *cfg)
{
	for (size_t i = 0; i < cfg->nr_hosts; i++) {
		struct host_cfg *h = &cfg->hosts[i];

		free(h->name);
		free(h->uri);
		free(h->cpus);
		free(h->cpu_ids);
		free(h->pool);
		free(h->pool_dir);
	}
	free(cfg->hosts);
	strmap_clear(&cfg->host_index);
	strvec_clear(&cfg->run.hosts);
}
