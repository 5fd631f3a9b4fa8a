// SPDX-License-Identifier: GPL-2.0
/*
 * A session's kernels: which ones the mode asks for, built or found in the
 * kernel cache (lab/kernel/), and how session.json describes them. A
 * signal stops a build (lab/lib/interrupt.h stops make) and the next one
 * does not start. The results hold their cache entries (kcache.h) until
 * the session ends, so that `kernel gc` leaves the images it boots alone.
 */
#include "session_priv.h"
#include "xjson.h"
#include "escape.h"
#include "fsutil.h"
#include "interrupt.h"
#include "kcache.h"
#include "kimage.h"
#include "mbox.h"
#include "report.h"
#include "sha256.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int build(const struct lab_config *cfg, const struct kernel_cfg *k, struct kbuild_result *res)
{
	if (interrupted())
		return lab_error("interrupted by signal %d", interrupted());
	return kbuild_kernel(cfg, k, res);
}

int session_kernel_first(struct session *s, struct kbuild_result *res)
{
	const struct kernel_cfg *k0 = NULL;

	if (s->o->mode == SESSION_ONE && s->o->kernel)
		k0 = config_kernel(&s->cfg, s->o->kernel);
	else if (s->cfg.run.kernels.n)
		k0 = config_kernel(&s->cfg, s->cfg.run.kernels.v[0]);
	if (!k0)
		return user_error("run: no kernel to run in %s", s->cfg.path);
	return build(&s->cfg, k0, res);
}

static int pick_kernels(struct session *s, struct session_kernels *sk)
{
	struct lab_config *cfg = &s->cfg;
	const struct kernel_cfg **k = sk->cfg;

	if (s->o->mode == SESSION_ONE) {
		const char *n = s->o->kernel ? s->o->kernel :
				(cfg->run.kernels.n ? cfg->run.kernels.v[0] : NULL);
		if (!n || !(k[0] = config_kernel(cfg, n)))
			return user_error("run: no kernel '%s' in %s", n ? n : "(none)", cfg->path);
		sk->name[0] = k[0]->name;
		sk->role[0] = "baseline";
		sk->n = 1;
		return LAB_OK;
	}
	if (cfg->run.kernels.n < (s->o->mode == SESSION_AB ? 2u : 1u))
		return user_error("run --%s: [run] kernels in %s must name %s", s->o->mode == SESSION_AB ? "ab" : "aa",
				  cfg->path, s->o->mode == SESSION_AB ? "two kernels" : "a kernel");
	k[0] = config_kernel(cfg, cfg->run.kernels.v[0]);
	sk->name[0] = k[0]->name;
	sk->role[0] = "baseline";
	if (s->o->mode == SESSION_AB) {
		k[1] = config_kernel(cfg, cfg->run.kernels.v[1]);
		sk->name[1] = k[1]->name;
	} else {
		/* A/A: the baseline against itself, under a second name. */
		k[1] = k[0];
		sk->aa_name = xasprintf("%s-again", sk->name[0]);
		sk->name[1] = sk->aa_name;
	}
	sk->role[1] = "patched";
	sk->n = 2;
	return LAB_OK;
}

int session_kernels_build(struct session *s, struct session_kernels *sk)
{
	struct kbuild_result *res = sk->res;
	int r = pick_kernels(s, sk);

	for (int i = 0; i < sk->n && !r; i++) {
		/* Found (built) already for the accel probe: session_kernel_first(). */
		if (i == 0 && res[0].bzimage)
			continue;
		if (i == 1 && sk->cfg[1] == sk->cfg[0]) {
			res[1] = res[0];
			res[1].entry_dir = xstrdup(res[0].entry_dir);
			res[1].bzimage = xstrdup(res[0].bzimage);
			/* A hold of its own (the same lock): each result closes its descriptor. */
			res[1].hold_fd = res[0].hold_fd >= 0 ?
					 fcntl(res[0].hold_fd, F_DUPFD_CLOEXEC, 0) : -1;
			continue;
		}
		r = build(&s->cfg, sk->cfg[i], &res[i]);
	}
	return r;
}

int session_kernels_hold(struct session *s)
{
	for (size_t i = 0; i < s->jobs.nk; i++) {
		const char *img = s->jobs.k[i].bzimage;
		char *entry = img ? path_dirname(img) : NULL;
		int fd = entry ? kcache_entry_hold(entry) : -1;

		free(entry);
		/* An image outside any cache entry (the lab writes none) is used unheld. */
		if (fd < 0 && (!img || !is_regular_file(img)))
			return user_error("%s: kernel image %s is gone from the cache; rebuild it with "
					  "'mglrulab kernel build' (same inputs, same key)", s->dir,
					  img ? img : "(none)");
		if (i < ARRAY_SIZE(s->kernel_holds))
			s->kernel_holds[i] = fd;
		else if (fd >= 0)
			close(fd);
	}
	return LAB_OK;
}

