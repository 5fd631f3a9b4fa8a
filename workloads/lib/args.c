// SPDX-License-Identifier: GPL-2.0
#include "args.h"
#include "parse_num.h"
#include "jsonl.h"

#include <limits.h>
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

static void usage(const struct param_def *params, const char *prog, const char *summary)
{
	/* --help is for a human at a shell, so plain text on stdout is fine. */
	printf("usage: %s [--key=value ...]\n%s\n\n", prog, summary);
	for (const struct param_def *p = params; p->name; p++) {
		char allowed[160] = "";

		if (p->type != PARAM_STRING && p->type != PARAM_PATH) {
			allowed[0] = ' ';
			allowed[1] = '[';
			param_expected(p, allowed + 2, sizeof(allowed) - 3);
			strcat(allowed, "]");
		}
		printf("  --%-16s %s%s (default: %s)\n", p->name, p->help, allowed,
		       *p->def ? p->def : "\"\"");
	}
}

static int index_of(const struct wl_args *a, const char *name)
{
	for (int i = 0; a->params[i].name; i++)
		if (!strcmp(a->params[i].name, name))
			return i;
	wl_fail("internal: %s has no option '%s'", a->program, name);
}

void wl_args_parse(struct wl_args *a, const char *program, const struct param_def *params,
		   const char *summary, int argc, char **argv)
{
	int n;

	a->program = program;
	a->params = params;
	for (n = 0; params[n].name; n++) {
		if (n == WL_ARGS_MAX)
			wl_fail("internal: %s has more than %d options", program, WL_ARGS_MAX);
		a->val[n] = params[n].def;
	}

	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i], *eq;
		int k;

		if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
			usage(params, argv[0], summary);
			exit(WL_EXIT_OK);
		}
		if (strncmp(arg, "--", 2) || !(eq = strchr(arg, '=')))
			wl_fail("argument '%s' is not --key=value", arg);
		for (k = 0; k < n; k++)
			if (key_eq(params[k].name, arg + 2, (size_t)(eq - arg - 2)))
				break;
		if (k == n)
			wl_fail("unknown option '%.*s' (see --help)", (int)(eq - arg), arg);
		if (param_check(&params[k], eq + 1)) {
			char expected[128];

			param_expected(&params[k], expected, sizeof(expected));
			wl_fail("--%s=%s: expected %s", params[k].name, eq + 1, expected);
		}
		a->val[k] = eq + 1;
	}
}

const char *wl_arg(const struct wl_args *a, const char *name)
{
	return a->val[index_of(a, name)];
}

long wl_arg_long(const struct wl_args *a, const char *name)
{
	int k = index_of(a, name);
	long v;

	/* checked by wl_args_parse (the default by the table's unit test) */
	if (parse_long(a->val[k], LONG_MIN, LONG_MAX, &v))
		wl_fail("internal: --%s=%s is not a number", name, a->val[k]);
	return v;
}

double wl_arg_seconds(const struct wl_args *a, const char *name)
{
	int k = index_of(a, name);
	long ms;

	/* checked by wl_args_parse (the default by the table's unit test) */
	if (param_parse_ms(a->val[k], &ms))
		wl_fail("internal: --%s=%s is not a number of seconds", name, a->val[k]);
	return (double)ms / 1000.0;
}

size_t wl_arg_long_list(const struct wl_args *a, const char *name, long **out)
{
	const struct param_def *p = &a->params[index_of(a, name)];
	const char *s = wl_arg(a, name);
	long n = param_parse_list(p, s, NULL, 0);
	long *v;

	if (n < 0)
		wl_fail("internal: --%s=%s is not a list", name, s);
	v = calloc((size_t)n, sizeof(*v));
	if (!v)
		wl_fail("out of memory");
	if (param_parse_list(p, s, v, (size_t)n) != n)
		wl_fail("internal: --%s=%s changed its length", name, s);
	*out = v;
	return (size_t)n;
}

int wl_arg_choice(const struct wl_args *a, const char *name)
{
	int k = index_of(a, name), c = param_choice(&a->params[k], a->val[k]);

	if (c < 0)
		wl_fail("internal: --%s=%s is not one of %s", name, a->val[k], a->params[k].choices);
	return c;
}

void wl_args_info(const struct wl_args *a)
{
	struct jl j;

	jl_begin(&j, WL_REC_INFO);
	jl_str(&j, "program", a->program);
	for (int i = 0; a->params[i].name; i++) {
		char key[96];

		snprintf(key, sizeof(key), "param_%s", a->params[i].name);
		jl_str(&j, key, a->val[i]);
	}
	jl_end(&j);
}
