/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Thread-safe on distinct JSON values (jansson's rule: one value, one
 * thread at a time).
 *
 * json_pack() that cannot fail quietly, and the accessors every stage
 * reads JSON with. jansson's json_pack() returns NULL
 * when its format and arguments disagree (a NULL string for "s", say) or
 * memory runs out, and json_object_set_new()/json_array_append_new() then
 * drop the member without a word: a run record or report would lose a
 * field and nobody would know. Both causes are what util.h lets die():
 * a bug, or no memory.
 */
#ifndef LAB_XJSON_H
#define LAB_XJSON_H

#include <jansson.h>
#include <stddef.h>

#include "strbuf.h"

/* xjson_pack(@fmt, ...), or die() naming the format and jansson's reason. */
json_t *xjson_pack(const char *fmt, ...);

/* "an object", "a string", ..., "null": for errors that say what was found. */
const char *xjson_type_name(const json_t *j);

/*
 * What a decoder expects of a member, and its words for the error
 * ("expected a string or null"). The report's and the run record's
 * decoders share them, so that both say the same of the same value.
 * An integer may be written 5.0: other writers may not distinguish.
 */
enum xjson_want {
	XJ_STRING, XJ_STRING_OR_NULL, XJ_INT, XJ_NUMBER, XJ_NUMBER_OR_NULL,
	XJ_BOOL, XJ_OBJECT, XJ_ARRAY,
};

int xjson_is(const json_t *j, enum xjson_want w);
const char *xjson_want_name(enum xjson_want w);

/* JSON cannot hold NaN or infinities: "not available" is written as null. */
json_t *jnum(double v);
/* A number member, or NaN when missing / null / not a number. */
double jget_num(const json_t *obj, const char *key);
/* A string member, or @def when missing or not a string. */
const char *jget_str(const json_t *obj, const char *key, const char *def);
/*
 * Walk "a.b.c" through nested objects; NULL when any step is missing or
 * one key is 128 bytes or longer (no member has such a name).
 */
json_t *jpath(const json_t *obj, const char *dotted);

/*
 * A JSON path for error messages ("runs[3].metrics.ops"), built as a
 * decoder descends: a push returns the path's old length, the pop puts
 * that length back. The report's and the run record's decoders share it.
 */
size_t xjson_path_key(struct strbuf *path, const char *key);
size_t xjson_path_index(struct strbuf *path, size_t i);
void xjson_path_pop(struct strbuf *path, size_t old);

/*
 * A decoder's first error, named by its path: the first xjson_fail() on
 * @d writes "PATH: expected WANT, got TYPE" (TYPE "nothing" for a missing
 * @v) into @err; the later ones only count in @failed. The state files'
 * decoders (sequential.json, session.json's jobs, history's digests)
 * share it.
 */
struct xjson_err {
	struct strbuf *err;
	int failed;
};

void xjson_fail(struct xjson_err *d, const char *want, const json_t *v, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif
