// SPDX-License-Identifier: GPL-2.0
#include "wis_parse.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Parse "KEY:%llu" at *p, advancing past it and one space. 0 or -1. */
static int field(const char **p, const char *end, const char *key, uint64_t *out)
{
	size_t kl = strlen(key);
	const char *s = *p;
	uint64_t v = 0;
	int digits = 0;

	if ((size_t)(end - s) < kl || memcmp(s, key, kl))
		return -1;
	s += kl;
	while (s < end && *s >= '0' && *s <= '9') {
		unsigned d = (unsigned)(*s - '0');

		if (v > (UINT64_MAX - d) / 10)
			return -1;
		v = v * 10 + d;
		s++;
		digits++;
	}
	if (!digits)
		return -1;
	if (s < end && *s == ' ')
		s++;
	*p = s;
	*out = v;
	return 0;
}

static int push(struct wis_sample **arr, size_t *n, const struct wis_sample *smp)
{
	struct wis_sample *a;

	if (*n >= WIS_MAX_SAMPLES)
		return 1;	/* ignore, counted as bad by the caller */
	/* Grow by doubling: sizes are powers of two from 8. */
	if (*n == 0 || (*n >= 8 && !(*n & (*n - 1)))) {
		size_t cap = *n ? *n * 2 : 8;

		a = realloc(*arr, cap * sizeof(*a));
		if (!a)
			return -1;
		*arr = a;
	}
	(*arr)[(*n)++] = *smp;
	return 0;
}

static int parse_line(struct wis_result *r, const char *s, size_t n)
{
	const char *end = s + n;

	if (n >= 9 && !memcmp(s, "testcase:", 9)) {
		size_t l = n - 9 < sizeof(r->testcase) - 1 ? n - 9 : sizeof(r->testcase) - 1;

		memcpy(r->testcase, s + 9, l);
		r->testcase[l] = '\0';
		for (size_t i = 0; i < l; i++)
			if ((unsigned char)r->testcase[i] < 0x20)
				r->testcase[i] = ' ';
		return 0;
	}
	if (n == 6 && !memcmp(s, "warmup", 6)) {
		r->has_warmup_marker = 1;
		return 0;
	}
	if (n == 11 && !memcmp(s, "measurement", 11)) {
		r->has_measurement_marker = 1;
		return 0;
	}
	if (n > 4 && !memcmp(s, "min:", 4)) {
		struct wis_sample smp;
		const char *p = s;
		int ret;

		if (field(&p, end, "min:", &smp.min) || field(&p, end, "max:", &smp.max) ||
		    field(&p, end, "total:", &smp.total) || p != end) {
			r->bad_lines++;
			return 0;
		}
		if (r->has_measurement_marker)
			ret = push(&r->measured, &r->nmeasured, &smp);
		else
			ret = push(&r->warmup, &r->nwarmup, &smp);
		if (ret > 0)
			r->bad_lines++;
		return ret < 0 ? -1 : 0;
	}
	if (n > 8 && !memcmp(s, "average:", 8)) {
		const char *p = s;
		uint64_t v;

		if (field(&p, end, "average:", &v) || p != end) {
			r->bad_lines++;
			return 0;
		}
		r->average = v;
		r->has_average = 1;
		return 0;
	}
	if (n)
		r->bad_lines++;
	return 0;
}

int wis_parse(const char *text, size_t len, struct wis_result *r)
{
	size_t i = 0;

	memset(r, 0, sizeof(*r));
	while (i < len) {
		const char *nl = memchr(text + i, '\n', len - i);
		size_t n = nl ? (size_t)(nl - (text + i)) : len - i;

		if (!nl) {
			r->truncated = 1;
			break;
		}
		if (parse_line(r, text + i, n)) {
			wis_release(r);
			return -1;
		}
		i += n + 1;
	}
	return 0;
}

void wis_release(struct wis_result *r)
{
	free(r->warmup);
	free(r->measured);
	r->warmup = r->measured = NULL;
	r->nwarmup = r->nmeasured = 0;
}

double wis_mean(const struct wis_result *r)
{
	double sum = 0;

	if (!r->nmeasured)
		return -1;
	for (size_t i = 0; i < r->nmeasured; i++)
		sum += (double)r->measured[i].total;
	return sum / (double)r->nmeasured;
}
