/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Thread-safe: each call parses with state of its own.
 *
 * libinih with line numbers. Debian's libinih is built without
 * INI_HANDLER_LINENO, so we feed it through our own reader that counts
 * lines: when the handler runs, the reader has just returned the line that
 * holds the key. The reader also catches lines longer than inih's fixed
 * buffer (INI_MAX_LINE), which inih would otherwise split silently.
 */
#ifndef LAB_INI_LINES_H
#define LAB_INI_LINES_H

#include "util.h"
#include "strbuf.h"

/* Called per key; @line is 1-based. Return 0 to continue, nonzero on error (already recorded). */
typedef int (*ini_line_handler)(void *user, const char *section, const char *key,
				const char *value, int line);

/*
 * Parse @path. Errors are appended to @err as "FILE:LINE: message\n";
 * the handler adds its own the same way (see ini_error()). Returns the
 * number of errors, or -1 when the file cannot be read (also in @err).
 */
LAB_MUST_CHECK
int ini_parse_lines(const char *path, ini_line_handler handler, void *user, struct strbuf *err);

/* Called for each "[section]" header line, before any of its keys. */
typedef void (*ini_section_handler)(void *user, const char *section, int line);

/* As ini_parse_lines(), and tell @sections about every section header. */
LAB_MUST_CHECK
int ini_parse_lines_sections(const char *path, ini_line_handler handler,
			     ini_section_handler sections, void *user, struct strbuf *err);

/* Append "FILE:LINE: message\n" to @err. */
void ini_error(struct strbuf *err, const char *path, int line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif
