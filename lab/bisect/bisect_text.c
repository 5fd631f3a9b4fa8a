// SPDX-License-Identifier: GPL-2.0
/*
 * A bisection's summary: each effect and patch as text, bisect.html from
 * the steps' reports, and the end that writes bisect.json's result,
 * bisect.txt and the page.
 */
#include "bisect_priv.h"
#include "bisect_doc.h"
#include "escape.h"
#include "fsutil.h"
#include "report_view.h"
#include "stamped_dir.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void bisect_fmt_effect(struct strbuf *sb, const struct step_result *r)
{
	if (!r) {
		sb_adds(sb, "(not measured)");
		return;
	}
	if (isfinite(r->delta_pct))
		sb_addf(sb, "%+.1f %%", r->delta_pct);
	else
		sb_adds(sb, "n/a");
	if (isfinite(r->lo_pct) && isfinite(r->hi_pct))
		sb_addf(sb, " [%+.1f, %+.1f]", r->lo_pct, r->hi_pct);
	sb_addf(sb, " %s", r->verdict_id);
}

/* One line per tracked metric of @results: "  yield cs_per_sec: -64.1 % [...] regression". */
void bisect_fmt_tracked(struct strbuf *sb, const struct sdoc_array *tracked,
			const struct sdoc_array *results)
{
	struct step_results t, rs;

	step_results_of(tracked, &t);
	step_results_of(results, &rs);
	for (size_t i = 0; i < t.n; i++) {
		sb_addf(sb, "    %s %s: ", t.v[i].workload, t.v[i].metric);
		bisect_fmt_effect(sb, step_results_find(&rs, t.v[i].workload, t.v[i].metric));
		sb_addc(sb, '\n');
	}
	step_results_release(&t);
	step_results_release(&rs);
}

void bisect_fmt_patch(struct strbuf *sb, const struct bisect *bs, long k)
{
	const struct bisect_doc_patch *p = bisect_doc_patch_at(&bs->doc, k);
	const char *subject = p ? p->subject : NULL, *message_id = p ? p->message_id : NULL;

	sb_addf(sb, "patch %ld/%ld: ", k, bs->n);
	sb_add_text_safe(sb, subject ? subject : "(no subject)");
	if (message_id) {
		sb_adds(sb, "\n  Message-Id: ");
		sb_add_text_safe(sb, message_id);
	}
	sb_addc(sb, '\n');
}

const struct sdoc_array *bisect_results_of(const struct bisect *bs, const char *a, const char *b)
{
	const struct bisect_doc_step *st = bisect_find_step(bs, a, b);

	return st && st->results.present ? &st->results : NULL;
}

/* The runs of step @st's session, from its report.json: -1 each when it does not decode. */
static struct bisect_step_runs step_runs(const struct bisect *bs,
					 const struct bisect_doc_step *st)
{
	struct bisect_step_runs out = { -1, -1 };
	struct report_view v = { 0 };
	struct strbuf err = STRBUF_INIT;
	json_t *rep = bisect_step_report(bs, st, &err);

	if (rep && !report_view_decode(rep, &v, &err) && v.summary.runs >= 0) {
		out.ok = v.summary.runs_ok;
		out.failed = v.summary.runs_failed;
	}
	report_view_release(&v);
	json_decref(rep);
	sb_release(&err);
	return out;
}

/* bisect.html, with each step's runs read from its report: LAB_OK or the status (said). */
static LAB_MUST_CHECK int write_page(const struct bisect *bs)
{
	const struct bisect_doc_step *v = bs->doc.steps.v;
	size_t n = bs->doc.steps.n;
	struct bisect_step_runs *runs = xcalloc(n + 1, sizeof(*runs));
	struct strbuf html = STRBUF_INIT;
	char *path = xasprintf("%s/bisect.html", bs->dir);
	int r = LAB_OK;

	for (size_t i = 0; i < n; i++)
		runs[i] = step_runs(bs, &v[i]);
	bisect_html(&html, &bs->doc, runs, n);
	if (write_file_atomic(path, html.buf, html.len))
		r = lab_error("cannot write %s: %s", path, strerror(errno));
	free(path);
	free(runs);
	sb_release(&html);
	return r;
}

int bisect_finish(struct bisect *bs, const struct bisect_doc_end *end, struct strbuf *text)
{
	bisect_doc_set_result(&bs->doc, end);
	int r = bisect_save(bs);
	char *path = xasprintf("%s/bisect.txt", bs->dir);

	if (write_file_atomic(path, text->buf, text->len))
		r = lab_error("cannot write %s: %s", path, strerror(errno));
	int w = write_page(bs);
	if (w)
		r = w;
	stdout_restore(&bs->saved_stdout);
	/* --json - takes stdout; the summary is in bisect.txt */
	if (!bs->o->json || !user_output_is_stdout(bs->o->json))
		fputs(sb_str(text), stdout);
	fflush(stdout);
	term_printf(stderr, "\nbisection: %s/bisect.json, bisect.txt, bisect.html\n", bs->dir);
	free(path);
	return r;
}
