// SPDX-License-Identifier: GPL-2.0
#include "counters_hist.h"

#include <string.h>

/* Parse a decimal u64 after optional spaces at s[0..n). 0 or -1. */
static int num_after(const char *s, size_t n, uint64_t *out)
{
	size_t i = 0;
	uint64_t v = 0;
	int digits = 0;

	while (i < n && s[i] == ' ')
		i++;
	for (; i < n && s[i] >= '0' && s[i] <= '9'; i++, digits++) {
		unsigned d = (unsigned)(s[i] - '0');

		if (v > (UINT64_MAX - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	while (i < n && s[i] == ' ')
		i++;
	if (!digits || i != n)
		return -1;
	*out = v;
	return 0;
}

static int prefix(const char *s, size_t n, const char *p, size_t *plen)
{
	*plen = strlen(p);
	return n >= *plen && !memcmp(s, p, *plen);
}

static void parse_line(struct hist_file *f, const char *s, size_t n)
{
	struct hist_one *h = f->n ? &f->h[f->n - 1] : NULL;
	const char *hc;
	size_t pl;
	uint64_t v;

	if (!n || (n == 1 && s[0] == '#'))
		return;
	if (prefix(s, n, "# event histogram", &pl)) {
		if (f->n == HIST_MAX) {
			f->bad_lines++;
			return;
		}
		memset(&f->h[f->n++], 0, sizeof(f->h[0]));
		return;
	}
	if (!h) {
		f->bad_lines++;
		return;
	}
	if (prefix(s, n, "# trigger info: ", &pl)) {
		size_t l = n - pl < sizeof(h->trigger) - 1 ? n - pl : sizeof(h->trigger) - 1;

		memcpy(h->trigger, s + pl, l);
		h->trigger[l] = '\0';
		return;
	}
	if (s[0] == '{') {
		/* "{ key: value, ... } hitcount: N [other vals]" */
		const char *end = s + n, *close = memchr(s, '}', n);

		hc = close ? memmem(close, (size_t)(end - close), "hitcount:", 9) : NULL;
		if (!hc) {
			f->bad_lines++;
			return;
		}
		hc += 9;
		{
			const char *e = hc;

			while (e < end && *e == ' ')
				e++;
			while (e < end && *e >= '0' && *e <= '9')
				e++;
			if (num_after(hc, (size_t)(e - hc), &v)) {
				f->bad_lines++;
				return;
			}
		}
		if (h->sum_hitcount + v >= h->sum_hitcount)
			h->sum_hitcount += v;
		h->nentries++;
		return;
	}
	if (prefix(s, n, "Totals:", &pl))
		return;
	if (prefix(s, n, "    Hits:", &pl) && !num_after(s + pl, n - pl, &v)) {
		h->hits = v;
		h->has_totals = 1;
		return;
	}
	if (prefix(s, n, "    Entries:", &pl) && !num_after(s + pl, n - pl, &v)) {
		h->entries = v;
		return;
	}
	if (prefix(s, n, "    Dropped:", &pl) && !num_after(s + pl, n - pl, &v)) {
		h->dropped = v;
		return;
	}
	/* Other comment lines and action output are not ours to judge. */
	if (s[0] == '#' || s[0] == ' ')
		return;
	f->bad_lines++;
}

void hist_parse(const char *text, size_t len, struct hist_file *out)
{
	size_t i = 0;

	memset(out, 0, sizeof(*out));
	while (i < len) {
		const char *nl = memchr(text + i, '\n', len - i);
		size_t n = nl ? (size_t)(nl - (text + i)) : len - i;

		if (!nl)
			break;	/* a cut line: ignored, Totals tells if we lost anything */
		parse_line(out, text + i, n);
		i += n + 1;
	}
}

int hist_count(const struct hist_file *f, const char *pfx, uint64_t *count)
{
	for (int i = 0; i < f->n; i++) {
		const struct hist_one *h = &f->h[i];
		size_t tl = strlen(h->trigger);

		if (pfx && strncmp(h->trigger, pfx, strlen(pfx)))
			continue;
		/* it counted nothing: the runner's hold (workloads/lib/snap.c) */
		if (tl >= 8 && !strcmp(h->trigger + tl - 8, "[paused]"))
			continue;
		if (h->has_totals) {
			*count = h->hits + h->dropped;
			return 0;
		}
		*count = h->sum_hitcount;
		return 1;
	}
	return -1;
}
