// SPDX-License-Identifier: GPL-2.0
/*
 * What makes the reply mail list-ready, in the manner of LKP's (issue 50):
 * a table of the rows that decided or matter, each kernel's median with
 * its spread and runs; a reproduction recipe that works on someone else's
 * machine (the kernels by source, ref, config digest and patches, the
 * guest and the command, no path of the sender's); and the series'
 * author for To when lab.conf names nobody.
 */
#include "report.h"
#include "report_headline.h"
#include "report_priv.h"
#include "report_validity.h"
#include "escape.h"
#include "mail_addr.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define LKP_MAX_ROWS 20		/* a mail, not the report: the rest is counted */

static const char *or(const char *s, const char *def)
{
	return s ? s : def;
}

/* Does @r go in the mail: a primary, or a metric that decided (not a counter)? */
static int mail_row(const struct result_record *r, int any_primary)
{
	if (!r->verdict_id || r->is_counter)
		return 0;
	if (any_primary && r->primary)
		return 1;
	return r->verdict == VERDICT_REGRESSION || r->verdict == VERDICT_IMPROVEMENT;
}

/* "176701 +-1.2%": a kernel's median and its CV, 13 columns (78 in all). */
static void side_cell(const struct result_side *s, struct strbuf *sb)
{
	char num[32], cell[48];

	fmt_num(num, sizeof(num), s->median);
	if (isfinite(s->cv))
		snprintf(cell, sizeof(cell), "%s +-%.1f%%", num, 100 * s->cv);
	else
		snprintf(cell, sizeof(cell), "%s", num);
	sb_addf(sb, "%13s", cell);
}

void report_mail_rows(const struct report_view *v, const struct headline *h, struct strbuf *sb)
{
	size_t shown = 0, left = 0;
	int any_primary = 0;

	for (size_t i = 0; i < v->nresults; i++)
		any_primary |= v->results[i].primary;
	sb_adds(sb, "\nPer metric (base and patched: median +-CV; change and interval of the "
		"median's\nratio; runs per kernel):\n\n");
	sb_addf(sb, "  %13s %13s %7s %16s %-16s %s\n", "base", "patched", "change", "interval",
		"verdict", "runs");
	for (size_t i = 0; i < v->nresults; i++) {
		const struct result_record *r = &v->results[i];
		struct headline_line l = { 0 };
		struct strbuf name = STRBUF_INIT;
		char d[32], ci[48];

		if (!mail_row(r, any_primary))
			continue;
		if (shown == LKP_MAX_ROWS) {
			left++;
			continue;
		}
		shown++;
		/* the headline's own line: the same change, interval and label */
		for (size_t k = 0; k < h->nlines; k++)
			if (h->lines[k].workload == r->workload && h->lines[k].metric == r->metric)
				l = h->lines[k];
		if (!l.workload) {
			l.verdict_label = stats_verdict_label(r->verdict);
			l.delta_pct = r->change.delta_pct;
			l.lo_pct = 100 * (r->change.lo - 1);
			l.hi_pct = 100 * (r->change.hi - 1);
			l.fewest_runs = r->side[0].n < r->side[1].n ? r->side[0].n : r->side[1].n;
		}
		headline_change(&l, d, sizeof(d));
		headline_interval(&l, ci, sizeof(ci));
		sb_addf(&name, "%s: %s", or(r->workload, "?"), or(r->metric, "?"));
		if (r->unit)
			sb_addf(&name, " (%s)", r->unit);
		sb_adds(sb, "  ");
		sb_add_text_fit(sb, sb_str(&name), 76);
		sb_adds(sb, "\n  ");
		side_cell(&r->side[0], sb);
		sb_addc(sb, ' ');
		side_cell(&r->side[1], sb);
		sb_addf(sb, " %7s %16s %-16s %ld/%ld\n", d, ci, l.verdict_label, r->side[0].n,
			r->side[1].n);
		sb_release(&name);
	}
	if (!shown)
		sb_adds(sb, "  (no metric decided, and no primary declared)\n");
	if (left)
		sb_addf(sb, "  (%zu more that decided: the report lists them)\n", left);
}

/* @path's last component: a path of the sender's says nothing to a reader. */
static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash && slash[1] ? slash + 1 : path;
}

/* @cmd with each absolute path reduced to its file name, as the recipe's lab.conf is. */
static void command_without_paths(const char *cmd, struct strbuf *out)
{
	struct strbuf word = STRBUF_INIT;

	for (const char *p = cmd; *p;) {
		size_t n = strcspn(p, " ");

		sb_reset(&word);
		sb_add(&word, p, n);
		if (word.buf[0] == '/' || !strncmp(word.buf, "~/", 2))
			sb_add_text_safe(out, base_name(word.buf));
		else
			sb_add_text_safe(out, word.buf);
		p += n;
		while (*p == ' ')
			sb_addc(out, *p++);
	}
	sb_release(&word);
}