void session_kernels_release(struct session_kernels *sk)
{
	kbuild_result_release(&sk->res[0]);
	kbuild_result_release(&sk->res[1]);
	free(sk->aa_name);
	memset(sk, 0, sizeof(*sk));
}

/*
 * Where the series was posted (mbox_thread()): the Message-Ids of its
 * mails and its cover letter, for a reply mail that threads under the
 * series, its To and Cc and its author, into @k's row. The files were
 * just read to build the kernel; one that no longer splits leaves them
 * out, not the session.
 */
static void series_thread(const struct kernel_cfg *k, struct session_doc *d, struct sdoc_kernel *row)
{
	struct patch_list pl = { 0 };
	struct strbuf err = STRBUF_INIT;
	struct mbox_thread t;
	struct sdoc_patch *series = row->series.v;

	for (size_t i = 0; i < k->series.n; i++) {
		if (mbox_split(k->series.v[i], &pl, &err)) {
			debug("no Message-Ids for [kernel %s]: %s", k->name, sb_str(&err));
			goto out;
		}
	}
	mbox_thread(&pl, &t);
	row->posted_to = session_doc_keep(d, t.posted_to);
	if (t.has_author)
		row->series_author = (struct sdoc_series_author){ 1,
			session_doc_keep(d, t.author_name), session_doc_keep(d, t.author_address) };
	/* A prefix kernel (NAME@K) applied only the first K of them. */
	for (size_t i = 0; i < t.n && i < row->series.n; i++)
		series[i].message_id = session_doc_keep(d, t.message_ids[i]);
	if (t.has_cover)
		row->cover = (struct sdoc_cover){ 1, session_doc_keep(d, t.cover_subject),
			session_doc_keep(d, t.cover_message_id) };
	mbox_thread_release(&t);
out:
	patch_list_release(&pl);
	sb_release(&err);
}

/* The series as the cache entry built it: its subjects and files, @d keeping their strings. */
static void series_rows(const struct kernel_cfg *k, const struct kcache_meta *meta,
			struct session_doc *d, struct sdoc_kernel *row)
{
	struct sdoc_patch *series = xcalloc(meta->subjects.n + 1, sizeof(*series));
	struct sdoc_series_file *files = xcalloc(meta->nr_series + 1, sizeof(*files));

	for (size_t i = 0; i < meta->subjects.n; i++)
		series[i].subject = session_doc_keep(d, meta->subjects.v[i]);
	/*
	 * The digests are the cache entry's; the files this lab.conf names
	 * (the entry's own paths are those of whichever checkout built it
	 * first: the key holds the series' bytes, so they are the same files).
	 */
	for (size_t i = 0; i < meta->nr_series; i++) {
		files[i].file = session_doc_keep(d, meta->nr_series == k->series.n ?
						    k->series.v[i] : meta->series[i].file);
		files[i].sha256 = session_doc_keep(d, meta->series[i].sha256);
	}
	row->series = (struct sdoc_array){ series, meta->subjects.n, 1 };
	row->series_files = (struct sdoc_array){ files, meta->nr_series, 1 };
}

static void kernel_row(const struct kernel_cfg *k, const char *name, const char *role,
		       const struct kbuild_result *res, struct session_doc *d,
		       struct sdoc_kernel *row)
{
	struct kcache_meta meta;
	struct strbuf err = STRBUF_INIT;

	/* An unreadable meta.json leaves the series empty, as the kernel list shows it. */
	if (kcache_entry_meta(res->entry_dir, &meta, &err))
		debug("%s", sb_str(&err));
	row->name = session_doc_keep(d, name);
	row->role = session_doc_keep(d, role);
	row->source = session_doc_keep(d, k->source);
	row->ref = session_doc_keep(d, k->ref);
	series_rows(k, &meta, d, row);
	row->config_hash = session_doc_keep(d, meta.config_sha256);
	row->cache_key = session_doc_keep(d, res->key);
	row->bzimage = session_doc_keep(d, res->bzimage);
	row->config_name = session_doc_keep(d, k->name);
	/* the base as anyone names it (an archive's digest, a commit), for the mail's recipe */
	row->source_id = session_doc_keep(d, meta.source_id);
	series_thread(k, d, row);
	/* The release the image reports ("6.12.57"): what the report names the kernel by. */
	char *release = kimage_release(res->bzimage);

	row->version = session_doc_keep(d, release);
	free(release);
	kcache_meta_release(&meta);
	sb_release(&err);
}

struct sdoc_array session_kernels_rows(const struct session_kernels *sk, struct session_doc *d)
{
	struct sdoc_kernel *v = xcalloc((size_t)sk->n + 1, sizeof(*v));

	for (int i = 0; i < sk->n; i++) {
		sdoc_fields_init(sdoc_kernel_fields, &v[i]);
		kernel_row(sk->cfg[i], sk->name[i], sk->role[i], &sk->res[i], d, &v[i]);
	}
	return (struct sdoc_array){ .v = v, .n = (size_t)sk->n, .present = 1 };
}

