// SPDX-License-Identifier: GPL-2.0
/* session.json's hosts (session_host_rec.h): the one encoder and the one decoder. */
#include "session_host_rec.h"
#include "cpulist.h"
#include "xjson.h"

#include <stdlib.h>
#include <string.h>

json_t *session_host_encode(const struct host_cfg *h, const char *accel, const char *accel_reason)
{
	return xjson_pack("{s:s, s:s, s:I, s:s?, s:s, s:s, s:s?, s:s?}", "name", h->name, "uri", h->uri,
			  "slots", (json_int_t)h->slots, "cpus", h->cpus, "pool", h->pool,
			  "pool_dir", h->pool_dir, "accel", accel, "accel_reason", accel_reason);
}

void session_host_release(struct host_cfg *hc)
{
	free(hc->name);
	free(hc->uri);
	free(hc->cpus);
	free(hc->cpu_ids);
	free(hc->pool);
	free(hc->pool_dir);
	memset(hc, 0, sizeof(*hc));
}

/*
 * String member @key: a copy; @def when absent (NULL: it is required).
 * The first error only goes into @err.
 */
static char *str_member(const json_t *j, const char *key, const char *def, int nonempty,
			struct strbuf *err, size_t len)
{
	const json_t *v = json_object_get(j, key);

	if (json_is_string(v) && (!nonempty || *json_string_value(v)))
		return xstrdup(json_string_value(v));
	if (!v && def)
		return xstrdup(def);
	if (err->len == len)
		sb_addf(err, "%s: expected a%s string, got %s", key, nonempty ? " non-empty" : "",
			!v ? "nothing" : json_is_string(v) ? "an empty one" : xjson_type_name(v));
	return NULL;
}

int session_host_decode(const json_t *j, struct host_cfg *hc, struct strbuf *err)
{
	const json_t *slots = json_object_get(j, "slots"), *cpus = json_object_get(j, "cpus");
	size_t len = err->len;

	memset(hc, 0, sizeof(*hc));
	if (!json_is_object(j)) {
		sb_addf(err, "expected an object, got %s", j ? xjson_type_name(j) : "nothing");
		return -1;
	}
	hc->name = str_member(j, "name", NULL, 1, err, len);
	hc->uri = str_member(j, "uri", NULL, 0, err, len);
	if (err->len == len && (!json_is_integer(slots) || json_integer_value(slots) < 1 ||
				json_integer_value(slots) > 1024))
		sb_addf(err, "slots: expected 1 to 1024, got %s",
			slots ? xjson_type_name(slots) : "nothing");
	hc->slots = (long)json_integer_value(slots);
	hc->pool = str_member(j, "pool", CONFIG_DEFAULT_POOL, 0, err, len);
	hc->pool_dir = str_member(j, "pool_dir", CONFIG_DEFAULT_POOL_DIR, 0, err, len);
	/* null: every CPU, as the encoder writes a host whose cpus lab.conf does not set */
	if (cpus && !json_is_null(cpus) && err->len == len) {
		hc->cpus = str_member(j, "cpus", NULL, 0, err, len);
		hc->cpu_ids = xcalloc(CONFIG_MAX_HOST_CPUS, sizeof(int));
		hc->nr_cpus = hc->cpus ? cpulist_ids(hc->cpus, CONFIG_MAX_HOST_CPUS, hc->cpu_ids,
						     CONFIG_MAX_HOST_CPUS) : 0;
		if (hc->cpus && hc->nr_cpus <= 0)
			sb_addf(err, "host %s: cpus '%s' is not a CPU list", hc->name, hc->cpus);
	}
	return err->len == len ? 0 : -1;
}
