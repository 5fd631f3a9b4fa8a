/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The pieces the lab's HTML pages share (issue 48: one kit for the
 * renderers): a verdict's badge, a muted note, a link relative to the
 * page, a table with its head. Every string that came from a file, a
 * guest or lab.conf goes through sb_add_xml() here; a table's heads are
 * the caller's own markup (entities such as "&#8594;"), never data.
 * Used by report.html (report_html*.c), bisect.html (lab/bisect/bisect_html.c)
 * and history's page (lab/history/history_render.c). The CSS the classes
 * name is report_html_begin()'s.
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

/*
 * A verdict's badge, or a counter's change's: <span class="badge v-ID"
 * title="LABEL">SYMBOL</span> ("increase", "decrease" and "constant" show
 * their id). An id that is not one of html_verdict_class()'s is "invalid".
 */
void html_verdict_badge(struct strbuf *sb, const char *id);

/*
 * @id if it is a verdict or change id the CSS colours (improvement ...
 * invalid, increase, decrease, constant), else "invalid": ids come from
 * our own tables, and anything else is shown as invalid.
 */
const char *html_verdict_class(const char *id);

/* <td class="verdict">: html_verdict_badge(@id), or "-" when @id is NULL (nothing compared). */
void html_td_verdict(struct strbuf *sb, const char *id);

/* <td class="num">: @v as fmt_num() writes it ("-" for NaN). */
void html_td_num(struct strbuf *sb, double v);

/* <td>TEXT</td>, escaped; NULL: an empty cell. */
void html_td_text(struct strbuf *sb, const char *text);

/* <li>TEXT</li>, escaped. */
void html_li(struct strbuf *sb, const char *text);

/* <dt>TERM</dt><dd>VALUE</dd>: @term is the caller's markup, @val escaped, "-" when empty. */
void html_dl_item(struct strbuf *sb, const char *term, const char *val);

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
