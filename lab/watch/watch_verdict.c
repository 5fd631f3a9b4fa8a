// SPDX-License-Identifier: GPL-2.0
/* A series' verdict and bisection note, from their records: watch_verdict.h. */
#include "watch_verdict.h"

#include <jansson.h>
#include <math.h>
#include <string.h>

#include "bisect.h"
#include "bisect_doc.h"
#include "report_result.h"
#include "stats.h"
#include "strbuf.h"
#include "util.h"

/* Does @wl have a result declared primary in @res? (as the --json summary decides) */
static int declares_primaries(const struct result_record *res, size_t n, const char *wl)
{
	for (size_t i = 0; i < n; i++)
		if (res[i].primary && !strcmp(res[i].workload, wl))
			return 1;
	return 0;
}

/* A bound of the interval in percent; 0 where the report has none (null), as before. */
static double pct_or_0(double ratio)
{
	double p = 100 * (ratio - 1);

	return isfinite(p) ? p : 0;
}

char *watch_verdict_of(const char *report_json, int *regressed)
{
	json_error_t je;
	json_t *rep = json_load_file(report_json, 0, &je);
	struct strbuf sb = STRBUF_INIT;
	struct result_record *res;
	size_t n;

	*regressed = 0;
	if (!rep)
		return xstrdup("no report");
	res = report_result_records(rep, &n, NULL);
	for (size_t i = 0; i < n; i++) {
		const struct result_record *r = &res[i];
		const char *v = r->verdict_id;

		if (!r->primary && declares_primaries(res, n, r->workload))
			continue;
		*regressed |= v && !strcmp(v, stats_verdict_id(VERDICT_REGRESSION));
		sb_addf(&sb, "%s%s %s: %s", sb.len ? "; " : "", r->workload, r->metric,
			v ? v : "none");
		if (isfinite(r->change.delta_pct))
			sb_addf(&sb, " %+.1f%% [%+.1f%%, %+.1f%%]", r->change.delta_pct,
				pct_or_0(r->change.lo), pct_or_0(r->change.hi));
	}
	result_records_free(res, n);
	json_decref(rep);
	if (!sb.len)
		sb_adds(&sb, "no primary metric");
	return sb_detach(&sb);
}

char *watch_bisect_note(const char *bisect_json, long n)
{
	struct strbuf err = STRBUF_INIT;
	struct bisect_doc d;
	const struct bisect_doc_patch *p;
	long culprit;
	char *note;

	/* refused (absent, cut short, a member of the wrong type): no outcome, said in debug */
	if (bisect_doc_load(bisect_json, &d, &err))
		debug("watch: %s", sb_str(&err));
	culprit = bisect_doc_long(d.result.culprit);
	p = bisect_doc_patch_at(&d, culprit);
	if (culprit >= 1)
		note = xasprintf("culprit: patch %ld of %ld, %s", culprit, n,
				 p && p->subject ? p->subject : "(no subject)");
	else
		note = xasprintf("bisection: %s", d.result.outcome ? d.result.outcome : "no outcome");
	bisect_doc_release(&d);
	sb_release(&err);
	return note;
}
