// SPDX-License-Identifier: GPL-2.0
/*
 * run --resume reads session.json back from a folder that anyone who can
 * write the reports folder could have edited. Before any of it is used,
 * every value in it that names something on a machine (a file the guest
 * boots, a host the runs go to, a host folder the guest is given) is
 * checked against what the lab, with this lab.conf and this kernel cache,
 * would have written there itself:
 *
 *   kernels[].cache_key  64 hex digits
 *   kernels[].bzImage    exactly <cache>/entries/<cache_key>/bzImage
 *   guest.file           the topology file lab.conf gives guest.name
 *   hosts[]              a [host] of lab.conf: its name, and its uri (by what
 *                        it reaches, lab_uri.h), pool and pool_dir
 *   workloads[].shares   only what the workload's own prepare_run could
 *                        share (workload_def.check_share: kernel_build's
 *                        /usr, /etc/alternatives, the baseline's tree in
 *                        the cache, a prepared folder of the cache), each
 *                        tag once
 *
 * Anything else stops the resume before a connection is opened or a file
 * is read through it: "DIR/session.json: FIELD: what it is, what was
 * expected", exit status 1. The members' types were checked when
 * session.json was decoded (struct session_doc, session_doc.c: a tag that
 * is not a string never gets here); these are the checks of what they say. What a session keeps on purpose though
 * lab.conf changed (a host's slots and cpus, the workloads' parameters,
 * the plan) is not a path and is not compared.
 */
#include "session_priv.h"
#include "fsutil.h"
#include "kbuild_prep.h"
#include "kcache.h"
#include "lab_uri.h"
#include "workload_def.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static int refuse(const struct session *s, const char *field, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int refuse(const struct session *s, const char *field, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	int r;

	va_start(ap, fmt);
	sb_vaddf(&sb, fmt, ap);
	va_end(ap);
	r = user_error("%s/session.json: %s: %s; not resumed", s->dir, field, sb_str(&sb));
	sb_release(&sb);
	return r;
}

static int is_key(const char *k)
{
	return k && strlen(k) == SHA256_HEX_LEN && strspn(k, "0123456789abcdef") == SHA256_HEX_LEN;
}

/* Each kernel's image is its cache entry's: <cache>/entries/<cache_key>/bzImage. */
static int check_kernels(const struct session *s)
{
	char field[64];
	int r = LAB_OK;

	if (!s->doc.kernels.n)
		return refuse(s, "kernels", "expected a list of the session's kernels");
	for (size_t i = 0; i < s->doc.kernels.n; i++) {
		const char *key = sdoc_kernel_at(&s->doc, i)->cache_key;
		const char *img = sdoc_kernel_at(&s->doc, i)->bzimage;

		snprintf(field, sizeof(field), "kernels[%zu].cache_key", i);
		if (!is_key(key))
			return refuse(s, field, "expected the kernel cache's key of 64 hex digits");
		char *entry = kcache_entry_dir(s->cfg.cache_dir, key);
		char *want = xasprintf("%s/bzImage", entry);

		snprintf(field, sizeof(field), "kernels[%zu].bzImage", i);
		if (!img || strcmp(img, want))
			r = refuse(s, field, "%s is not the kernel cache's image for its cache_key "
				   "(expected %s)", img ? img : "(none)", want);
		free(want);
		free(entry);
		if (r)
			return r;
	}
	return LAB_OK;
}

/* The topology is the file lab.conf gives the guest's name (as config_load() finds it). */
static int check_guest(const struct session *s)
{
	const char *name = s->doc.guest.name, *file = s->doc.guest.file, *want = NULL;
	char *def = NULL, *real_file, *real_want;
	int same;

	if (!name || !*name || strchr(name, '/') || name[0] == '.')
		return refuse(s, "guest.name", "expected the name of a [guest] of %s", s->cfg.path);
	for (size_t i = 0; i < s->cfg.nr_guests; i++)
		if (!strcmp(s->cfg.guests[i].name, name))
			want = s->cfg.guests[i].file;
	if (!want) {
		/* a guest without a section is guests/NAME.conf beside lab.conf */
		char *rel = xasprintf("guests/%s.conf", name);
		want = def = path_absolute(s->cfg.dir, rel);
		free(rel);
	}
	if (!file) {
		int r = refuse(s, "guest.file", "expected %s", want);

		free(def);
		return r;
	}
	real_file = realpath(file, NULL);
	real_want = realpath(want, NULL);
	same = !strcmp(file, want) || (real_file && real_want && !strcmp(real_file, real_want));
	free(real_file);
	free(real_want);
	int r = same ? LAB_OK : refuse(s, "guest.file", "%s is not the topology %s gives guest %s "
				     "(%s)", file, s->cfg.path, name, want);
	free(def);
	return r;
}

