// SPDX-License-Identifier: GPL-2.0
/* The HTML pages' shared pieces (html_kit.h). */
#include "html_kit.h"
#include "escape.h"
#include "report.h"
#include "report_priv.h"
#include "util.h"

#include <string.h>

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

const char *html_verdict_class(const char *id)
{
	static const char *const ok[] = {
		"improvement", "regression", "within-noise", "no-change", "inconclusive",
		"invalid", "increase", "decrease", "constant",
	};

	for (size_t i = 0; i < ARRAY_SIZE(ok); i++)
		if (id && !strcmp(id, ok[i]))
			return ok[i];
	return "invalid";
}

void html_verdict_badge(struct strbuf *sb, const char *id)
{
	id = html_verdict_class(id);
	sb_addf(sb, "<span class=\"badge v-%s\" title=\"%s\">", id, verdict_label(id));
	if (!strcmp(id, "increase") || !strcmp(id, "decrease") || !strcmp(id, "constant"))
		sb_adds(sb, id);
	else
		sb_adds(sb, verdict_symbol(id));
	sb_adds(sb, "</span>");
}

void html_td_verdict(struct strbuf *sb, const char *id)
{
	sb_adds(sb, "<td class=\"verdict\">");
	if (id)
		html_verdict_badge(sb, id);
	else
		sb_adds(sb, "-");	/* one kernel: nothing was compared */
	sb_adds(sb, "</td>");
}

void html_td_num(struct strbuf *sb, double v)
{
	char b[48];

	fmt_num(b, sizeof(b), v);
	sb_addf(sb, "<td class=\"num\">%s</td>", b);
}

void html_td_text(struct strbuf *sb, const char *text)
{
	sb_adds(sb, "<td>");
	sb_add_xml(sb, text);
	sb_adds(sb, "</td>");
}

void html_li(struct strbuf *sb, const char *text)
{
	sb_adds(sb, "<li>");
	sb_add_xml(sb, text);
	sb_adds(sb, "</li>");
}

void html_dl_item(struct strbuf *sb, const char *term, const char *val)
{
	sb_addf(sb, "<dt>%s</dt><dd>", term);
	sb_add_xml(sb, val && *val ? val : "-");
	sb_adds(sb, "</dd>");
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
