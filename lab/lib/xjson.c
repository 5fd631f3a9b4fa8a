// SPDX-License-Identifier: GPL-2.0
#include "xjson.h"
#include "util.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>

json_t *xjson_pack(const char *fmt, ...)
{
	json_error_t err;
	json_t *j;
	va_list ap;

	va_start(ap, fmt);
	j = json_vpack_ex(&err, 0, fmt, ap);
	va_end(ap);
	if (!j)
		die("xjson_pack(\"%s\"): %s", fmt, err.text);
	return j;
}

const char *xjson_type_name(const json_t *j)
{
	switch (json_typeof(j)) {
	case JSON_OBJECT: return "an object";
	case JSON_ARRAY: return "an array";
	case JSON_STRING: return "a string";
	case JSON_INTEGER: return "an integer";
	case JSON_REAL: return "a number";
	case JSON_TRUE: case JSON_FALSE: return "a boolean";
	case JSON_NULL: return "null";
	}
	return "something else";
}

static const char *const want_names[] = {
	[XJ_STRING] = "a string",
	[XJ_STRING_OR_NULL] = "a string or null",
	[XJ_INT] = "an integer",
	[XJ_NUMBER] = "a number",
	[XJ_NUMBER_OR_NULL] = "a number or null",
	[XJ_BOOL] = "true or false",
	[XJ_OBJECT] = "an object",
	[XJ_ARRAY] = "an array",
};

const char *xjson_want_name(enum xjson_want w)
{
	return want_names[w];
}

int xjson_is(const json_t *j, enum xjson_want w)
{
	switch (w) {
	case XJ_STRING: return json_is_string(j);
	case XJ_STRING_OR_NULL: return json_is_string(j) || json_is_null(j);
	case XJ_INT:
		if (json_is_integer(j))
			return 1;
		/* 5.0 is an integer too: other writers may not distinguish. */
		return json_is_real(j) && json_real_value(j) == floor(json_real_value(j)) &&
			fabs(json_real_value(j)) < 9e15;
	case XJ_NUMBER: return json_is_number(j);
	case XJ_NUMBER_OR_NULL: return json_is_number(j) || json_is_null(j);
	case XJ_BOOL: return json_is_boolean(j);
	case XJ_OBJECT: return json_is_object(j);
	case XJ_ARRAY: return json_is_array(j);
	}
	return 0;
}

json_t *jnum(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

double jget_num(const json_t *obj, const char *key)
{
	json_t *j = json_object_get(obj, key);

	return json_is_number(j) ? json_number_value(j) : NAN;
}

const char *jget_str(const json_t *obj, const char *key, const char *def)
{
	const char *s = json_string_value(json_object_get(obj, key));

	return s ? s : def;
}

json_t *jpath(const json_t *obj, const char *dotted)
{
	char key[128];
	json_t *cur = (json_t *)obj;

	while (cur && *dotted) {
		size_t l = strcspn(dotted, ".");

		if (l >= sizeof(key))
			return NULL;
		memcpy(key, dotted, l);
		key[l] = '\0';
		cur = json_object_get(cur, key);
		dotted += l + (dotted[l] == '.');
	}
	return cur;
}

size_t xjson_path_key(struct strbuf *path, const char *key)
{
	size_t old = path->len;

	if (old)
		sb_addc(path, '.');
	sb_adds(path, key);
	return old;
}

size_t xjson_path_index(struct strbuf *path, size_t i)
{
	size_t old = path->len;

	sb_addf(path, "[%zu]", i);
	return old;
}

void xjson_path_pop(struct strbuf *path, size_t old)
{
	path->len = old;
	if (path->buf)
		path->buf[old] = '\0';
}

void xjson_fail(struct xjson_err *d, const char *want, const json_t *v, const char *fmt, ...)
{
	va_list ap;

	if (d->failed++)
		return;
	va_start(ap, fmt);
	sb_vaddf(d->err, fmt, ap);
	va_end(ap);
	sb_addf(d->err, ": expected %s, got %s", want, v ? xjson_type_name(v) : "nothing");
}
