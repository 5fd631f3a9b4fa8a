// SPDX-License-Identifier: GPL-2.0
/*
 * What a failed build may say in public. A reply to a mailing list and
 * the watch's index page are read by anyone, and a series controls its
 * build's output: `$(shell cat FILE)`, `#include "/abs/path"` (gcc quotes
 * the line it could not parse), `$(error ...)` with any text. So the
 * public word is one line chosen by rule, never the log's tail:
 *
 *   - the first line that reads as an error at a file and line
 *     ("mm/vmscan.c:12:3: error: ...", "mm/Kconfig:40: syntax error",
 *     "Makefile:7: *** ...  Stop."), whose file is inside the tree or the
 *     build folder, shown relative to it;
 *   - only when no other absolute path stands in that line (a host path
 *     is a fact about the lab's machine, and a line of a file outside the
 *     tree could be anything);
 *   - cut to PUBLIC_LINE_MAX bytes, filtered as one line of text.
 *
 * The sandbox already keeps every file but the tree, /usr and the build
 * folder out of the build's sight; this rule is the second wall.
 */
#include "kbuild.h"
#include "escape.h"
#include "fsutil.h"
#include "strbuf.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The most of the log read: the first error is near its end with -jN anyway. */
#define PUBLIC_LOG_MAX (1 << 20)
#define PUBLIC_LINE_MAX 240

/* @path shown relative to @dir when it is @dir/..., else NULL. */
static const char *below(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (n && !strncmp(path, dir, n) && path[n] == '/')
		return path + n + 1;
	return NULL;
}

/*
 * Whether @file is a path the public may see: relative without "..", or
 * absolute inside the tree or the build folder; its public form in @shown.
 */
static int public_file(const char *file, const char *tree, const char *build_dir,
		       struct strbuf *shown)
{
	const char *rel = file;

	while (!strncmp(rel, "./", 2))
		rel += 2;
	if (rel[0] == '/') {
		const char *t = below(rel, tree), *o = build_dir ? below(rel, build_dir) : NULL;

		if (!t && !o)
			return 0;
		rel = t ? t : o;
	}
	if (!*rel || !strcmp(rel, "..") || !strncmp(rel, "../", 3) || strstr(rel, "/../") ||
	    (strlen(rel) >= 3 && !strcmp(rel + strlen(rel) - 3, "/..")))
		return 0;
	sb_adds(shown, rel);
	return 1;
}

/* Whether @text (the rest of the line) names an absolute path: "/x" after a space or quote. */
static int names_host_path(const char *text, const char *tree, const char *build_dir)
{
	for (const char *s = strchr(text, '/'); s; s = strchr(s + 1, '/')) {
		char prev = s == text ? ' ' : s[-1];

		if (!(prev == ' ' || prev == '\'' || prev == '"' || prev == '`' || prev == '(' ||
		      prev == '=' || prev == ':' || prev == '<' || prev == '['))
			continue;
		if (!isalnum((unsigned char)s[1]) && s[1] != '_' && s[1] != '.')
			continue;
		if (below(s, tree) || (build_dir && below(s, build_dir)))
			continue;
		return 1;
	}
	return 0;
}

/*
 * @line as FILE:LINE[:COL]: MESSAGE with an error word in MESSAGE, or
 * make's "FILE:LINE: *** ...": its public form in @out, 1; else 0.
 */
static int public_line(const char *line, const char *tree, const char *build_dir,
		       struct strbuf *out)
{
	const char *colon = strchr(line, ':'), *msg;
	struct strbuf file = STRBUF_INIT, shown = STRBUF_INIT;
	int ok = 0;

	if (!colon || colon == line || !isdigit((unsigned char)colon[1]))
		return 0;
	msg = colon + 1;
	while (isdigit((unsigned char)*msg))
		msg++;
	if (*msg == ':' && isdigit((unsigned char)msg[1]))
		for (msg++; isdigit((unsigned char)*msg); msg++)
			;
	if (*msg != ':')
		return 0;
	msg++;
	if (!strstr(msg, "error") && !strstr(msg, "*** ") && !strstr(msg, "syntax"))
		return 0;
	sb_add(&file, line, (size_t)(colon - line));
	if (strchr(sb_str(&file), ' ') || !public_file(sb_str(&file), tree, build_dir, &shown))
		goto out;
	if (names_host_path(colon, tree, build_dir))
		goto out;
	sb_adds(&shown, colon);
	if (shown.len > PUBLIC_LINE_MAX) {
		shown.len = PUBLIC_LINE_MAX;
		shown.buf[shown.len] = '\0';
		sb_adds(&shown, "...");
	}
	sb_add_text_safe(out, sb_str(&shown));
	ok = 1;
out:
	sb_release(&file);
	sb_release(&shown);
	return ok;
}

void kbuild_public_error(const char *log, const char *tree, const char *build_dir,
			 const char *what, struct strbuf *out)
{
	struct strbuf text = STRBUF_INIT, line = STRBUF_INIT, pub = STRBUF_INIT;
	long long size = log ? file_size(log) : -1;
	int fd = size < 0 ? -1 : open(log, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	int found = 0;

	sb_adds(out, what);
	if (fd >= 0) {
		char buf[65536];
		ssize_t n;

		if (size > PUBLIC_LOG_MAX && lseek(fd, size - PUBLIC_LOG_MAX, SEEK_SET) < 0)
			size = -1;
		while (size >= 0 && (n = read(fd, buf, sizeof(buf))) > 0)
			sb_add(&text, buf, (size_t)n);
		close(fd);
	}
	for (const char *s = text.len ? text.buf : NULL; s && *s && !found;) {
		const char *nl = strchr(s, '\n');

		sb_reset(&line);
		sb_add(&line, s, nl ? (size_t)(nl - s) : strlen(s));
		sb_reset(&pub);
		if (public_line(sb_str(&line), tree, build_dir, &pub)) {
			sb_addf(out, ": %s", sb_str(&pub));
			found = 1;
		}
		s = nl ? nl + 1 : NULL;
	}
	sb_release(&text);
	sb_release(&line);
	sb_release(&pub);
}
