// SPDX-License-Identifier: GPL-2.0
#include "ini_lines.h"
#include "escape.h"
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

/*
 * fgets() without its blind spot: up to @num - 1 bytes or a newline, with
 * the length read and whether a NUL byte was among them (strlen() would
 * stop there, and the line would look cut short).
 */
static size_t read_piece(FILE *f, char *str, int num, int *nul)
{
	size_t len = 0;
	int c;

	*nul = 0;
	while (len + 1 < (size_t)num && (c = getc(f)) != EOF) {
		str[len++] = (char)c;
		*nul |= !c;
		if (c == '\n')
			break;
	}
	str[len] = '\0';
	return len;
}

/* Hand inih an empty line in place of a rejected one, so it keeps its place. */
static char *blank_line(char *str)
{
	str[0] = '\n';
	str[1] = '\0';
	return str;
}

static char *reader(char *str, int num, void *stream)
{
	struct ini_ctx *ctx = stream;

	for (;;) {
		int nul;
		size_t len = read_piece(ctx->f, str, num, &nul);

		if (!len)
			return NULL;
		int complete = str[len - 1] == '\n';
		if (ctx->skipping) {
			/* Still inside the over-long line: drop this piece. */
			ctx->skipping = !complete;
			continue;
		}
		ctx->line++;
		if (!complete && !feof(ctx->f)) {
			ini_error(ctx->err, ctx->path, ctx->line,
				  "line longer than %d characters", num - 2);
			ctx->errors++;
			ctx->skipping = 1;
			return blank_line(str);
		}
		if (nul) {
			ini_error(ctx->err, ctx->path, ctx->line,
				  "NUL byte at column %zu (not a text file?)", strlen(str) + 1);
			ctx->errors++;
			return blank_line(str);
		}
		if (ctx->sections)
			report_section(ctx, str);
		return str;
	}
}

/*
 * Values end up in JSON (session.json, the kernel cache's meta.json), which
 * must be UTF-8: refuse other bytes here, where the line is known.
 */
static int utf8_ok(struct ini_ctx *ctx, const char *what, const char *s)
{
	size_t len = strlen(s), good = utf8_valid_len(s, len);

	if (good == len)
		return 1;
	ini_error(ctx->err, ctx->path, ctx->line, "%s is not valid UTF-8 (byte 0x%02x at offset %zu)",
		  what, (unsigned char)s[good], good);
	ctx->errors++;
	return 0;
}

static int handler(void *user, const char *section, const char *name, const char *value)
{
	struct ini_ctx *ctx = user;

	if (!utf8_ok(ctx, "the section name", section) || !utf8_ok(ctx, "the key", name) ||
	    !utf8_ok(ctx, "the value", value))
		return 1;
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
