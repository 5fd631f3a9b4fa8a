/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Typed reading of an analysed report's members, for the report view's
 * decoders (report_view.c, report_attr.c). Each reader returns the member
 * when it is what reports/SCHEMA.md says; absent or null is "none" (NULL,
 * NaN, 0); anything else records an error naming its path from the top
 * ("attribution.workloads[0].seconds: expected an object or null, got a
 * string") and returns none. The first error is kept, later members are
 * still read, so that a view is whole and its arrays can be released.
 */
#ifndef LAB_VIEW_DECODE_H
#define LAB_VIEW_DECODE_H

#include <jansson.h>
#include <stddef.h>

#include "session_doc.h"
#include "strbuf.h"

struct vd {
	struct strbuf *err;
	int failed;
};

/* @where: the object's path ("host", "kernels[1]"; "" at the top). */
void vd_fail(struct vd *d, const char *where, const char *key, const char *want, const json_t *v);
/* The member, or NULL when absent or null. */
const json_t *vd_get(const json_t *obj, const char *key);
const char *vd_str(struct vd *d, const json_t *obj, const char *where, const char *key);
double vd_num(struct vd *d, const json_t *obj, const char *where, const char *key);
int vd_bool(struct vd *d, const json_t *obj, const char *where, const char *key);
const json_t *vd_obj(struct vd *d, const json_t *obj, const char *where, const char *key);
const json_t *vd_arr(struct vd *d, const json_t *obj, const char *where, const char *key);
/*
 * The elements of array member @key of @obj (at @where), each an object:
 * a new array of *@n zeroed elements of @size bytes (NULL when none). A
 * non-object element is an error naming it.
 */
void *vd_elems(struct vd *d, const json_t *obj, const char *where, const char *key, size_t size,
	       size_t *n);
/*
 * The rows @fields (a view member's table, offsets into @base; report_view.h)
 * of @obj through the table codec (sdoc_fields_decode_report(): a row's
 * choices, session.json's, unchecked, as report_validate() leaves them): its error, the
 * member's path ("statistics.alpha: expected a number, got a string"),
 * becomes the view's first error unless one was already kept.
 */
void vd_table(struct vd *d, const struct sdoc_field *fields, const json_t *obj, void *base);
/*
 * Member @name of a workload's "params" (the view keeps them as JSON: each
 * workload's own, untyped), or NULL: the layouts group runs by one.
 */
const json_t *vd_param(const json_t *params, const char *name);

#endif
