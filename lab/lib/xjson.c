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
