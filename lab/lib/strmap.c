// SPDX-License-Identifier: GPL-2.0
#include "strmap.h"
#include "util.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static size_t hash_of(const char *s)
{
	uint64_t h = 14695981039346656037ULL;

	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		h ^= *p;
		h *= 1099511628211ULL;
	}
	return (size_t)h;
}

/* The slot holding @key, or the empty slot where it would go. */
static struct strmap_slot *find(const struct strmap *m, const char *key, size_t h)
{
	size_t mask = m->cap - 1;

	for (size_t i = h & mask;; i = (i + 1) & mask) {
		struct strmap_slot *s = &m->slots[i];

		if (!s->key || (s->hash == h && !strcmp(s->key, key)))
			return s;
	}
}

int strmap_get(const struct strmap *m, const char *key, size_t *value)
{
	if (!m->n)
		return 0;
	const struct strmap_slot *s = find(m, key, hash_of(key));

	if (!s->key)
		return 0;
	if (value)
		*value = s->value;
	return 1;
}

static void grow(struct strmap *m)
{
	struct strmap old = *m;

	m->cap = old.cap ? old.cap * 2 : 16;
	if (m->cap < old.cap)
		die("strmap: too many keys");
	m->slots = xcalloc(m->cap, sizeof(*m->slots));
	for (size_t i = 0; i < old.cap; i++)
		if (old.slots[i].key)
			*find(m, old.slots[i].key, old.slots[i].hash) = old.slots[i];
	free(old.slots);
}

void strmap_put(struct strmap *m, const char *key, size_t value)
{
	size_t h = hash_of(key);
	struct strmap_slot *s;

	if ((m->n + 1) * 2 > m->cap)
		grow(m);
	s = find(m, key, h);
	if (!s->key) {
		s->key = xstrdup(key);
		s->hash = h;
		m->n++;
	}
	s->value = value;
}

void strmap_clear(struct strmap *m)
{
	for (size_t i = 0; i < m->cap; i++)
		free(m->slots[i].key);
	free(m->slots);
	m->slots = NULL;
	m->n = m->cap = 0;
}
