/* SPDX-License-Identifier: GPL-2.0 */
/* Fixture loading for the counters tests (run from the repository root). */
#ifndef TEST_COUNTERS_FIXTURE_H
#define TEST_COUNTERS_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>

/* Read tests/fixtures/counters/@name whole; aborts the test when missing. */
static inline char *fixture(const char *name, size_t *len)
{
	char path[256];
	FILE *f;
	char *buf;
	long n;

	snprintf(path, sizeof(path), "tests/fixtures/counters/%s", name);
	f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "fixture %s missing (run from the repository root)\n", path);
		abort();
	}
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n)
		abort();
	buf[n] = '\0';
	fclose(f);
	*len = (size_t)n;
	return buf;
}

#endif
