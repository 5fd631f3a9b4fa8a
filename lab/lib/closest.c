// SPDX-License-Identifier: GPL-2.0
/* "Did you mean": the closest name to a mistyped word (closest.h). */
#include "closest.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

static size_t min3(size_t a, size_t b, size_t c)
{
	size_t m = a < b ? a : b;

	return m < c ? m : c;
}

size_t str_edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), w = lb + 1, r;
	/* three rows: the swap looks two rows back */
	size_t *d = xcalloc(3 * w, sizeof(*d));

	for (size_t j = 0; j <= lb; j++)
		d[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t *cur = d + (i % 3) * w, *prev = d + ((i - 1) % 3) * w;
		size_t *prev2 = d + ((i + 1) % 3) * w;

		cur[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t cost = a[i - 1] != b[j - 1];

			cur[j] = min3(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost);
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    prev2[j - 2] + 1 < cur[j])
				cur[j] = prev2[j - 2] + 1;
		}
	}
	r = d[(la % 3) * w + lb];
	free(d);
	return r;
}

const char *str_closest(const char *word, const char *const *names, size_t n)
{
	const char *best = NULL, *prefixed = NULL;
	size_t best_d = (size_t)-1, nprefixed = 0, len = strlen(word);

	for (size_t i = 0; i < n; i++) {
		size_t d = str_edit_distance(word, names[i]);

		if (len && !strncmp(names[i], word, len)) {
			prefixed = names[i];
			nprefixed++;
		}
		if (d <= 2 && 2 * d < strlen(names[i]) && d < best_d) {
			best = names[i];
			best_d = d;
		}
	}
	if (best)
		return best;
	return nprefixed == 1 ? prefixed : NULL;
}
