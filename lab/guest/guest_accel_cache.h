/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The KVM probe's answer as <state>/kvm-probe.json keeps it (guest_accel.c
 * caches it per host), typed; guest_accel_cache.c has its one decoder and
 * its one encoder:
 *
 *   {"host_key": hex, "kvm_works": bool, "reason": text, "probed_at": ISO 8601}
 */
#ifndef LAB_GUEST_ACCEL_CACHE_H
#define LAB_GUEST_ACCEL_CACHE_H

#include <jansson.h>

#include "strbuf.h"
#include "util.h"

struct kvm_probe_cache {
	char *host_key;			/* what the answer holds for (host_key() in guest_accel.c) */
	int kvm_works;
	char *reason;			/* "" when none */
	char *probed_at;		/* NULL when not recorded */
};

/*
 * @j into @c. A file someone edited or a crash cut short is an error
 * naming the first wrong member ("kvm_works: expected a boolean, got a
 * string"): -1, @c released. 0 when it decodes.
 */
LAB_MUST_CHECK
int kvm_probe_cache_decode(const json_t *j, struct kvm_probe_cache *c, struct strbuf *err);
/* @c as the file has it; dies on OOM. */
json_t *kvm_probe_cache_encode(const struct kvm_probe_cache *c);
void kvm_probe_cache_release(struct kvm_probe_cache *c);

#endif
