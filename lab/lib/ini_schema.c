// SPDX-License-Identifier: GPL-2.0
#include "ini_schema.h"
#include "closest.h"
#include "fsutil.h"
#include "util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void ini_check_error(struct ini_check *c, int line, const char *fmt, ...)
{
	va_list ap;

	sb_addf(c->err, "%s:%d: ", c->path, line);
	va_start(ap, fmt);
	sb_vaddf(c->err, fmt, ap);
	va_end(ap);
	sb_addc(c->err, '\n');
}

const char *ini_nearest(const char *word, const char *const *known, size_t n)
{
	const char *best = NULL;
	size_t best_d = 3, len = strlen(word);

	for (size_t i = 0; i < n; i++) {
		size_t d = str_edit_distance(word, known[i]);	/* closest.h */

		/* "a" is one edit from every one-letter name: no hint at all. */
		if (d && d < best_d && d < len) {
			best_d = d;
			best = known[i];
		}
	}
	return best;
}

void ini_did_you_mean(struct strbuf *sb, const char *word, const char *const *known, size_t n)
{
	const char *best = ini_nearest(word, known, n);

	if (best)
		sb_addf(sb, " (did you mean '%s'?)", best);
}

void ini_check_unknown_key(struct ini_check *c, int line, const char *section,
			   const char *key, const char *const *known, size_t n)
{
	struct strbuf sb = STRBUF_INIT;
	const char *best = ini_nearest(key, known, n);

	for (size_t i = 0; i < n; i++)
		sb_addf(&sb, "%s%s", i ? ", " : "", known[i]);
	if (best)
		ini_check_error(c, line, "[%s] unknown key '%s' (did you mean '%s'?)", section, key, best);
	else
		ini_check_error(c, line, "[%s] unknown key '%s' (expected one of: %s)", section, key,
				sb_str(&sb));
	sb_release(&sb);
}

/*
 * The index's key for @section's @key. Neither holds a newline: the INI
 * reader splits lines there.
 */
static char *seen_key(const char *section, const char *key)
{
	return xasprintf("%s\n%s", section, key);
}

/* An index, not a scan: a lab.conf with n [host] sections would be O(n^2) here. */
static struct ini_seen *find_seen(const struct ini_check *c, const char *section, const char *key)
{
	char *k = seen_key(section, key);
	size_t i;
	int found = strmap_get(&c->seen_index, k, &i);

	free(k);
	return found ? &c->seen[i] : NULL;
}

static void remember(struct ini_check *c, const char *section, const char *key, int line)
{
	char *k = seen_key(section, key);

	ALLOC_GROW(c->seen, c->nr_seen + 1, c->alloc_seen);
	c->seen[c->nr_seen] = (struct ini_seen){ .section = xstrdup(section), .key = xstrdup(key),
						  .line = line };
	strmap_put(&c->seen_index, k, c->nr_seen++);
	free(k);
}

int ini_check_once(struct ini_check *c, const char *section, const char *key, int line)
{
	const struct ini_seen *s = find_seen(c, section, key);

	if (s) {
		ini_check_error(c, line, "[%s] %s: already set at line %d", section, key, s->line);
		return -1;
	}
	remember(c, section, key, line);
	return 0;
}

int ini_check_line(const struct ini_check *c, const char *section, const char *key)
{
	const struct ini_seen *s = find_seen(c, section, key);

	return s ? s->line : 0;
}

int ini_check_item_line(const struct ini_check *c, const char *section, const char *key,
			size_t i)
{
	const struct ini_seen *s = find_seen(c, section, key);

	if (!s)
		return 0;
	return i < s->nr_items ? s->item_lines[i] : s->line;
}

/* Items @from to @to of a list key came from @line. */
static void remember_items(struct ini_check *c, const char *section, const char *key,
			   size_t from, size_t to, int line)
{
	struct ini_seen *s = find_seen(c, section, key);

	for (size_t i = from; s && i < to; i++) {
		ALLOC_GROW(s->item_lines, s->nr_items + 1, s->alloc_items);
		s->item_lines[s->nr_items++] = line;
	}
}

int ini_parse_fraction(const char *value, double *out)
{
	size_t len = strlen(value);
	double v;

	if (len && value[len - 1] == '%') {
		char *num = xstrndup(value, len - 1);
		int r = parse_double(num, &v);
		free(num);
		if (r)
			return -1;
		v /= 100;
	} else if (parse_double(value, &v)) {
		return -1;
	}
	if (!(v >= 0 && v < 1))
		return -1;
	*out = v;
	return 0;
}

