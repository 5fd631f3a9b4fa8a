// SPDX-License-Identifier: GPL-2.0
/* kvm-probe.json (guest_accel_cache.h): its one decoder and its one encoder. */
#include "guest_accel_cache.h"
#include "escape.h"
#include "xjson.h"

#include <stdlib.h>
#include <string.h>

void kvm_probe_cache_release(struct kvm_probe_cache *c)
{
	free(c->host_key);
	free(c->reason);
	free(c->probed_at);
	memset(c, 0, sizeof(*c));
}

/* String member @key: a copy; NULL when absent and @optional, else an error in @err. */
static char *str_member(const json_t *j, const char *key, int optional, struct strbuf *err)
{
	const json_t *v = json_object_get(j, key);

	if (json_is_string(v))
		return xstrdup(json_string_value(v));
	if ((!v && optional) || err->len)
		return NULL;
	sb_addf(err, "%s: expected a string, got %s", key, v ? xjson_type_name(v) : "nothing");
	return NULL;
}

int kvm_probe_cache_decode(const json_t *j, struct kvm_probe_cache *c, struct strbuf *err)
{
	const json_t *works = json_object_get(j, "kvm_works");
	struct strbuf why = STRBUF_INIT;

	memset(c, 0, sizeof(*c));
	if (!json_is_object(j)) {
		sb_addf(err, "expected an object, got %s", j ? xjson_type_name(j) : "nothing");
		return -1;
	}
	c->host_key = str_member(j, "host_key", 0, &why);
	if (!why.len && !json_is_boolean(works))
		sb_addf(&why, "kvm_works: expected a boolean, got %s",
			works ? xjson_type_name(works) : "nothing");
	c->kvm_works = json_is_true(works);
	c->reason = str_member(j, "reason", 1, &why);
	c->probed_at = str_member(j, "probed_at", 1, &why);
	if (!c->reason)
		c->reason = xstrdup("");
	if (why.len) {
		sb_adds(err, sb_str(&why));
		sb_release(&why);
		kvm_probe_cache_release(c);
		return -1;
	}
	sb_release(&why);
	return 0;
}

json_t *kvm_probe_cache_encode(const struct kvm_probe_cache *c)
{
	return xjson_pack("{s:s,s:b,s:o,s:s?}", "host_key", c->host_key, "kvm_works", c->kvm_works,
			  "reason", json_string_lossy(c->reason ? c->reason : ""),
			  "probed_at", c->probed_at);
}
