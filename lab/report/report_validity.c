// SPDX-License-Identifier: GPL-2.0
/* What this guest can test, and how an answer stands against a claim (report_validity.h). */
#include "report_validity.h"
#include "mechanism.h"
#include "workload_def.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void validity_of(const struct report_view *v, struct validity *out)
{
	memset(out, 0, sizeof(*out));
	out->kvm = v->host.accel && !strcmp(v->host.accel, "kvm");
	/* recorded only when in force (under TCG) */
	out->icount = v->guest.has_icount_shift;
	out->sees = mechanism_guest_sees(out->kvm, out->icount);
	out->mode = mechanism_guest_mode(out->kvm, out->icount);
	out->claimed = v->claim.present ? mechanism_parse(v->claim.mechanism) : 0;
}

unsigned validity_workload_mechs(const struct report_view *v, const char *name)
{
	const struct sdoc_workload *w = name ? report_view_workload(v, name) : NULL;
	const struct workload_def *def = w && w->type ? workload_find(w->type) : NULL;

	return def ? def->mechanisms : 0;
}

int validity_claim_applies(const struct view_claim *c, const char *workload, const char *metric)
{
	if (!c->present || !workload || !metric)
		return 0;
	if (c->workload && strcmp(c->workload, workload))
		return 0;
	return !c->metric || metric_pattern_match(c->metric, metric) ||
	       metric_pattern_match(metric, c->metric);
}

int validity_can_test(const struct report_view *v, const struct validity *val,
		      const char *workload, const char *metric)
{
	unsigned reflects = validity_workload_mechs(v, workload);

	if (!val->claimed || !validity_claim_applies(&v->claim, workload, metric))
		return 1;
	/*
	 * A workload that cannot reflect the mechanism is not the claim's
	 * test either; one whose type is unknown is given the doubt.
	 */
	if (reflects && !(reflects & val->claimed))
		return 1;
	return (val->sees & val->claimed) != 0;
}

void validity_vs_claim(const struct view_claim *c, double lo_pct, double hi_pct, char *buf,
		       size_t size)
{
	double want;

	*buf = 0;
	if (!c->present || !c->direction || !isfinite(c->size_pct) || !isfinite(lo_pct) ||
	    !isfinite(hi_pct))
		return;
	want = !strcmp(c->direction, "lower") ? -c->size_pct : c->size_pct;
	if (want >= lo_pct && want <= hi_pct)
		snprintf(buf, size, "consistent with the claimed %+.1f%%", want);
	else if ((want > 0 && hi_pct < want) || (want < 0 && lo_pct > want))
		snprintf(buf, size, "rules out the claimed %+.1f%%", want);
	else
		snprintf(buf, size, "beyond the claimed %+.1f%%", want);
}