/* The index of @value in "a|b|c", or -1. */
static int choice_index(const char *choices, const char *value)
{
	size_t vl = strlen(value);
	int i = 0;

	for (const char *p = choices; *p; i++) {
		size_t l = strcspn(p, "|");
		if (l == vl && !strncmp(p, value, l))
			return i;
		p += l + (p[l] == '|');
	}
	return -1;
}

static int is_list(enum ini_kind k)
{
	return k == INI_PATHS || k == INI_WORDS;
}

static void push_paths(struct ini_check *c, struct strvec *sv, const char *value)
{
	struct strvec items = STRVEC_INIT;

	strvec_split(&items, value, " \t");
	for (size_t i = 0; i < items.n; i++) {
		char *abs = path_absolute(c->dir, items.v[i]);
		strvec_push(sv, abs);
		free(abs);
	}
	strvec_clear(&items);
}

static void set_string(char **field, char *value)
{
	free(*field);
	*field = value;
}

/*
 * Parse @value into @field as @k says. 0, or -1 and what was expected in
 * @want (a static string or, for ranges, one written into @buf).
 */
static int parse_value(struct ini_check *c, const struct ini_key *k, void *field,
		       const char *value, const char **want, char *buf, size_t size)
{
	long v;
	int i;

	switch (k->kind) {
	case INI_STRING:
		set_string(field, xstrdup(value));
		return 0;
	case INI_PATH:
		set_string(field, path_absolute(c->dir, value));
		return 0;
	case INI_PATHS:
		push_paths(c, field, value);
		return 0;
	case INI_WORDS:
		strvec_split(field, value, " \t,");
		return 0;
	case INI_LONG:
	case INI_INT:
		snprintf(buf, size, "an integer from %ld to %ld", k->min, k->max);
		*want = buf;
		if (parse_long(value, k->min, k->max, &v))
			return -1;
		if (k->kind == INI_LONG)
			*(long *)field = v;
		else
			*(int *)field = (int)v;
		return 0;
	case INI_U64:
		*want = "a non-negative integer";
		return parse_u64(value, field);
	case INI_FRACTION:
		*want = "a fraction from 0 to 1 (0.05) or a percentage (5%)";
		return ini_parse_fraction(value, field);
	case INI_ENUM:
	case INI_CHOICE:
		snprintf(buf, size, "one of %s", k->choices);
		*want = buf;
		if ((i = choice_index(k->choices, value)) < 0)
			return -1;
		if (k->kind == INI_CHOICE)
			*(int *)field = i;
		else
			set_string(field, xstrdup(value));
		return 0;
	case INI_CUSTOM:
		return k->parse(value, field);
	}
	return -1;
}

static int set_key(struct ini_check *c, void *base, const struct ini_key *k,
		   const char *section, const char *value, int line)
{
	char buf[160];
	const char *want = k->expected;
	void *field = (char *)base + k->offset;
	size_t items = is_list(k->kind) ? ((struct strvec *)field)->n : 0;

	if (is_list(k->kind)) {
		if (!ini_check_line(c, section, k->key))
			remember(c, section, k->key, line);
	} else if (ini_check_once(c, section, k->key, line)) {
		return -1;
	}
	/* Text and custom values decide about empty for themselves. */
	if (!*value && !is_list(k->kind) && k->kind != INI_STRING && k->kind != INI_CUSTOM) {
		ini_check_error(c, line, "[%s] %s: empty value", section, k->key);
		return -1;
	}
	if (parse_value(c, k, field, value, &want, buf, sizeof(buf))) {
		ini_check_error(c, line, "[%s] %s: expected %s, not '%s'", section, k->key,
				want ? want : "a valid value", value);
		return -1;
	}
	if (is_list(k->kind))
		remember_items(c, section, k->key, items, ((struct strvec *)field)->n, line);
	if (k->set_flag)
		*(int *)((char *)base + k->set_flag - 1) = 1;
	return 0;
}

int ini_check_set(struct ini_check *c, void *base, const struct ini_key *keys,
		  const char *section, const char *key, const char *value, int line)
{
	const char *known[32];
	size_t n = 0;

	for (const struct ini_key *k = keys; k->key; k++)
		if (!strcmp(k->key, key))
			return set_key(c, base, k, section, value, line);
	for (const struct ini_key *k = keys; k->key && n < ARRAY_SIZE(known); k++)
		known[n++] = k->key;
	ini_check_unknown_key(c, line, section, key, known, n);
	return -1;
}

void ini_check_release(struct ini_check *c)
{
	for (size_t i = 0; i < c->nr_seen; i++) {
		free(c->seen[i].section);
		free(c->seen[i].key);
		free(c->seen[i].item_lines);
	}
	free(c->seen);
	c->seen = NULL;
	c->nr_seen = c->alloc_seen = 0;
	strmap_clear(&c->seen_index);
}
