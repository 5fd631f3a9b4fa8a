// SPDX-License-Identifier: GPL-2.0
/* The HTML pages' shared pieces (html_kit.h). */
#include "html_kit.h"
#include "escape.h"

void html_esc(struct strbuf *sb, const char *s)
{
	sb_add_xml(sb, s);
}

void html_badge(struct strbuf *sb, const char *cls, const char *text)
{
	sb_adds(sb, "<span class=\"badge v-");
	sb_add_xml(sb, cls);
	sb_adds(sb, "\">");
	sb_add_xml(sb, text);
	sb_adds(sb, "</span>");
}

void html_muted(struct strbuf *sb, const char *text)
{
	sb_adds(sb, "<span class=\"muted\">");
	sb_add_xml(sb, text);
	sb_adds(sb, "</span>");
}

void html_link_open(struct strbuf *sb, const char *rel)
{
	sb_adds(sb, "<a href=\"./");
	sb_add_xml(sb, rel);
	sb_adds(sb, "\">");
}

void html_table_open(struct strbuf *sb, const char *cls, const struct html_col *cols)
{
	sb_adds(sb, "<div class=\"tw\"><table");
	if (cls) {
		sb_adds(sb, " class=\"");
		sb_add_xml(sb, cls);
		sb_addc(sb, '"');
	}
	sb_adds(sb, "><thead><tr>");
	for (; cols->head; cols++) {
		sb_adds(sb, cols->num ? "<th class=\"num\">" : "<th>");
		sb_adds(sb, cols->head);
		sb_adds(sb, "</th>");
	}
	sb_adds(sb, "</tr></thead><tbody>");
}

void html_table_close(struct strbuf *sb)
{
	sb_adds(sb, "</tbody></table></div>");
}
