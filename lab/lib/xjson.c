// SPDX-License-Identifier: GPL-2.0
#include "xjson.h"
#include "util.h"

#include <stdarg.h>

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