/*
 * @text (made safe by the caller) as lines of at most @width columns,
 * broken between words, the first indented by @first, the rest by @rest
 * spaces: a recipe must be copied whole, never cut short with "~". A
 * word longer than the line keeps its own line.
 */
static void wrap_words(struct strbuf *sb, const char *text, int first, int rest, size_t width)
{
	size_t col = (size_t)first;

	sb_addf(sb, "%*s", first, "");
	for (const char *p = text; *p;) {
		size_t n;

		while (*p == ' ')
			p++;
		n = strcspn(p, " ");
		if (!n)
			break;
		if (col > (size_t)first && col + 1 + n > width) {
			sb_addf(sb, "\n%*s", rest, "");
			col = (size_t)rest;
		} else if (col > (size_t)first) {
			sb_addc(sb, ' ');
			col++;
		}
		sb_add(sb, p, n);
		col += n;
		p += n;
	}
	sb_addc(sb, '\n');
}

/* A digest as git abbreviates an object: 12 hex digits name it among many. */
#define RECIPE_DIGEST_LEN 12

/* "sha256:" and the first 12 digits of @digest, with or without its "sha256:" already. */
static void short_digest(struct strbuf *sb, const char *digest)
{
	struct strbuf s = STRBUF_INIT;

	if (!strncmp(digest, "sha256:", 7))
		digest += 7;
	sb_adds(sb, "sha256:");
	sb_add(&s, digest, strnlen(digest, RECIPE_DIGEST_LEN));
	sb_add_text_safe(sb, sb_str(&s));
	sb_release(&s);
}

/* The base as anyone can fetch it: the archive's digest, the commit, the tree's digest. */
static void source_identity(struct strbuf *sb, const char *id)
{
	struct strbuf s = STRBUF_INIT;

	if (!id)
		return;
	if (!strncmp(id, "tar:", 4)) {
		sb_adds(sb, " (");
		short_digest(sb, id + 4);
		sb_adds(sb, ")");
	} else if (!strncmp(id, "git:", 4) || !strncmp(id, "dir:", 4)) {
		sb_adds(sb, *id == 'g' ? " (commit " : " (tree ");
		sb_add(&s, id + 4, strnlen(id + 4, RECIPE_DIGEST_LEN));
		sb_add_text_safe(sb, sb_str(&s));
		sb_adds(sb, ")");
	}
	sb_release(&s);
}

/*
 * A session folder's name as the lab makes them (20261206-162814-ab):
 * letters, digits, '-', '_' and '.', not starting with '.', so that a
 * hand-edited report.json ("..") cannot point the link elsewhere.
 */
