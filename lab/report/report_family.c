// SPDX-License-Identifier: GPL-2.0
/*
 * The forms of one measurement (report_family.h): a suffix names the
 * form, the rest of the name the measurement.
 */
#include "report_family.h"

#include <string.h>

static const char *const forms[] = { "", "_hostadj", "_mean" };

/* Preconditions: what a workload set up, not what the kernel did with it. */
static const char *const preconditions[] = { "rss_before_mib" };

/* The form of @name (index into forms[]) and the length of its stem. */
static int form_of(const char *name, size_t *stem)
{
	size_t n = strlen(name);

	for (size_t f = 1; f < sizeof(forms) / sizeof(forms[0]); f++) {
		size_t l = strlen(forms[f]);

		if (n > l && !strcmp(name + n - l, forms[f])) {
			*stem = n - l;
			return (int)f;
		}
	}
	*stem = n;
	return 0;
}

size_t metric_family_stem_len(const char *name)
{
	size_t stem;

	form_of(name, &stem);
	return stem;
}

int metric_family_same(const char *a, const char *b)
{
	size_t la = metric_family_stem_len(a), lb = metric_family_stem_len(b);

	return la == lb && !strncmp(a, b, la);
}

int metric_family_form(const char *name)
{
	size_t stem;

	return form_of(name, &stem);
}

int metric_in_geomean(const char *name)
{
	for (size_t i = 0; i < sizeof(preconditions) / sizeof(preconditions[0]); i++)
		if (!strcmp(name, preconditions[i]))
			return 0;
	return 1;
}
