/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The pieces the lab's HTML pages share (issue 48: one kit for the
 * renderers): a verdict's badge, a muted note, a link relative to the
 * page, a table with its head. Every string that came from a file, a
 * guest or lab.conf goes through sb_add_xml() here; a table's heads are
 * the caller's own markup (entities such as "&#8594;"), never data.
 * Adopted by bisect.html (lab/bisect/bisect_html.c) and history's page
 * (lab/history/history_render.c); report.html (report_html.c) has copies
 * of its own still. The CSS the classes name is report_html_begin()'s.
 *
 * Thread-safe: each call writes only the caller's strbuf.
 */
#ifndef LAB_HTML_KIT_H
#define LAB_HTML_KIT_H

#include "strbuf.h"

/* @s escaped for text and attribute values; NULL appends nothing. */
void html_esc(struct strbuf *sb, const char *s);

/* <span class="badge v-CLS">TEXT</span>: a verdict or kind, coloured by its class. */
void html_badge(struct strbuf *sb, const char *cls, const char *text);

/* <span class="muted">TEXT</span>: what is not there ("not measured"). */
void html_muted(struct strbuf *sb, const char *text);

/*
 * <a href="./REL">: a link relative to the page, "./" first so that no
 * folder name (one with a ':') reads as a scheme. The caller closes it.
 */
void html_link_open(struct strbuf *sb, const char *rel);

/* A table's column: its head (markup) and whether it holds numbers (class "num"). */
struct html_col {
	const char *head;
	int num;
};

/*
 * <div class="tw"><table[ class="CLS"]><thead><tr><th>...</th></tr></thead><tbody>
 * for @cols, ending in { NULL }; @cls NULL: none. html_table_close() ends it.
 */
void html_table_open(struct strbuf *sb, const char *cls, const struct html_col *cols);
void html_table_close(struct strbuf *sb);

#endif