static int plain_session_id(const char *id)
{
	if (!id || !*id || *id == '.' || strlen(id) > 128)
		return 0;
	return id[strspn(id, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.")] == 0;
}

/*
 * "BASE_URL/SESSION/inputs/" (the session's copy of its inputs), or
 * nothing: without base_url, without a plain session id, or for a session
 * from before the copies (no session.lab_conf_sha256, no inputs/ folder:
 * its recipe keeps the digests rather than link what is not there).
 */
static int inputs_url(const struct report_view *v, const char *base_url, struct strbuf *sb)
{
	if (!base_url || !*base_url || !plain_session_id(v->session.id) ||
	    !v->session.lab_conf_sha256)
		return 0;
	sb_add_text_safe(sb, base_url);
	if (base_url[strlen(base_url) - 1] != '/')
		sb_addc(sb, '/');
	sb_add_url_path(sb, v->session.id, 0);
	sb_adds(sb, "/inputs/");
	return 1;
}

/* Each series file: its digest and name, or where the session published it. */
static void series_files_recipe(const struct report_view *v, const struct sdoc_kernel *k,
				const char *base_url, struct strbuf *sb)
{
	struct strbuf s = STRBUF_INIT;

	for (size_t i = 0; i < k->series_files.n; i++) {
		const struct sdoc_series_file *f = sdoc_series_file_at(k, i);

		if (!f->sha256)
			continue;
		sb_reset(&s);
		sb_adds(&s, "series ");
		if (inputs_url(v, base_url, &s)) {
			struct strbuf d = STRBUF_INIT;

			/* the session's copy, under its digest's first digits */
			sb_add(&d, f->sha256, strnlen(f->sha256, RECIPE_DIGEST_LEN));
			sb_add_url_path(&s, sb_str(&d), 0);
			sb_adds(&s, ".mbox");
			sb_release(&d);
		} else {
			short_digest(&s, f->sha256);
			if (f->file) {
				sb_adds(&s, " ");
				sb_add_text_safe(&s, base_name(f->file));
			}
		}
		wrap_words(sb, sb_str(&s), 4, 6, 76);
	}
	sb_release(&s);
}

static void kernel_recipe(const struct report_view *v, const struct sdoc_kernel *k,
			  const char *base_url, struct strbuf *sb)
{
	struct strbuf s = STRBUF_INIT;

	sb_add_text_safe(&s, or(k->name, "?"));
	sb_adds(&s, ": ");
	sb_add_text_safe(&s, base_name(or(k->source, "?")));
	source_identity(&s, k->source_id);
	if (k->ref) {
		sb_adds(&s, " at ");
		sb_add_text_safe(&s, k->ref);
	}
	if (k->config_hash) {
		sb_adds(&s, ", config ");
		short_digest(&s, k->config_hash);
	}
	wrap_words(sb, sb_str(&s), 2, 4, 76);
	if (k->series.n) {
		const char *first = sdoc_patch_at(k, 0)->hash;
		const char *last = sdoc_patch_at(k, k->series.n - 1)->hash;

		sb_reset(&s);
		sb_addf(&s, "+ %zu patch%s", k->series.n, k->series.n == 1 ? "" : "es");
		/* a watched series' mails carry no commit: no "?..?" */
		if (first && last)
			sb_addf(&s, ", %.*s..%.*s", RECIPE_DIGEST_LEN, first, RECIPE_DIGEST_LEN, last);
		sb_adds(sb, "    ");
		sb_add_text_fit(sb, sb_str(&s), 74);
		sb_addc(sb, '\n');
	}
	series_files_recipe(v, k, base_url, sb);
	sb_release(&s);
}

/* The lab file that ran: its digest, or where the session published it. */
static void lab_conf_recipe(const struct report_view *v, const char *base_url, struct strbuf *sb)
{
	struct strbuf s = STRBUF_INIT;

	sb_adds(&s, "lab.conf ");
	if (inputs_url(v, base_url, &s))
		sb_adds(&s, "lab.conf");
	else if (v->session.lab_conf_sha256)
		short_digest(&s, v->session.lab_conf_sha256);
	else
		sb_reset(&s);
	if (s.len)
		wrap_words(sb, sb_str(&s), 2, 4, 76);
	sb_release(&s);
}

void report_mail_recipe(const struct report_view *v, const char *base_url, struct strbuf *sb)
{
	struct validity val;
	struct strbuf s = STRBUF_INIT;

	validity_of(v, &val);
	sb_adds(sb, "\nTo reproduce (README.md sets up the lab; the kernels by source, ref,\n"
		"config digest and patches, which lab.conf's [kernel] sections name):\n");
	for (size_t i = 0; i < v->nkernels; i++)
		kernel_recipe(v, &v->kernels[i], base_url, sb);
	lab_conf_recipe(v, base_url, sb);
	sb_addf(&s, "guest %s: %lld vCPUs, %.0f MiB, %zu node%s, %s", or(v->guest.doc.name, "?"),
		v->guest.doc.vcpus, v->guest.doc.memory_mib, v->guest.nnodes, v->guest.nnodes == 1 ? "" : "s",
		val.mode);
	sb_adds(sb, "  ");
	sb_add_text_fit(sb, sb_str(&s), 76);
	sb_addc(sb, '\n');
	if (v->session.command) {
		sb_reset(&s);
		command_without_paths(v->session.command, &s);
		wrap_words(sb, sb_str(&s), 2, 4, 76);
	}
	sb_release(&s);
}

int report_mail_series_author(const struct report_view *v, struct mail_addr *out)
{
	const struct sdoc_kernel *k = NULL;
	struct strbuf s = STRBUF_INIT;
	int r;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < v->nkernels && !k; i++)
		if (v->kernels[i].name && v->design.patched &&
		    !strcmp(v->kernels[i].name, v->design.patched))
			k = &v->kernels[i];
	if (!k)
		return -1;
	/* a session's record; else the first patch's author of older reports */
	if (k->series_author.address && !mail_addr_spec_ok(k->series_author.address)) {
		return -1;
	} else if (k->series_author.address) {
		/* as one "Name <address>", salvaged again: the record is anyone's to edit */
		sb_addc(&s, '"');
		for (const char *c = or(k->series_author.name, ""); *c; c++)
			if (*c != '"' && *c != '\\')
				sb_addc(&s, *c);
		sb_addf(&s, "\" <%s>", k->series_author.address);
	} else if (k->series.n && sdoc_patch_at(k, 0)->author) {
		sb_adds(&s, sdoc_patch_at(k, 0)->author);
	}
	r = s.len ? mail_addr_salvage(sb_str(&s), out) : -1;
	sb_release(&s);
	return r;
}

const char *report_mail_series_posted_to(const struct report_view *v)
{
	for (size_t i = 0; i < v->nkernels; i++)
		if (v->kernels[i].name && v->design.patched &&
		    !strcmp(v->kernels[i].name, v->design.patched))
			return v->kernels[i].posted_to;
	return NULL;
}
