/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Thread-safe on distinct struct ini_check; the key tables are only read.
 *
 * Table-driven validation of INI keys, shared by lab.conf (config.c) and
 * guests/NAME.conf (guest_conf.c) so both speak the same way:
 *
 *   FILE:LINE: [section] key: expected WHAT, not 'VALUE'
 *   FILE:LINE: [section] key: already set at line N
 *   FILE:LINE: [section] unknown key 'K' (did you mean 'KEY'?)
 *   FILE:LINE: [section] unknown key 'K' (expected one of: A, B, C)
 *
 * A section's keys are an array of struct ini_key ending in { NULL }; each
 * names the field (an offset into the struct the caller passes as @base)
 * and how its value is checked. Section dispatch stays with the caller:
 * the two files' sections differ ([kernel NAME], [node N]). The parse
 * itself is ini_lines.h (libinih with line numbers).
 */
#ifndef LAB_INI_SCHEMA_H
#define LAB_INI_SCHEMA_H

#include "util.h"

#include <stddef.h>

#include "strbuf.h"
#include "strmap.h"

enum ini_kind {
	INI_STRING,	/* char *: any text, may be empty */
	INI_PATH,	/* char *: resolved against ini_check.dir */
	INI_PATHS,	/* struct strvec: whitespace-separated paths, accumulate over lines */
	INI_WORDS,	/* struct strvec: whitespace- or comma-separated words, accumulate */
	INI_LONG,	/* long from min to max */
	INI_INT,	/* int from min to max */
	INI_U64,	/* uint64_t */
	INI_FRACTION,	/* double: 0.05 or 5%, from 0 to below 1 */
	INI_ENUM,	/* char *: one of choices ("a|b|c") */
	INI_CHOICE,	/* int: the index of the value in choices */
	INI_CUSTOM,	/* parse(); "expected" says what it takes */
};

struct ini_key {
	const char *key;
	enum ini_kind kind;
	size_t offset;			/* of the field in the section's struct */
	size_t set_flag;		/* INI_FLAG(): an int set to 1 when given; 0: none */
	long min, max;			/* INI_LONG, INI_INT */
	const char *choices;		/* INI_ENUM, INI_CHOICE */
	const char *expected;		/* for messages; kinds with their own may leave it NULL */
	int (*parse)(const char *value, void *field);	/* INI_CUSTOM: 0 or -1 */
};

/* Tables use designated initializers: what a key leaves out is 0 / NULL. */
#define INI_FLAG(type, member) (offsetof(type, member) + 1)

/* Where a key was first set in a section: duplicates, and lines for later messages. */
struct ini_seen {
	char *section;
	char *key;
	int line;
	/*
	 * A list key (INI_WORDS, INI_PATHS) may span lines: the line of each
	 * item, in the order they were added to the list, so that an error
	 * about one item ("[run] kernels: no [kernel X]") names its own line.
	 */
	int *item_lines;
	size_t nr_items, alloc_items;
};

/* One file's validation state. */
struct ini_check {
	const char *path;		/* for messages */
	const char *dir;		/* INI_PATH and INI_PATHS resolve here (NULL: as written) */
	struct strbuf *err;
	struct ini_seen *seen;
	size_t nr_seen, alloc_seen;
	struct strmap seen_index;	/* "section\nkey" -> index in seen: O(1) per line */
};

/* Append "FILE:LINE: message\n" to the check's error text. */
void ini_check_error(struct ini_check *c, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * Set @key of @section from @value, looking it up in @keys: checks the
 * value, refuses a second scalar in the same section and an unknown key
 * (suggesting the nearest known one). 0, or -1 with the error recorded.
 */
LAB_MUST_CHECK
int ini_check_set(struct ini_check *c, void *base, const struct ini_key *keys,
		  const char *section, const char *key, const char *value, int line);

/* Record that @key was set at @line; -1 (with the error) when it already was. */
LAB_MUST_CHECK
int ini_check_once(struct ini_check *c, const char *section, const char *key, int line);
/* The line where @key of @section was first set, 0 when it was not. */
int ini_check_line(const struct ini_check *c, const char *section, const char *key);

/*
 * The line of item @i of list key @key (INI_WORDS, INI_PATHS) of
 * @section, counted over all its lines; the key's first line when @i is
 * past them; 0 when the key was not set.
 */
int ini_check_item_line(const struct ini_check *c, const char *section, const char *key,
			size_t i);

/*
 * The name in @known a typo @word most likely meant: the nearest by edit
 * distance when it is close (at most 2 edits, and fewer than @word has
 * characters), else NULL. Never @word itself.
 */
const char *ini_nearest(const char *word, const char *const *known, size_t n);
/* Append " (did you mean 'NAME'?)" for ini_nearest(), or nothing. */
void ini_did_you_mean(struct strbuf *sb, const char *word, const char *const *known, size_t n);

/* "[section] unknown key 'K' ..." with a suggestion from @known. */
void ini_check_unknown_key(struct ini_check *c, int line, const char *section,
			   const char *key, const char *const *known, size_t n);

void ini_check_release(struct ini_check *c);

/* "0.05" or "5%", from 0 to below 1: 0, or -1. */
LAB_MUST_CHECK
int ini_parse_fraction(const char *value, double *out);

#endif
