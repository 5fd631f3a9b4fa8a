// SPDX-License-Identifier: GPL-2.0
/*
 * After merge_config.sh and olddefconfig, Kconfig silently drops options
 * whose dependencies are unmet. A lab kernel without, say, LRU_GEN_STATS
 * would boot and produce empty counters, so every requested option is
 * checked against the merged .config and the build stops naming the ones
 * Kconfig dropped.
 */
#include "kbuild.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

struct opt {
	char *name;
	char *value;	/* "n" for "is not set" */
};

struct opts {
	struct opt *v;
	size_t n, alloc;
};

static void opts_set(struct opts *o, const char *name, size_t nl, const char *value, size_t vl)
{
	for (size_t i = 0; i < o->n; i++) {
		if (strlen(o->v[i].name) == nl && !strncmp(o->v[i].name, name, nl)) {
			free(o->v[i].value);
			o->v[i].value = xstrndup(value, vl);
			return;
		}
	}
	ALLOC_GROW(o->v, o->n + 1, o->alloc);
	o->v[o->n].name = xstrndup(name, nl);
	o->v[o->n].value = xstrndup(value, vl);
	o->n++;
}

static void opts_parse(struct opts *o, const char *text)
{
	for (const char *s = text; s && *s;) {
		const char *nl = strchr(s, '\n');
		size_t len = nl ? (size_t)(nl - s) : strlen(s);
		while (len && (s[len - 1] == '\r' || s[len - 1] == ' ' || s[len - 1] == '\t'))
			len--;
		const char *eq = memchr(s, '=', len);
		if (len > 7 && !strncmp(s, "CONFIG_", 7) && eq)
			opts_set(o, s, (size_t)(eq - s), eq + 1, len - (size_t)(eq - s) - 1);
		else if (len > 20 && !strncmp(s, "# CONFIG_", 9) &&
			 !strncmp(s + len - 11, " is not set", 11))
			opts_set(o, s + 2, len - 13, "n", 1);
		s = nl ? nl + 1 : NULL;
	}
}

static const char *opts_get(const struct opts *o, const char *name)
{
	for (size_t i = 0; i < o->n; i++)
		if (!strcmp(o->v[i].name, name))
			return o->v[i].value;
	return NULL;
}

static void opts_release(struct opts *o)
{
	for (size_t i = 0; i < o->n; i++) {
		free(o->v[i].name);
		free(o->v[i].value);
	}
	free(o->v);
}

int kconfig_verify(const char *const *fragments, size_t n, const char *config_text,
		   struct strbuf *dropped)
{
	struct opts want = { 0 }, have = { 0 };
	int bad = 0;

	for (size_t i = 0; i < n; i++)
		opts_parse(&want, fragments[i]);
	opts_parse(&have, config_text);
	for (size_t i = 0; i < want.n; i++) {
		const char *w = want.v[i].value, *h = opts_get(&have, want.v[i].name);
		/* An option absent from .config is off: its menu is not even visible. */
		const char *eff = h ? h : "n";
		if (!strcmp(w, eff))
			continue;
		sb_addf(dropped, "%s: requested %s, got %s\n", want.v[i].name,
			!strcmp(w, "n") ? "n (not set)" : w,
			h ? (!strcmp(h, "n") ? "n (not set)" : h) : "nothing (unmet dependencies)");
		bad++;
	}
	opts_release(&want);
	opts_release(&have);
	return bad;
}
