/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Not thread-safe on one map while it changes; strmap_get() on a map no
 * thread changes, from any thread.
 *
 * A string-keyed index: from a name to a number (usually its place in the
 * caller's array), in O(1) expected time. Parsers that look a name up once
 * per line (lab.conf's sections and keys) use it so that a file with n
 * sections costs O(n), not a scan of everything before per line.
 *
 * Keys are copied. A zeroed struct (STRMAP_INIT) is an empty map.
 * Open addressing, linear probing, FNV-1a: lab.conf is its owner's file,
 * and its size is bounded by the INI reader; a crafted set of colliding
 * names costs time, never correctness.
 */
#ifndef LAB_STRMAP_H
#define LAB_STRMAP_H

#include <stddef.h>

struct strmap_slot {
	char *key;		/* NULL: empty */
	size_t hash;
	size_t value;
};

struct strmap {
	struct strmap_slot *slots;
	size_t n, cap;		/* cap: 0 or a power of two, at most half full */
};
#define STRMAP_INIT { NULL, 0, 0 }

/* 1 and *@value when @key is in the map, else 0 (@value may be NULL). */
int strmap_get(const struct strmap *m, const char *key, size_t *value);
/* Map @key to @value, replacing what it mapped to. */
void strmap_put(struct strmap *m, const char *key, size_t value);
/* Free the keys and the table; the map is empty again. */
void strmap_clear(struct strmap *m);

#endif