char *session_kernel_tree(const struct kbuild_result *res)
{
	struct kcache_meta meta;
	struct strbuf err = STRBUF_INIT;
	char *r = NULL;

	if (kcache_entry_meta(res->entry_dir, &meta, &err))
		debug("%s", sb_str(&err));
	if (meta.tree && *meta.tree && !access(meta.tree, R_OK | X_OK))
		r = realpath(meta.tree, NULL);
	kcache_meta_release(&meta);
	sb_release(&err);
	return r;
}

/* Build logs belong with the session. */
void session_kernels_copy_logs(const struct session *s, const struct session_kernels *sk)
{
	for (int i = 0; i < sk->n; i++) {
		char *from = xasprintf("%s/build.log", sk->res[i].entry_dir);
		char *to = xasprintf("%s/logs/build-%s.log", s->dir, sk->name[i] ? sk->name[i] : "kernel");
		/* an entry stored without its log (kbuild warned then) has none */
		if (copy_file(from, to, 0644) && errno != ENOENT)
			warning("cannot copy %s to %s: %s", from, to, strerror(errno));
		free(from);
		free(to);
	}
}

/*
 * Sections of lab.conf that describe this machine and its people, not the
 * experiment: its folders ([lab]), the hosts and their URIs ([host NAME]),
 * where mail goes ([report]) and the list watch ([watch]).
 */
static int private_section(const char *line, size_t n)
{
	static const char *const kinds[] = { "lab", "host", "report", "watch" };
	size_t i = 1, k;

	while (i < n && (line[i] == ' ' || line[i] == '\t'))
		i++;
	k = i;
	while (k < n && line[k] != ' ' && line[k] != '\t' && line[k] != ']')
		k++;
	for (size_t j = 0; j < sizeof(kinds) / sizeof(*kinds); j++)
		if (k - i == strlen(kinds[j]) && !memcmp(line + i, kinds[j], k - i))
			return 1;
	return 0;
}

/*
 * lab.conf as published beside the report (inputs/lab.conf): without its
 * private sections (above), each replaced by a comment that says so, so
 * that [report] base_url publishes no host URI, address or folder of this
 * machine. session.lab_conf_sha256 stays the digest of the whole file.
 */
static int copy_lab_conf_public(const char *from, const char *to)
{
	struct strbuf in = STRBUF_INIT, out = STRBUF_INIT;
	int skip = 0, rc = -1;

	if (read_file(from, &in, 4 << 20))
		goto done;
	for (const char *p = sb_str(&in), *end = p + in.len; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) + 1 : (size_t)(end - p);
		const char *q = p;

		while (q < p + n && (*q == ' ' || *q == '\t'))
			q++;
		if (q < p + n && *q == '[') {
			skip = private_section(q, (size_t)(p + n - q));
			if (skip)
				sb_addf(&out, "# %.*s left out of the published copy\n",
					(int)strcspn(q, "]\n") + (q[strcspn(q, "]\n")] == ']'), q);
		}
		if (!skip)
			sb_add(&out, p, n);
		p += n;
	}
	rc = write_file_atomic(to, out.buf ? out.buf : "", out.len);
done:
	sb_release(&in);
	sb_release(&out);
	return rc;
}

/*
 * The session's inputs for a reader elsewhere: lab.conf (its public part)
 * and each series file in inputs/, a series under its digest's first 12 digits
 * (inputs/71dafa1b0ec3.mbox, of kernels[].series_files[].sha256), so that a report published under
 * [report] base_url links what reproduces it (the mail's recipe). A file
 * that cannot be copied is warned of, not the session's end.
 */
void session_copy_inputs(const struct session *s, const struct session_kernels *sk)
{
	char *dir = xasprintf("%s/inputs", s->dir), *to;
	char hex[SHA256_HEX_LEN + 1];

	if (mkdir_p(dir, 0755)) {
		warning("cannot create %s: %s", dir, strerror(errno));
		free(dir);
		return;
	}
	to = xasprintf("%s/lab.conf", dir);
	if (s->cfg.path && copy_lab_conf_public(s->cfg.path, to))
		warning("cannot copy %s to %s: %s", s->cfg.path, to, strerror(errno));
	free(to);
	for (int i = 0; i < sk->n; i++) {
		for (size_t k = 0; sk->cfg[i] && k < sk->cfg[i]->series.n; k++) {
			const char *from = sk->cfg[i]->series.v[k];

			if (sha256_file_hex(from, hex)) {
				warning("cannot read %s: %s", from, strerror(errno));
				continue;
			}
			to = xasprintf("%s/%.12s.mbox", dir, hex);
			if (copy_file(from, to, 0644))
				warning("cannot copy %s to %s: %s", from, to, strerror(errno));
			free(to);
		}
	}
	free(dir);
}

const char *session_kernel_image(const struct session *s, const char *name)
{
	return session_jobs_image(&s->jobs, name);
}
