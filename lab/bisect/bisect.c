// SPDX-License-Identifier: GPL-2.0
/*
 * mglrulab bisect (bisect.h): the command, its setup and the state on disk
 * (bisect.json), the search over the prefixes and the per-patch walk. The
 * steps as sessions are bisect_steps.c, their decisions bisect_decide.c,
 * the summary bisect_text.c; the search itself is bisect_search.c.
 */
#include "bisect_priv.h"
#include "bisect_doc.h"
#include "escape.h"
#include "fsutil.h"
#include "interrupt.h"
#include "kbuild.h"
#include "lockfile.h"
#include "mbox.h"
#include "report_result.h"
#include "report_view.h"
#include "session.h"
#include "stamped_dir.h"
#include "xjson.h"

#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* bisect.json: the state encoded by its table, written atomically. */
LAB_MUST_CHECK int bisect_save(struct bisect *bs)
{
	char *path = xasprintf("%s/bisect.json", bs->dir);
	json_t *j = bisect_doc_encode(&bs->doc);
	int r = session_write_json(path, j) ?
		lab_error("cannot write %s: %s", path, strerror(errno)) : LAB_OK;

	json_decref(j);
	free(path);
	return r;
}

void bisect_say(const char *fmt, ...)
{
	va_list ap;

	if (lab_quiet)
		return;
	fputs("bisect: ", stderr);
	va_start(ap, fmt);
	term_vprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* The kernel after the first @k patches: the baseline, NAME@K, or the series itself. */
char *bisect_prefix_name(const struct bisect *bs, long k)
{
	if (k == 0 && bs->base_is_prefix0)
		return xstrdup(bs->base);
	if (k == bs->n)
		return xstrdup(bs->series);
	return xasprintf("%s%c%ld", bs->series, CONFIG_PREFIX_SEP, k);
}

/* 1 when @results says some metric of @tracked differs (improvement or regression). */
static int moves_any(const struct sdoc_array *tracked, const struct sdoc_array *results)
{
	struct step_results t, rs;
	int any = 0;

	step_results_of(tracked, &t);
	step_results_of(results, &rs);
	for (size_t i = 0; i < t.n; i++)
		any |= bisect_decisive(step_results_find(&rs, t.v[i].workload, t.v[i].metric));
	step_results_release(&t);
	step_results_release(&rs);
	return any;
}

/*
 * The culprit's own step with --attribute: where its instructions moved,
 * from the step session's report (its "attribution" member), into
 * result.attribution (a reference @end holds) and a few lines of @text.
 */
static void culprit_attribution(struct bisect *bs, const char *before, const char *at,
				struct bisect_doc_end *end, struct strbuf *text)
{
	const struct bisect_doc_step *st = bisect_find_step(bs, before, at);
	struct strbuf err = STRBUF_INIT;
	struct view_attribution va;
	int found = st != NULL;
	json_t *report = found ? bisect_step_report(bs, st, &err) : NULL, *a;

	a = report_attr_json(report);
	sb_adds(text, "where its instructions moved (docs/attribution.md):\n");
	if (!found) {
		sb_adds(text, "  not attributed: its step has no session\n");
	} else if (!report) {
		sb_adds(text, "  not shown: cannot read the step's report: ");
		sb_add_text_safe(text, sb_str(&err));
		sb_addc(text, '\n');
	} else if (!a) {
		/* a step measured before --attribute was asked for (an earlier step of these kernels) */
		sb_adds(text, "  not attributed: its step's report has no attribution\n");
	} else if (report_attr_decode(report, &va, &err)) {
		sb_adds(text, "  not shown: ");
		sb_add_text_safe(text, sb_str(&err));
		sb_addc(text, '\n');
		report_attr_release(&va);
	} else {
		report_attr_brief(&va, text, 0);
		report_attr_release(&va);
		end->attribution = json_incref(a);
	}
	json_decref(report);
	sb_release(&err);
}

/* After a culprit: its own effect, and what the patches after it do. */
static int culprit_effects(struct bisect *bs, long c, struct bisect_doc_end *end,
			   struct strbuf *text)
{
	const struct sdoc_array *tracked = &bs->doc.tracked, *rest;
	char *before = bisect_prefix_name(bs, c - 1), *at = bisect_prefix_name(bs, c);
	struct sdoc_array own;
	enum prefix_build built;
	int r = LAB_OK;

	/* Patch 1 against the series' source: the baseline, when NAME@0 does not build. */
	if (c == 1 && !bs->base_is_prefix0) {
		r = bisect_build_prefix(bs, 0, &built);
		if (!r && built == PREFIX_UNBUILDABLE) {
			free(before);
			before = xstrdup(bs->base);
		}
	}
	if (!r)
		r = bisect_run_step(bs, "own-effect", before, at, NULL, bs->o->attribute, &own);
	if (r)
		goto out;
	sb_addf(text, "\nits own effect (%s against %s):\n", at, before);
	bisect_fmt_tracked(text, tracked, &own);
	end->own_effect = bisect_doc_results_copy(&own);
	if (bs->o->attribute != RUN_ATTRIBUTE_OFF)
		culprit_attribution(bs, before, at, end, text);
	rest = c < bs->n ? bisect_results_of(bs, at, bs->series) : NULL;
	if (c < bs->n && !rest && !bisect_find_step(bs, at, bs->series)) {
		char range[48];

		/* The probe placed c by its first session alone (the midpoint rule). */
		if (c + 1 == bs->n)
			snprintf(range, sizeof(range), "patch %ld", c + 1);
		else
			snprintf(range, sizeof(range), "patches %ld..%ld", c + 1, bs->n);
		sb_addf(text, "the remaining %s: not measured (the probe placed patch %ld with one "
			"session); mglrulab run --ab %s %s measures %s\n", range, c, at, bs->series,
			c + 1 == bs->n ? "it" : "them");
		end->remaining.present = -1;
	} else if (c < bs->n) {
		if (c + 1 == bs->n)
			sb_addf(text, "the remaining patch %ld (%s against %s):\n", c + 1, bs->series, at);
		else
			sb_addf(text, "the remaining patches %ld..%ld (%s against %s):\n", c + 1, bs->n,
				bs->series, at);
		/* the step is there, not measured: its results read as none, as ever */
		bisect_fmt_tracked(text, tracked, rest);
		if (rest)
			end->remaining = bisect_doc_results_copy(rest);
		else
			end->remaining.present = -1;
		int adds = moves_any(tracked, rest);

		sb_addf(text, "  %s\n", adds ? "they move it further: see the verdict above" :
			"nothing the lab can resolve at this step's runs (no improvement or regression)");
	} else {
		sb_adds(text, "it is the last patch: nothing comes after it\n");
	}
out:
	free(before);
	free(at);
	return r;
}

static int search(struct bisect *bs, struct strbuf *text)
{
	struct bisect_result br;
	struct bisect_doc_end end;
	int r = LAB_OK;

	bisect_search(bs->n, bisect_oracle, bs, &br);
	if (br.outcome == BISECT_INTERRUPTED)
		return bs->status ? bs->status : LAB_ELAB;
	bisect_doc_end_init(&end);
	end.outcome = bisect_outcome_name(br.outcome);
	end.first = br.first;
	end.last = br.last;
	end.probes = br.probes;
	switch (br.outcome) {
	case BISECT_FOUND:
		end.culprit = br.culprit;
		/* patches[] has n patches (checked): the culprit's is there */
		if (bisect_doc_patch_at(&bs->doc, br.culprit)) {
			end.patch = *bisect_doc_patch_at(&bs->doc, br.culprit);
			end.patch.present = 1;
		}
		sb_adds(text, "\nculprit: ");
		bisect_fmt_patch(text, bs, br.culprit);
		r = culprit_effects(bs, br.culprit, &end, text);
		break;
	case BISECT_SPREAD:
		end.split = br.split;
		sb_addf(text, "\nno single culprit: the change is spread over patches %ld..%ld\n"
			"(prefix %ld differs from both the baseline and the series' end):\n",
			br.first, br.last, br.split);
		for (long k = br.first; k <= br.last; k++) {
			sb_adds(text, "  ");
			bisect_fmt_patch(text, bs, k);
		}
		sb_addf(text, "measure each of them with: mglrulab bisect --per-patch (up to %d patches)\n",
			BISECT_PER_PATCH_MAX);
		break;
	case BISECT_SKIPPED_ONLY:
		sb_addf(text, "\nthe change is in patches %ld..%ld; the prefixes between them do not "
			"build, so which one cannot be told:\n", br.first, br.last);
		for (long k = br.first; k <= br.last; k++) {
			sb_adds(text, "  ");
			bisect_fmt_patch(text, bs, k);
		}
		break;
	default:
		sb_addf(text, "\ninconclusive: prefix %ld could not be placed within its step's budget;"
			" the change lies in patches %ld..%ld (raise --max-runs or --budget and run"
			" again)\n", br.split, br.first, br.last);
		break;
	}
	if (!r)
		r = bisect_finish(bs, &end, text);
	json_decref((json_t *)end.attribution);
	bisect_doc_end_release(&end);
	return r;
}

/* --- per patch --- */

/* The waterfall's next step: patches @from+1..@to, @a against @b (taken: free_waterfall()). */
static void waterfall_add(struct sdoc_array *wf, long from, long to, char *a, char *b,
			  const struct sdoc_array *res)
{
	struct bisect_doc_wf_step *v = xrealloc(wf->v, (wf->n + 1) * sizeof(*v));

	wf->v = v;
	v[wf->n++] = (struct bisect_doc_wf_step){ .from = from, .to = to, .a = a, .b = b,
						  .results = bisect_doc_results_copy(res) };
}

static void free_waterfall(struct bisect_doc_end *end)
{
	struct bisect_doc_wf_step *v = end->waterfall.v;

	for (size_t i = 0; i < end->waterfall.n; i++) {
		free((char *)v[i].a);
		free((char *)v[i].b);
	}
	bisect_doc_end_release(end);
}

static int per_patch(struct bisect *bs, struct strbuf *text)
{
	const struct sdoc_array *tracked = &bs->doc.tracked;
	struct bisect_doc_end end;
	long prev = 0;
	enum prefix_build built = PREFIX_BUILT;
	int r = LAB_OK;

	bisect_doc_end_init(&end);
	end.outcome = "per-patch";
	end.waterfall.present = 1;
	if (!bs->base_is_prefix0)
		r = bisect_build_prefix(bs, 0, &built);
	/* no prefix 0 to measure patch 1 against: the lab's failure, as it always was */
	if (!r && built == PREFIX_UNBUILDABLE)
		r = LAB_ELAB;
	if (r)
		goto out;
	sb_addf(text, "\nper patch (each prefix against the one before it):\n");
	for (long k = 1; k <= bs->n; k++) {
		struct sdoc_array res;

		built = PREFIX_BUILT;
		r = k < bs->n ? bisect_build_prefix(bs, k, &built) : LAB_OK;
		if (!r && built == PREFIX_UNBUILDABLE) {
			sb_addf(text, "  patch %ld: the prefix does not build; measured with patch %ld\n",
				k, k + 1);
			continue;
		}
		if (r)
			goto out;
		char *a = bisect_prefix_name(bs, prev), *b = bisect_prefix_name(bs, k);
		r = bisect_run_step(bs, "per-patch", a, b, NULL, RUN_ATTRIBUTE_OFF, &res);
		if (r) {
			free(a);
			free(b);
			goto out;
		}
		waterfall_add(&end.waterfall, prev, k, a, b, &res);
		if (prev + 1 == k)
			sb_adds(text, "  ");
		else
			sb_addf(text, "  patches %ld..%ld together, ", prev + 1, k);
		bisect_fmt_patch(text, bs, k);
		bisect_fmt_tracked(text, tracked, &res);
		prev = k;
	}
	r = bisect_finish(bs, &end, text);
out:
	free_waterfall(&end);
	return r;
}

/* --- setup --- */

/*
 * The series' patches, cover letters left out, into @d's patches (their
 * strings are @pl's; free @d's array with bisect_doc_release()).
 */
static int load_patches(const struct kernel_cfg *k, struct patch_list *pl, struct bisect_doc *d)
{
	struct strbuf err = STRBUF_INIT;
	struct bisect_doc_patch *v;
	int r = LAB_OK;

	for (size_t i = 0; i < k->series.n && !r; i++)
		if (mbox_split(k->series.v[i], pl, &err))
			r = user_error("bisect: [kernel %s] series: %s", k->name, sb_str(&err));
	sb_release(&err);
	if (r)
		return r;
	v = xcalloc(pl->n + 1, sizeof(*v));
	d->patches = (struct sdoc_array){ .v = v, .present = 1 };
	for (size_t i = 0; i < pl->n; i++) {
		if (pl->v[i].is_cover)
			continue;
		v[d->patches.n] = (struct bisect_doc_patch){
			.position = (long long)d->patches.n + 1, .subject = pl->v[i].subject,
			.message_id = pl->v[i].message_id, .file = pl->v[i].file,
		};
		d->patches.n++;
	}
	return LAB_OK;
}

/*
 * bisect.json as a bisection begins: its inputs and settings, no step,
 * prefix or probe yet, the series' patches; bs->doc begun with them
 * (bisect_doc_begin() copies what it keeps).
 */
static int begin_state(struct bisect *bs, const struct kernel_cfg *k, const char *base,
		       const char *series, long n)
{
	struct bisect_opts *o = bs->o;
	struct patch_list pl = { 0 };
	struct bisect_doc d;
	json_t *wl = json_array();
	int r;

	for (size_t i = 0; i < o->workloads.n; i++)
		json_array_append_new(wl, json_string(o->workloads.v[i]));
	/* fixed for the bisection, like the other settings: a resume attributes as it began */
	if (o->attribute < 0)
		o->attribute = bs->cfg.run.attribute;
	bisect_doc_init(&d);
	d.schema = BISECT_SCHEMA;
	d.config = bs->cfg.path;
	d.baseline = base;
	d.series_kernel = series;
	d.n = n;
	d.settings = (struct bisect_doc_settings){
		.max_runs = o->max_runs, .budget_s = o->budget_s, .per_patch = !!o->per_patch,
		.workloads = wl, .attribute = config_attribute_name(o->attribute),
	};
	d.complete = 0;
	r = load_patches(k, &pl, &d);
	if (!r && (size_t)n != d.patches.n)
		r = lab_error("bisect: the series counted %ld patches, then %zu", n, d.patches.n);
	bisect_doc_begin(&bs->doc, &d);
	bisect_doc_release(&d);
	patch_list_release(&pl);
	json_decref(wl);
	return r;
}

static int create_dir(struct bisect *bs)
{
	bs->dir = stamped_dir_free(bs->cfg.reports_dir, "bisect");
	if (!bs->dir || mkdir_p(bs->dir, 0755))
		return lab_error("cannot create a bisection folder in %s", bs->cfg.reports_dir);
	/* <reports>/latest-bisect -> it, as reports/latest is for sessions. */
	stamped_dir_link(bs->cfg.reports_dir, "latest-bisect", path_basename(bs->dir));
	return LAB_OK;
}

static int start(struct bisect *bs)
{
	struct bisect_opts *o = bs->o;
	const struct strvec *rk = &bs->cfg.run.kernels;
	const char *base = o->base ? o->base : rk->n > 0 ? rk->v[0] : NULL;
	const char *series = o->series ? o->series : rk->n > 1 ? rk->v[1] : NULL;
	struct strbuf err = STRBUF_INIT;
	int r;

	if (!base || !series)
		return user_error("bisect: name BASE and NEW, or two kernels in [run] kernels of %s",
				  bs->cfg.path);
	const struct kernel_cfg *k = config_kernel(&bs->cfg, series);
	if (!config_kernel(&bs->cfg, base) || !k)
		return user_error("bisect: no [kernel %s] in %s", config_kernel(&bs->cfg, base) ?
				  series : base, bs->cfg.path);
	if (!k->series.n)
		return user_error("bisect: [kernel %s] has no series to bisect", series);
	long n = kbuild_series_length(k, &err);
	if (n < 0) {
		r = user_error("bisect: [kernel %s] series: %s", series, sb_str(&err));
		sb_release(&err);
		return r;
	}
	sb_release(&err);
	if (n < 1)
		return user_error("bisect: the series of [kernel %s] has no patch", series);
	if (o->per_patch && n > BISECT_PER_PATCH_MAX)
		return user_error("bisect --per-patch: the series has %ld patches; per patch is for "
				  "series of up to %d (without it, the bisection probes about log2(N))",
				  n, BISECT_PER_PATCH_MAX);
	struct bisect_confirmed conf = { 0 };

	/* checked before the folder is made: a wrong --confirmed leaves nothing */
	r = o->confirmed ? bisect_confirmed_check(bs, base, series, &conf) : LAB_OK;
	if (!r)
		r = create_dir(bs);
	if (!r)
		r = begin_state(bs, k, base, series, n);
	if (!r && o->confirmed) {
		bs->base = base;
		bs->series = series;
		r = bisect_adopt_confirmed(bs, &conf);
	}
	bisect_confirmed_release(&conf);
	return r ? r : bisect_save(bs);
}

static int resume(struct bisect *bs)
{
	const char *id = bs->o->resume_id;
	char *cand = !id ? xasprintf("%s/latest-bisect", bs->cfg.reports_dir) :
		     strchr(id, '/') ? xstrdup(id) : xasprintf("%s/%s", bs->cfg.reports_dir, id);
	char *path = xasprintf("%s/bisect.json", cand);
	struct strbuf err = STRBUF_INIT;
	const struct bisect_doc_settings *set = &bs->doc.settings;
	int r = LAB_OK;

	if (bisect_doc_load(path, &bs->doc, &err)) {
		r = user_error("bisect --resume: %s", sb_str(&err));
		goto out;
	}
	bs->dir = realpath(cand, NULL);
	bs->o->max_runs = (long)set->max_runs;
	bs->o->budget_s = set->budget_s;
	bs->o->per_patch = set->per_patch == 1;
	/* checked by bisect_doc_load(); absent in a bisection begun before --attribute: off */
	bs->o->attribute = set->attribute ? config_attribute_parse(set->attribute) :
			   RUN_ATTRIBUTE_OFF;
	strvec_clear(&bs->o->workloads);
	/* settings.workloads: JSON, read here alone (bisect_doc.h); names, checked */
	json_t *w;
	size_t i;
	json_array_foreach(set->workloads, i, w)
		strvec_push(&bs->o->workloads, json_string_value(w));
	if (!bs->dir)
		r = lab_error("%s: %s", cand, strerror(errno));
	else if ((bs->complete = bs->doc.complete == 1))
		bisect_say("%s is complete; printing its summary", bs->dir);
	else
		bisect_say("resuming %s", bs->dir);
out:
	sb_release(&err);
	free(path);
	free(cand);
	return r;
}

/* A bisection's own lock: two processes on one folder would measure steps twice. */
static int lock_dir(struct bisect *bs)
{
	char *path = xasprintf("%s/bisect.lock", bs->dir);
	char *who = xasprintf("pid %ld\n", (long)getpid());
	struct strbuf held = STRBUF_INIT;
	int r = LAB_OK;

	switch (lockfile_take(path, 0, who, &held, &bs->lock_fd)) {
	case LOCKFILE_TAKEN:
		break;
	case LOCKFILE_HELD:
		r = user_error("bisect: %s is held (%s)", path, sb_str(&held));
		break;
	case LOCKFILE_FAILED:
		r = lab_error("cannot lock %s: %s", path, strerror(errno));
		break;
	}
	sb_release(&held);
	free(who);
	free(path);
	return r;
}

/* Does NAME@0 resolve to the baseline's cache entry? Then the baseline stands for it. */
static void check_prefix0(struct bisect *bs)
{
	char kb[SHA256_HEX_LEN + 1], k0[SHA256_HEX_LEN + 1];
	struct strbuf err = STRBUF_INIT;
	char *name = xasprintf("%s%c0", bs->series, CONFIG_PREFIX_SEP);
	const struct kernel_cfg *base = config_kernel(&bs->cfg, bs->base);
	const struct kernel_cfg *p0;

	if (!kbuild_lookup(&bs->cfg, base, kb) &&
	    (p0 = config_kernel_resolve(&bs->cfg, name, &err)) && !kbuild_lookup(&bs->cfg, p0, k0))
		bs->base_is_prefix0 = !strcmp(kb, k0);
	sb_release(&err);
	free(name);
}

/* What the confirm step came to, when its status is LAB_OK (confirm()). */
enum confirm_outcome {
	SERIES_CONFIRMED,	/* a tracked metric moved: on to the search */
	SERIES_NOT_CONFIRMED,	/* none did: the bisection is finished, said so */
};

/*
 * The whole series against the baseline, what it came to in *@out.
 * Returns LAB_OK, or the status that stops the bisection (said).
 */
static LAB_MUST_CHECK int confirm(struct bisect *bs, struct strbuf *text,
				  enum confirm_outcome *out)
{
	struct sdoc_array res, tracked;
	int r = bisect_run_step(bs, "confirm", bs->base, bs->series, NULL, RUN_ATTRIBUTE_OFF, &res);

	*out = SERIES_NOT_CONFIRMED;
	if (r)
		return r;
	tracked = bisect_tracked_metrics(&res);
	bisect_doc_set_tracked(&bs->doc, &tracked);
	bisect_doc_results_release(&tracked);
	sb_addf(text, "bisect %s..%s: %ld patch%s\n", bs->base, bs->series, bs->n, bs->n == 1 ? "" : "es");
	sb_addf(text, "whole series (%s against %s):\n", bs->series, bs->base);
	if (!bs->doc.tracked.n) {
		struct step_results rs;

		step_results_of(&res, &rs);
		for (size_t i = 0; i < rs.n; i++) {
			if (!rs.v[i].primary)
				continue;
			sb_addf(text, "    %s %s: ", rs.v[i].workload, rs.v[i].metric);
			bisect_fmt_effect(text, &rs.v[i]);
			sb_addc(text, '\n');
		}
		step_results_release(&rs);
		sb_adds(text, "\nthe whole-series change was not confirmed: no primary metric moved "
			"(improvement or regression); nothing to bisect");
		sb_adds(text, strstr(sb_str(text), " inconclusive\n") ?
			" (an inconclusive verdict may decide with more runs: --max-runs, --budget)\n" : "\n");
		struct bisect_doc_end end;

		bisect_doc_end_init(&end);
		end.outcome = "not-confirmed";
		return bisect_finish(bs, &end, text) ? LAB_ELAB : LAB_OK;
	}
	*out = SERIES_CONFIRMED;
	bisect_fmt_tracked(text, &bs->doc.tracked, &res);
	return bisect_save(bs);
}

/* --json FILE: bisect_summary_json(), or an error naming the file. */
static int write_summary(const struct bisect *bs, int status)
{
	struct strbuf sb = STRBUF_INIT;
	int r = 0;

	/* none yet: the summary says so */
	bisect_summary_json(bs->dir, bs->doc.schema ? &bs->doc : NULL, status, &sb);
	if (write_user_output(bs->o->json, sb.buf, sb.len))
		r = lab_error("cannot write %s: %s", user_output_name(bs->o->json),
			      user_file_strerror(errno));
	sb_release(&sb);
	return r;
}

/* `mglrulab watch`'s reports folder and series kernel (bisect_opts). */
static int callers_config(struct bisect *bs)
{
	const struct bisect_opts *o = bs->o;
	struct strbuf err = STRBUF_INIT;
	int r = LAB_OK;

	if (o->reports_dir) {
		free(bs->cfg.reports_dir);
		bs->cfg.reports_dir = xstrdup(o->reports_dir);
	}
	if (o->series_kernel && session_series_kernel_add(&bs->cfg, o->series_kernel, &err))
		r = user_error("bisect: %s", sb_str(&err));
	sb_release(&err);
	return r;
}

int bisect_main(struct bisect_opts *o)
{
	struct bisect bs = { .o = o, .lock_fd = -1, .saved_stdout = -1 };
	struct strbuf text = STRBUF_INIT;
	enum confirm_outcome confirmed;
	int r;

	bisect_doc_init(&bs.doc);
	r = config_load_or_report(o->config, &bs.cfg);

	if (!r)
		r = callers_config(&bs);
	if (r)
		goto out;
	bs.saved_stdout = stdout_to_stderr();
	if (interrupt_catch()) {
		r = lab_error("cannot set up signal handling: %s", strerror(errno));
		goto out;
	}
	if (mkdir_p(bs.cfg.reports_dir, 0755)) {
		r = lab_error("cannot create %s: %s", bs.cfg.reports_dir, strerror(errno));
		goto out;
	}
	r = o->resume ? resume(&bs) : start(&bs);
	if (!r)
		r = lock_dir(&bs);
	if (r)
		goto out;
	/* a killed bisection's bisect.json.tmp.*: the steps' sessions sweep their own */
	if (o->resume)
		remove_atomic_leftovers(bs.dir);
	bs.base = bs.doc.baseline;
	bs.series = bs.doc.series_kernel;
	bs.n = bisect_doc_long(bs.doc.n);
	if (!bs.base || !bs.series || bs.n < 1 || bs.doc.patches.n != (size_t)bs.n) {
		r = user_error("%s/bisect.json: baseline, series_kernel, n or patches missing", bs.dir);
		goto out;
	}
	if (!config_kernel(&bs.cfg, bs.base) || !config_kernel(&bs.cfg, bs.series)) {
		r = user_error("bisect: %s no longer has [kernel %s] or [kernel %s]", bs.cfg.path,
			       bs.base, bs.series);
		goto out;
	}
	check_prefix0(&bs);
	r = confirm(&bs, &text, &confirmed);
	/* not confirmed: said so, done */
	if (!r && confirmed == SERIES_CONFIRMED)
		r = o->per_patch ? per_patch(&bs, &text) : search(&bs, &text);
out:
	if (r && bs.dir && o->series_kernel)
		term_printf(stderr, "bisection %s stopped; the next watch goes on with it\n", bs.dir);
	else if (r && bs.dir)
		term_printf(stderr, "bisection stopped; continue with:\n  mglrulab bisect --resume %s -c %s\n",
			    path_basename(bs.dir), bs.cfg.path ? bs.cfg.path : o->config);
	if (bs.lock_fd >= 0)
		close(bs.lock_fd);
	for (size_t i = 0; i < bs.nr_holds; i++)
		if (bs.holds[i] >= 0)
			close(bs.holds[i]);
	free(bs.holds);
	stdout_restore(&bs.saved_stdout);
	if (o->json && bs.dir && write_summary(&bs, r) && r == LAB_OK)
		r = LAB_ELAB;
	bisect_doc_release(&bs.doc);
	free(bs.dir);
	config_release(&bs.cfg);
	sb_release(&text);
	return r;
}