/* Each host is a [host] of lab.conf, reached the same way. */
static int check_hosts(const struct session *s)
{
	char field[64];

	/* none: a session from before hosts, [lab] uri, from lab.conf */
	for (size_t i = 0; i < s->doc.hosts.n; i++) {
		const struct sdoc_host_entry *h = sdoc_host_at(&s->doc, i);
		const char *name = h->name, *uri = h->uri, *pool = h->pool, *pool_dir = h->pool_dir;
		const struct host_cfg *hc = config_host(&s->cfg, name);

		snprintf(field, sizeof(field), "hosts[%zu].name", i);
		if (!hc)
			return refuse(s, field, "%s is not a [host] of %s", name, s->cfg.path);
		snprintf(field, sizeof(field), "hosts[%zu].uri", i);
		if (!lab_uri_same(uri, hc->uri))
			return refuse(s, field, "%s is not the uri of [host %s] in %s (%s)",
				      uri, name, s->cfg.path, hc->uri);
		/* absent in a session.json of before pools: the defaults, as session_host_from_row() reads it */
		snprintf(field, sizeof(field), "hosts[%zu].pool", i);
		if (strcmp(pool ? pool : CONFIG_DEFAULT_POOL, hc->pool))
			return refuse(s, field, "%s is not the pool of [host %s] in %s (%s)",
				      pool ? pool : "(none)", name, s->cfg.path, hc->pool);
		snprintf(field, sizeof(field), "hosts[%zu].pool_dir", i);
		if (strcmp(pool_dir ? pool_dir : CONFIG_DEFAULT_POOL_DIR, hc->pool_dir))
			return refuse(s, field, "%s is not the pool_dir of [host %s] in %s (%s)",
				      pool_dir ? pool_dir : "(none)", name, s->cfg.path, hc->pool_dir);
	}
	return LAB_OK;
}

static int is_build_dir(const struct workload_run_env *env, const char *dir)
{
	const struct session *s = env->data;

	return kbuild_prepared_dir_is(&s->cfg, dir);
}

/* Only the shares the workload's prepare_run makes, for the session's baseline. */
static int check_shares(const struct session *s)
{
	/* check_kernels() found at least one */
	const char *key = sdoc_kernel_at(&s->doc, 0)->cache_key;
	struct kbuild_result base = { .entry_dir = kcache_entry_dir(s->cfg.cache_dir, key) };
	char *tree = session_kernel_tree(&base);
	struct workload_run_env env = { .kernel_tree = tree, .kernel_entry = base.entry_dir,
					.is_build_dir = is_build_dir, .data = (void *)s };
	char field[96];
	int r = LAB_OK;

	for (size_t i = 0; i < s->doc.workloads.n && !r; i++) {
		const struct sdoc_workload *w = sdoc_workload_at(&s->doc, i);
		const struct sdoc_share *shares = w->shares.v;
		const char *type = w->type;
		const struct workload_def *def = type ? workload_find(type) : NULL;
		struct strvec tags = STRVEC_INIT;

		if (!w->shares.present)
			continue;
		snprintf(field, sizeof(field), "workloads[%zu].shares", i);
		if (!def || !def->check_share) {
			r = refuse(s, field, "workload type %s shares no host folders", type ? type : "(none)");
			break;
		}
		for (size_t j = 0; j < w->shares.n; j++) {
			/* both required by the table: session_doc_decode() refused it without */
			const char *tag = shares[j].tag, *dir = shares[j].host_dir;

			snprintf(field, sizeof(field), "workloads[%zu].shares[%zu]", i, j);
			if (strvec_has(&tags, tag)) {
				r = refuse(s, field, "tag %s is shared twice", tag);
			} else if (!def->check_share(tag, dir, &env)) {
				r = refuse(s, field, "%s (tag %s) is not a folder %s shares with its guests "
					   "for this session's baseline kernel (cache entry %s)", dir, tag,
					   type, base.entry_dir);
			}
			if (r)
				break;
			strvec_push(&tags, tag);
		}
		strvec_clear(&tags);
	}
	free(tree);
	free(base.entry_dir);
	return r;
}

int session_resume_check(const struct session *s)
{
	int r = check_kernels(s);

	if (!r)
		r = check_guest(s);
	if (!r)
		r = check_hosts(s);
	if (!r)
		r = check_shares(s);
	return r;
}
