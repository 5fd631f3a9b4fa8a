// SPDX-License-Identifier: GPL-2.0
/*
 * A guest line as the counters read it (counters.h, struct
 * counters_line): the one place its members are looked up by name.
 */
#include "counters.h"

#include <string.h>

static const char *str_member(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);

	return json_is_string(v) ? json_string_value(v) : NULL;
}

static double num_member(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);

	return json_is_number(v) ? json_number_value(v) : 0;
}

void counters_line_decode(const json_t *line, struct counters_line *out)
{
	const char *type = str_member(line, "type");
	const json_t *text = json_object_get(line, "text");

	memset(out, 0, sizeof(*out));
	if (type && !strcmp(type, "snapshot"))
		out->kind = COUNTERS_LINE_SNAPSHOT;
	else if (type && !strcmp(type, "info"))
		out->kind = COUNTERS_LINE_INFO;
	out->label = str_member(line, "label");
	if (!out->label || !*out->label)
		out->label = "main";
	out->phase = str_member(line, "phase");
	out->source = str_member(line, "source");
	out->tracepoint = str_member(line, "tracepoint");
	out->name = str_member(line, "name");
	out->reason = str_member(line, "reason");
	out->text = json_is_string(text) ? text : NULL;
	out->truncated = json_is_true(json_object_get(line, "truncated"));
	out->absent = json_is_true(json_object_get(line, "absent"));
	out->before_ms = num_member(line, "before_ms");
	out->after_ms = num_member(line, "after_ms");
	out->total_ms = num_member(line, "total_ms");
}
