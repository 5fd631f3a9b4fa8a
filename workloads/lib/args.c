// SPDX-License-Identifier: GPL-2.0
#include "args.h"
#include "jsonl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int key_eq(const char *name, const char *key, size_t keylen)
{
	size_t i;

	for (i = 0; i < keylen; i++) {
		char c = key[i] == '-' ? '_' : key[i];

		if (name[i] != c)
			return 0;
	}
	return name[i] == '\0';
}

static void usage(const struct wl_opt *opts, const char *prog, const char *summary)
{
	/* --help is for a human at a shell, so plain text on stdout is fine. */
	printf("usage: %s [--key=value ...]\n%s\n\n", prog, summary);
	for (const struct wl_opt *o = opts; o->name; o++)
		printf("  --%-16s %s (default: %s)\n", o->name, o->help,
		       o->def ? (*o->def ? o->def : "\"\"") : "required");
}

void wl_args_parse(struct wl_opt *opts, int argc, char **argv, const char *summary)
{
	for (struct wl_opt *o = opts; o->name; o++)
		o->val = o->def;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *eq;
		struct wl_opt *o;

		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(opts, argv[0], summary);
			exit(0);
		}
		if (strncmp(a, "--", 2) || !(eq = strchr(a, '=')))
			wl_fail("argument '%s' is not --key=value", a);
		for (o = opts; o->name; o++)
			if (key_eq(o->name, a + 2, (size_t)(eq - a - 2)))
				break;
		if (!o->name)
			wl_fail("unknown option '%.*s' (see --help)", (int)(eq - a), a);
		o->val = eq + 1;
	}
	for (struct wl_opt *o = opts; o->name; o++)
		if (!o->val)
			wl_fail("option --%s is required", o->name);
}

const char *wl_arg(const struct wl_opt *opts, const char *name)
{
	for (const struct wl_opt *o = opts; o->name; o++)
		if (!strcmp(o->name, name))
			return o->val;
	wl_fail("internal: no option '%s'", name);
}

static int parse_long_range(const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (end == s || *end || errno || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

long wl_arg_long(const struct wl_opt *opts, const char *name, long min, long max)
{
	const char *s = wl_arg(opts, name);
	long v;

	if (parse_long_range(s, min, max, &v))
		wl_fail("--%s=%s: expected an integer from %ld to %ld", name, s, min, max);
	return v;
}

size_t wl_arg_long_list(const struct wl_opt *opts, const char *name, long min, long max,
			long **out)
{
	const char *s = wl_arg(opts, name);
	char *copy = strdup(s), *tok, *save = NULL;
	size_t n = 0;
	long *v = calloc(strlen(s) / 2 + 1, sizeof(*v));

	if (!copy || !v)
		wl_fail("out of memory");
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (parse_long_range(tok, min, max, &v[n]))
			wl_fail("--%s=%s: expected integers from %ld to %ld, comma-separated",
				name, s, min, max);
		n++;
	}
	free(copy);
	if (!n)
		wl_fail("--%s is empty", name);
	*out = v;
	return n;
}

int wl_arg_choice(const struct wl_opt *opts, const char *name, const char *choices)
{
	const char *s = wl_arg(opts, name), *c = choices;
	size_t sl = strlen(s);
	int idx = 0;

	while (*c) {
		size_t l = strcspn(c, "|");

		if (l == sl && !strncmp(c, s, l))
			return idx;
		c += l;
		if (*c == '|')
			c++;
		idx++;
	}
	wl_fail("--%s=%s: expected one of %s", name, s, choices);
}

void wl_args_info(const struct wl_opt *opts, const char *program)
{
	struct jl j;

	jl_begin(&j, WL_REC_INFO);
	jl_str(&j, "program", program);
	for (const struct wl_opt *o = opts; o->name; o++) {
		char key[96];

		snprintf(key, sizeof(key), "param_%s", o->name);
		jl_str(&j, key, o->val);
	}
	jl_end(&j);
}
