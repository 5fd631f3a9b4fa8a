// SPDX-License-Identifier: GPL-2.0
/* A series' context, its id, and the contexts by id: history_context.h. */
#include "history_context.h"
#include "sha256.h"
#include "util.h"
#include "xjson.h"

#include <stdlib.h>
#include <string.h>

/* The id of @ctx: its hash, as text; 0, or -1 when it cannot be encoded. */
static int context_id(const json_t *ctx, char id[HISTORY_CONTEXT_ID_LEN + 1])
{
	char *text = json_dumps(ctx, JSON_SORT_KEYS | JSON_COMPACT);
	char hex[SHA256_HEX_LEN + 1];

	if (!text)
		return -1;
	sha256_hex_of(text, strlen(text), hex);
	free(text);
	memcpy(id, hex, HISTORY_CONTEXT_ID_LEN);
	id[HISTORY_CONTEXT_ID_LEN] = '\0';
	return 0;
}

json_t *history_context_encode(const struct report_view *v, const struct sdoc_workload *wl,
			       char id[HISTORY_CONTEXT_ID_LEN + 1])
{
	static const char *const host_keys[] = { "hostname", "cpu", "cpus", "memory_mib",
						 "accel" };
	json_t *host = json_object(), *ctx;

	for (size_t i = 0; host && i < ARRAY_SIZE(host_keys); i++) {
		const json_t *m = json_object_get(v->host_json, host_keys[i]);

		json_object_set_new(host, host_keys[i], m ? json_incref((json_t *)m) : json_null());
	}
	ctx = host ? xjson_pack("{s:o,s:O?,s:{s:s?,s:O?}}", "host", host,
				"guest", v->guest_json,
				"workload", "type", wl ? wl->type : NULL,
				"params", wl ? wl->params : NULL) : NULL;
	if (!ctx || context_id(ctx, id))
		die("out of memory building a series context");
	return ctx;
}

void history_context_decode(const json_t *ctx, struct history_context *out)
{
	const json_t *host = json_object_get(ctx, "host");
	const json_t *wl = json_object_get(ctx, "workload");

	out->hostname = json_string_value(json_object_get(host, "hostname"));
	out->accel = json_string_value(json_object_get(host, "accel"));
	out->guest = json_string_value(json_object_get(json_object_get(ctx, "guest"), "name"));
	out->type = json_string_value(json_object_get(wl, "type"));
	out->params = json_object_get(wl, "params");
}

int history_context_valid(const char *id, const json_t *ctx)
{
	char want[HISTORY_CONTEXT_ID_LEN + 1];

	return json_is_object(ctx) && strlen(id) == HISTORY_CONTEXT_ID_LEN &&
	       !context_id(ctx, want) && !strcmp(want, id);
}

const json_t *history_context_find(const json_t *contexts, const char *id)
{
	return json_object_get(contexts, id);
}

void history_context_add(json_t *contexts, const char *id, json_t *ctx)
{
	if (!json_object_get(contexts, id))
		json_object_set(contexts, id, ctx);
}
