/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Validity first (issue 50): what this guest can test of a workload's
 * primaries, and of the effect the series claims (mechanism.h; lab.conf
 * [claim], the report's "claim"). A guest that cannot see the claimed
 * mechanism has no "no change" to give for it: its answer is "cannot test
 * here". Pure: from the view alone, for the headline (report_headline.c).
 */
#ifndef LAB_REPORT_VALIDITY_H
#define LAB_REPORT_VALIDITY_H

#include <stddef.h>

#include "report_view.h"

struct validity {
	int kvm, icount;		/* the guest mode the report's runs had */
	unsigned sees;			/* mechanism.h: what that mode shows */
	const char *mode;		/* "TCG with icount" (static) */
	unsigned claimed;		/* the claim's mechanism; 0: no claim, or none said */
};

void validity_of(const struct report_view *v, struct validity *out);

/* What workload @name's primaries reflect (its type's); 0: not known. */
unsigned validity_workload_mechs(const struct report_view *v, const char *name);

/* Does the report's claim concern @metric of workload @workload? */
int validity_claim_applies(const struct view_claim *c, const char *workload, const char *metric);

/*
 * Can this guest test the claim for @workload's @metric? 1: it can, or
 * the claim does not concern it; 0: the claim's mechanism is one the
 * guest does not see.
 */
int validity_can_test(const struct report_view *v, const struct validity *val,
		      const char *workload, const char *metric);

/*
 * How the interval [@lo_pct, @hi_pct] of a change stands against the
 * claimed one, into @buf: "consistent with the claimed +2.3%", "rules
 * out the claimed +2.3%", "larger than the claimed +2.3%"; "" when the
 * claim says no size or direction.
 */
void validity_vs_claim(const struct view_claim *c, double lo_pct, double hi_pct, char *buf,
		       size_t size);

#endif
