// SPDX-License-Identifier: GPL-2.0
/*
 * Typed reading of a report's members (view_decode.h): report_view.c's
 * decoder and report_attr.c's share them, so that both say the same
 * "PATH: expected TYPE, got TYPE" for the same mistake. A session's
 * array element by name and a workload's params by name are read here
 * too, with the decoders (docs/layout.md lists this file as a codec).
 */
#include "view_decode.h"
#include "report.h"
#include "util.h"
#include "xjson.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void vd_fail(struct vd *d, const char *where, const char *key, const char *want, const json_t *v)
{
	if (d->failed++)
		return;
	sb_addf(d->err, "%s%s%s: expected %s, got %s", where, *where ? "." : "", key, want,
		v ? xjson_type_name(v) : "nothing");
}

const json_t *vd_get(const json_t *obj, const char *key)
{
	const json_t *v = json_object_get(obj, key);

	return json_is_null(v) ? NULL : v;
}

const char *vd_str(struct vd *d, const json_t *obj, const char *where, const char *key)
{
	const json_t *v = vd_get(obj, key);

	if (v && !json_is_string(v)) {
		vd_fail(d, where, key, "a string or null", v);
		return NULL;
	}
	return json_string_value(v);
}

double vd_num(struct vd *d, const json_t *obj, const char *where, const char *key)
{
	const json_t *v = vd_get(obj, key);

	if (v && !json_is_number(v)) {
		vd_fail(d, where, key, "a number or null", v);
		return NAN;
	}
	return v ? json_number_value(v) : NAN;
}

int vd_bool(struct vd *d, const json_t *obj, const char *where, const char *key)
{
	const json_t *v = vd_get(obj, key);

	if (v && !json_is_boolean(v))
		vd_fail(d, where, key, "a boolean or null", v);
	return json_is_true(v);
}

static const json_t *vd_typed(struct vd *d, const json_t *obj, const char *where,
			      const char *key, int want_object)
{
	const json_t *v = vd_get(obj, key);

	if (v && (want_object ? !json_is_object(v) : !json_is_array(v))) {
		vd_fail(d, where, key, want_object ? "an object or null" : "an array or null", v);
		return NULL;
	}
	return v;
}

const json_t *vd_obj(struct vd *d, const json_t *obj, const char *where, const char *key)
{
	return vd_typed(d, obj, where, key, 1);
}

const json_t *vd_arr(struct vd *d, const json_t *obj, const char *where, const char *key)
{
	return vd_typed(d, obj, where, key, 0);
}

void *vd_elems(struct vd *d, const json_t *obj, const char *where, const char *key, size_t size,
	       size_t *n)
{
	const json_t *a = vd_arr(d, obj, where, key), *e;
	size_t i;

	*n = json_array_size(a);
	json_array_foreach(a, i, e)
		if (!json_is_object(e)) {
			char at[96];

			snprintf(at, sizeof(at), "%s[%zu]", key, i);
			vd_fail(d, where, at, "an object", e);
		}
	return *n ? xcalloc(*n, size) : NULL;
}

void vd_table(struct vd *d, const struct sdoc_field *fields, const json_t *obj, void *base)
{
	struct strbuf later = STRBUF_INIT;

	/* only the first error is said; a later one is decoded into nothing */
	if (sdoc_fields_decode_report(fields, obj, base, d->failed ? &later : d->err))
		d->failed++;
	sb_release(&later);
}

const json_t *vd_param(const json_t *params, const char *name)
{
	return json_object_get(params, name);
}

/*
 * Read by key here, with the report's decoders: a session's kernels[] and
 * workloads[] element by name, for compare (a kernel copied as it is) and
 * the analysis' input reader (a workload's declarations).
 */
json_t *report_find_named(const json_t *obj, const char *member, const char *name)
{
	json_t *e;
	size_t i;

	json_array_foreach(json_object_get(obj, member), i, e)
		if (!strcmp(jget_str(e, "name", ""), name))
			return e;
	return NULL;
}
