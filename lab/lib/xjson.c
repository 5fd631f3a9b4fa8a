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
