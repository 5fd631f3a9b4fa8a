// SPDX-License-Identifier: GPL-2.0
/*
 * The text report's cells (report_text_priv.h): every table of report.txt
 * and the mail fits 80 columns, counted in code points (names may hold
 * UTF-8), and says "no value" one way. Made safe here, so that what came
 * from the session never reaches the report raw.
 */
#include "report_priv.h"
#include "report_text_priv.h"
#include "escape.h"
#include "report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void txt_pad_to(struct strbuf *sb, size_t line_start, size_t col)
{
	/* Columns are counted in code points: names may hold UTF-8. */
	size_t w = text_safe_width(sb->buf + line_start);

	while (w++ < col)
		sb_addc(sb, ' ');
}

/* A cell's "-" (report_fmt.c's "no value") as NO_VALUE. */
void txt_no_value(char *buf, size_t size)
{
	if (!strcmp(buf, "-"))
		snprintf(buf, size, "%s", NO_VALUE);
}

/* What marks a cut label: "~" is the no-change marker. */
#define CUT_MARK	"..."

/*
 * @s made safe, in at most @width columns: cut with "..." (never "~",
 * which is a verdict). Returns the columns used.
 */
size_t txt_fit(struct strbuf *sb, const char *s, size_t width)
{
	if (text_safe_width(s) <= width || width < 4)
		return sb_add_text_fit(sb, s, width);
	/* sb_add_text_fit() ends a cut with one "~": put the ellipsis there. */
	sb_add_text_fit(sb, s, width - 2);
	sb->buf[--sb->len] = '\0';
	sb_adds(sb, CUT_MARK);
	return width;
}

void txt_num_cell(char *buf, size_t size, double v)
{
	fmt_num(buf, size, v);
	if (strlen(buf) > NUM_W)
		snprintf(buf, size, "%.3e", v);
	txt_no_value(buf, size);
}

void txt_pct_cell(char *buf, size_t size, double pct)
{
	fmt_pct(buf, size, pct);
	txt_no_value(buf, size);
}

/*
 * Word-wrap @text (made safe first) to 78 columns; the first line starts
 * after @prefix, continuation lines are indented by @indent.
 */
void report_text_wrap(struct strbuf *sb, const char *prefix, size_t indent, const char *text)
{
	struct strbuf safe = STRBUF_INIT;
	size_t col = strlen(prefix), cols;
	int bol = 1;	/* no word on this line yet */
	const char *s;

	sb_adds(sb, prefix);
	sb_add_text_safe(&safe, text);
	for (s = safe.buf; s && *s;) {
		size_t bytes = strcspn(s, " ");
		char *word = xstrndup(s, bytes);
		size_t w = text_safe_width(word);

		if (!bol && col + 1 + w > 78) {
			sb_addf(sb, "\n%*s", (int)indent, "");
			col = indent;
			bol = 1;
		} else if (!bol) {
			sb_addc(sb, ' ');
			col++;
		}
		cols = txt_fit(sb, word, 78 - col);
		col += cols;
		bol = bol && !cols;
		free(word);
		s += bytes;
		while (*s == ' ')
			s++;
	}
	sb_addc(sb, '\n');
	sb_release(&safe);
}

/* report_text_wrap(), continuation lines indented to @prefix's end. */
void txt_wrap(struct strbuf *sb, const char *prefix, const char *text)
{
	report_text_wrap(sb, prefix, strlen(prefix), text);
}

/* @s right-aligned in @width columns after one space, cut if longer. */
void txt_right_text(struct strbuf *sb, const char *s, size_t width)
{
	struct strbuf t = STRBUF_INIT;
	size_t w;

	txt_fit(&t, s, width);
	w = text_safe_width(t.buf);
	sb_addc(sb, ' ');
	while (w++ < width)
		sb_addc(sb, ' ');
	sb_add(sb, t.buf, t.len);
	sb_release(&t);
}

/* @name at the row's start; a long one on its own line. Returns the row's line start. */
size_t txt_row_name(struct strbuf *sb, const char *name, size_t width)
{
	size_t start = sb->len;

	sb_adds(sb, "  ");
	if (text_safe_width(name) > width) {
		txt_fit(sb, name, 76);
		sb_adds(sb, "\n  ");
		start = sb->len - 2;
	} else {
		sb_add_text_safe(sb, name);
	}
	txt_pad_to(sb, start, 2 + width);
	return start;
}

void txt_end_row(struct strbuf *sb)
{
	while (sb->len && sb->buf[sb->len - 1] == ' ')
		sb->buf[--sb->len] = '\0';
	sb_addc(sb, '\n');
}
