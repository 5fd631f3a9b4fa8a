// SPDX-License-Identifier: GPL-2.0
#include "ini_lines.h"
#include "util.h"

#include <errno.h>
#include <ini.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ini_ctx {
	FILE *f;
	const char *path;
	int line;
	int long_line;		/* first line that exceeded the buffer, 0 if none */
	int skipping;		/* discarding the rest of an over-long line */
	int errors;
	ini_line_handler handler;
	ini_section_handler sections;
	void *user;
	struct strbuf *err;
};

void ini_error(struct strbuf *err, const char *path, int line, const char *fmt, ...)
{
	va_list ap;

	sb_addf(err, "%s:%d: ", path, line);
	va_start(ap, fmt);
	sb_vaddf(err, fmt, ap);
	va_end(ap);
	sb_addc(err, '\n');
}

/* inih strips the brackets itself; we only want the header's line number. */
static void report_section(struct ini_ctx *ctx, const char *raw)
{
	const char *s = raw + strspn(raw, " \t");
	const char *end;

	if (*s != '[' || !(end = strchr(s, ']')))
		return;
	s++;
	while (*s == ' ' || *s == '\t')
		s++;
	while (end > s && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	char *name = xstrndup(s, (size_t)(end - s));
	ctx->sections(ctx->user, name, ctx->line);
	free(name);
}

static char *reader(char *str, int num, void *stream)
{
	struct ini_ctx *ctx = stream;

	for (;;) {
		if (!fgets(str, num, ctx->f))
			return NULL;
		size_t len = strlen(str);
		int complete = len && str[len - 1] == '\n';
		if (ctx->skipping) {
			/* Still inside the over-long line: drop this piece. */
			ctx->skipping = !complete;
			if (!complete)
				continue;
			continue;
		}
		ctx->line++;
		if (!complete && !feof(ctx->f)) {
			ini_error(ctx->err, ctx->path, ctx->line,
				  "line longer than %d characters", num - 2);
			ctx->errors++;
			ctx->skipping = 1;
			/* Hand inih an empty line so it keeps its place. */
			str[0] = '\n';
			str[1] = '\0';
			return str;
		}
		if (ctx->sections)
			report_section(ctx, str);
		return str;
	}
}

static int handler(void *user, const char *section, const char *name, const char *value)
{
	struct ini_ctx *ctx = user;

	if (ctx->handler(ctx->user, section, name, value, ctx->line))
		ctx->errors++;
	return 1;	/* keep going: report every error in one pass */
}

int ini_parse_lines(const char *path, ini_line_handler h, void *user, struct strbuf *err)
{
	return ini_parse_lines_sections(path, h, NULL, user, err);
}

int ini_parse_lines_sections(const char *path, ini_line_handler h, ini_section_handler sections,
			     void *user, struct strbuf *err)
{
	struct ini_ctx ctx = { .path = path, .handler = h, .sections = sections,
			       .user = user, .err = err };
	int r;

	ctx.f = fopen(path, "r");
	if (!ctx.f) {
		sb_addf(err, "%s: cannot read: %s\n", path, strerror(errno));
		return -1;
	}
	r = ini_parse_stream(reader, &ctx, handler, &ctx);
	fclose(ctx.f);
	if (r > 0) {
		/* inih reports only the first syntax error; our handler never fails. */
		ini_error(err, path, r, "expected '[section]', 'key = value' or a comment");
		ctx.errors++;
	}
	return ctx.errors;
}
