// SPDX-License-Identifier: GPL-2.0
/*
 * The reply mail (`mglrulab report --mail`, `run --mail FILE`): an
 * LKP-style plain-text answer to the series a report measured, ready for
 * git send-email or a mail client. RFC 5322 headers threaded under the
 * series' cover letter (or first patch), then the answer
 * (report_headline.h), the lab's setup, how to reproduce and the HTML's
 * address. Every string from the report (patch subjects, guest and host
 * strings, names) passes sb_add_text_safe(): no control character, so no
 * header can be injected and no terminal escape reaches a reader.
 */
#include "report_headline.h"
#include "report_coh.h"
#include "escape.h"
#include "mail_addr.h"
#include "report.h"
#include "report_priv.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#define MAIL_WIDTH	78
#define WORD_CHARS	"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-"

static const char *or(const char *s, const char *def)
{
	return s ? s : def;
}

/*
 * A Message-Id fit for a header: "<...>" of printable ASCII without spaces
 * or further angle brackets. Anything else (a hand-edited report) is
 * treated as absent rather than copied into a header.
 */
static int msgid_ok(const char *id)
{
	size_t n = id ? strlen(id) : 0;

	if (n < 3 || n > 250 || id[0] != '<' || id[n - 1] != '>')
		return 0;
	for (size_t i = 1; i + 1 < n; i++)
		if (id[i] <= ' ' || id[i] > '~' || id[i] == '<' || id[i] == '>')
			return 0;
	return 1;
}

/* The mail the reply answers: the cover letter, else the first patch. */
struct thread {
	const char *subject, *msgid;
	const char *what;	/* "cover letter", "first patch" */
};

static const struct sdoc_kernel *patched_kernel(const struct report_view *v)
{
	for (size_t i = 0; v->design.patched && i < v->nkernels; i++)
		if (v->kernels[i].name && !strcmp(v->kernels[i].name, v->design.patched))
			return &v->kernels[i];
	return NULL;
}

static void thread_of(const struct report_view *v, struct thread *t)
{
	const struct sdoc_kernel *k = patched_kernel(v);

	memset(t, 0, sizeof(*t));
	if (!k)
		return;
	if (k->cover.subject || msgid_ok(k->cover.message_id)) {
		t->subject = k->cover.subject;
		t->msgid = msgid_ok(k->cover.message_id) ? k->cover.message_id : NULL;
		t->what = "cover letter";
	}
	if (!t->msgid && k->series.n && msgid_ok(sdoc_patch_at(k, 0)->message_id)) {
		t->msgid = sdoc_patch_at(k, 0)->message_id;
		t->what = "first patch";
	}
	if (!t->subject && k->series.n)
		t->subject = sdoc_patch_at(k, 0)->subject;
}

/*
 * A header whose @value is safe text: plain ASCII folds at spaces (RFC
 * 5322 2.2.3); anything else becomes RFC 2047 encoded words of whole
 * UTF-8 characters (mail_encoded_words()), one per folded line.
 */
static void header(struct strbuf *sb, const char *name, const char *value)
{
	size_t col = strlen(name) + 2, n = strlen(value), i = 0;
	int ascii = 1;

	for (size_t j = 0; j < n; j++)
		ascii &= (unsigned char)value[j] < 0x80;
	sb_addf(sb, "%s: ", name);
	while (ascii && i < n) {
		size_t w = strcspn(value + i, " ");

		/* Folding puts a space before the word: the one it replaces. */
		if (i && col + 1 + w > MAIL_WIDTH) {
			sb_adds(sb, "\n ");
			col = 1;
		} else if (i) {
			sb_addc(sb, ' ');
			col++;
		}
		sb_add(sb, value + i, w);
		col += w;
		i += w;
		while (value[i] == ' ')
			i++;
	}
	if (!ascii)
		mail_encoded_words(sb, value, &col, MAIL_WIDTH);
	sb_addc(sb, '\n');
}

/* "2026-12-01T15:34:09Z" as "Tue, 01 Dec 2026 15:34:09 +0000"; 0: not a date. */
static int rfc5322_date(const char *iso, char *buf, size_t size)
{
	struct tm tm = { 0 };
	const char *end = iso ? strptime(iso, "%Y-%m-%dT%H:%M:%SZ", &tm) : NULL;
	time_t t;

	if (!end || *end)
		return 0;
	t = timegm(&tm);
	gmtime_r(&t, &tm);
	return strftime(buf, size, "%a, %d %b %Y %H:%M:%S +0000", &tm) > 0;
}

static void subject(const struct report_view *v, const struct headline *h,
		    const struct thread *t, struct strbuf *sb)
{
	struct strbuf s = STRBUF_INIT, verdict = STRBUF_INIT;

	headline_summary(h, &verdict);
	if (t->subject) {
		const char *subj = t->subject;

		/* One "Re:" however many the subject already has. */
		while (!strncasecmp(subj, "Re: ", 4))
			subj += 4;
		sb_adds(&s, "Re: ");
		sb_add_text_safe(&s, subj);
		sb_adds(&s, " [mglrulab: ");
	} else {
		sb_adds(&s, "mglrulab: ");
		sb_add_text_safe(&s, h->baseline);
		sb_adds(&s, " vs ");
		sb_add_text_safe(&s, or(v->design.patched, "-"));
		sb_adds(&s, " [");
	}
	sb_add(&s, verdict.buf, verdict.len);
	sb_adds(&s, "]");
	header(sb, "Subject", sb_str(&s));
	sb_release(&s);
	sb_release(&verdict);
}

/* A configured header value: safe text, or left out when empty. */
static void opt_header(struct strbuf *sb, const char *name, const char *value)
{
	struct strbuf s = STRBUF_INIT;

	if (!value || !*value)
		return;
	sb_add_text_safe(&s, value);
	header(sb, name, sb_str(&s));
	sb_release(&s);
}

/*
 * From, To or Cc: lab.conf checked the list (mail_addr_parse()), so only
 * the names are encoded, never an address. A list that does not parse
 * (a caller's own) is written as text, which a reader shows as it is.
 */
static void addr_header(struct strbuf *sb, const char *name, const char *value)
{
	struct mail_addrs a;
	struct strbuf err = STRBUF_INIT;

	if (!value || !*value)
		return;
	if (mail_addr_parse(value, &a, &err))
		opt_header(sb, name, value);
	else
		mail_addr_header(sb, name, &a, MAIL_WIDTH);
	mail_addrs_release(&a);
	sb_release(&err);
}

/* A header of addresses salvaged from the series (mail_addr_salvage()); none: left out. */
static void salvaged_header(struct strbuf *sb, const char *name, const struct mail_addrs *a)
{
	if (a->n)
		mail_addr_header(sb, name, a, MAIL_WIDTH);
}

/*
 * To the series' author and Cc where it was posted, unless lab.conf's
 * [report] says otherwise. Both come from the series' mails (and then
 * from a report.json anyone may edit): each address is salvaged again
 * here, so a forged From or To adds no header and no recipient.
 */
static void series_recipients(struct strbuf *sb, const struct report_view *v,
			      const struct report_mail_opts *o)
{
	struct mail_addrs to = { 0 }, cc = { 0 };
	struct mail_addr a;

	if (o->to) {
		addr_header(sb, "To", o->to);
	} else if (!report_mail_series_author(v, &a)) {
		to.v = xmalloc(sizeof(*to.v));
		to.v[to.n++] = a;
		salvaged_header(sb, "To", &to);
	}
	if (o->cc) {
		addr_header(sb, "Cc", o->cc);
	} else {
		mail_addrs_salvage(report_mail_series_posted_to(v), &cc);
		salvaged_header(sb, "Cc", &cc);
	}
	mail_addrs_release(&to);
	mail_addrs_release(&cc);
}

static void headers(const struct report_view *v, const struct headline *h,
		    const struct report_mail_opts *o, const struct thread *t, struct strbuf *sb)
{
	char date[64];

	addr_header(sb, "From", or(o->from, "mglrulab <mglrulab@localhost>"));
	series_recipients(sb, v, o);
	subject(v, h, t, sb);
	if (o->date)
		opt_header(sb, "Date", o->date);
	else if (rfc5322_date(v->session.finished, date, sizeof(date)))
		header(sb, "Date", date);
	if (t->msgid) {
		header(sb, "In-Reply-To", t->msgid);
		header(sb, "References", t->msgid);
	}
	sb_adds(sb, "MIME-Version: 1.0\n"
		"Content-Type: text/plain; charset=utf-8\n"
		"Content-Transfer-Encoding: 8bit\n"
		"X-Mailer: mglrulab report --mail\n\n");
}

/* A paragraph of safe @text, wrapped to MAIL_WIDTH, every line @indent spaces in. */
static void para(struct strbuf *sb, size_t indent, const char *text)
{
	size_t col = indent;

	sb_addf(sb, "%*s", (int)indent, "");
	while (*text) {
		size_t bytes = strcspn(text, " "), w;
		char *word = xstrndup(text, bytes);

		w = text_safe_width(word);
		if (col > indent && col + 1 + w > MAIL_WIDTH) {
			sb_addf(sb, "\n%*s", (int)indent, "");
			col = indent;
		} else if (col > indent) {
			sb_addc(sb, ' ');
			col++;
		}
		sb_adds(sb, word);
		col += w;
		free(word);
		text += bytes;
		while (*text == ' ')
			text++;
	}
	sb_addc(sb, '\n');
}

/*
 * Text of the caller's (untrusted strings in it are filtered): each line a
 * paragraph, wrapped at its own indent (a hunk's line stays indented).
 */
static void plain_lines(struct strbuf *out, const char *text)
{
	struct strbuf s = STRBUF_INIT, line = STRBUF_INIT;

	for (const char *p = text; *p;) {
		size_t len = strcspn(p, "\n"), indent = strspn(p, " ");

		sb_reset(&line);
		sb_add(&line, p + (indent < len ? indent : len), len - (indent < len ? indent : len));
		sb_reset(&s);
		sb_add_text_safe(&s, line.buf);
		if (s.len)
			para(out, indent, s.buf);
		else
			sb_addc(out, '\n');
		p += len + (p[len] == '\n');
	}
	sb_release(&s);
	sb_release(&line);
}

static void opening(const struct report_view *v, const struct thread *t, struct strbuf *sb)
{
	const struct sdoc_kernel *k = patched_kernel(v);
	struct strbuf s = STRBUF_INIT;

	sb_adds(sb, "Hi,\n\n");
	sb_adds(&s, "mglrulab, a lab that boots each kernel in a fresh guest for every run, "
		"measured ");
	sb_add_text_safe(&s, or(v->design.patched, "?"));
	if (k && k->series.n)
		sb_addf(&s, " (%zu patch%s)", k->series.n, k->series.n == 1 ? "" : "es");
	sb_adds(&s, " against ");
	sb_add_text_safe(&s, or(v->design.baseline, "?"));
	sb_adds(&s, t->subject ? ": the series this mail replies to." : ".");
	para(sb, 0, sb_str(&s));
	sb_addc(sb, '\n');
	/* what the experiment can and cannot see, before any figure */
	if (v->note) {
		sb_reset(&s);
		sb_add_text_safe(&s, v->note);
		para(sb, 0, sb_str(&s));
		sb_addc(sb, '\n');
	}
	sb_release(&s);
}

static void reproduce(const struct report_view *v, const struct report_mail_opts *o,
		      struct strbuf *sb)
{
	struct strbuf s = STRBUF_INIT;

	report_mail_recipe(v, o->base_url, sb);
	sb_adds(sb, "  mglrulab report report.json   (this report again, from the raw runs)\n");
	if (o->base_url && v->session.id) {
		sb_reset(&s);
		sb_adds(&s, o->base_url);
		if (!s.len || s.buf[s.len - 1] != '/')
			sb_addc(&s, '/');
		sb_add_url_path(&s, v->session.id, 0);
		sb_adds(sb, "\nThe full report, with every run and its plots:\n  ");
		sb_add_text_safe(sb, sb_str(&s));
		sb_adds(sb, "/report.html\n  ");
		sb_add_text_safe(sb, sb_str(&s));
		sb_adds(sb, "/report.json\n");
	}
	sb_release(&s);
}

/*
 * The evidence of the mechanism when the session gathered it, as LKP's
 * mails add perf's: the kernel functions the instructions per unit moved
 * to (run --attribute), and the modelled cache-line transfers per unit
 * before and after with the functions that moved most (run --coherence).
 */
static void evidence(const struct report_view *v, const json_t *report, struct strbuf *out)
{
	const struct view_attribution *a = &v->attribution;

	if (a->present) {
		sb_addf(out, "\nAttribution (instructions per unit, %g runs per kernel; "
			"docs/attribution.md):\n", a->runs_per_kernel);
		report_attr_brief(a, out, 0);
	}
	report_coh_brief(report, out);
}

int report_render_mail(const json_t *report, const struct report_mail_opts *o,
		       struct strbuf *out, struct strbuf *why)
{
	struct report_view v;
	struct strbuf err = STRBUF_INIT;
	struct headline h;
	struct thread t;
	int ret = 0;

	if (report_view_decode(report, &v, &err)) {
		sb_addf(why, "the report does not decode: %s", sb_str(&err));
		report_view_release(&v);
		sb_release(&err);
		return -1;
	}
	headline_build(&v, &h);
	thread_of(&v, &t);
	if (!t.msgid) {
		sb_adds(why, "the report records no Message-Id of the series (a session from before "
			"mglrulab recorded them, or a series without Message-Id headers): the mail "
			"has no In-Reply-To; add the cover letter's by hand");
		ret = 1;
	}
	headers(&v, &h, o, &t, out);
	opening(&v, &t, out);
	headline_render_text(&h, out);
	report_mail_rows(&v, &h, out);
	evidence(&v, report, out);
	if (o->appendix && *o->appendix) {
		sb_addc(out, '\n');
		plain_lines(out, o->appendix);
	}
	sb_adds(out, "\nSetup\n");
	report_text_context(&v, out);
	reproduce(&v, o, out);
	sb_addf(out, "\n-- \n%s %s\n", or(v.generator.name, "mglrulab"), or(v.generator.version, ""));
	headline_release(&h);
	report_view_release(&v);
	sb_release(&err);
	return ret;
}

void report_render_plain_mail(const struct report_mail_opts *o, const char *subj,
			      const char *tag, const char *msgid, const char *body,
			      struct strbuf *out)
{
	struct strbuf s = STRBUF_INIT;
	char date[64];
	time_t now = time(NULL);
	struct tm tm;

	addr_header(out, "From", or(o->from, "mglrulab <mglrulab@localhost>"));
	addr_header(out, "To", o->to);
	addr_header(out, "Cc", o->cc);
	while (subj && !strncasecmp(subj, "Re: ", 4))
		subj += 4;
	sb_adds(&s, "Re: ");
	sb_add_text_safe(&s, or(subj, "your series"));
	sb_adds(&s, " [mglrulab: ");
	sb_add_text_safe(&s, tag);
	sb_adds(&s, "]");
	header(out, "Subject", sb_str(&s));
	if (o->date)
		opt_header(out, "Date", o->date);
	else if (gmtime_r(&now, &tm) && strftime(date, sizeof(date),
						  "%a, %d %b %Y %H:%M:%S +0000", &tm))
		header(out, "Date", date);
	if (msgid_ok(msgid)) {
		header(out, "In-Reply-To", msgid);
		header(out, "References", msgid);
	}
	sb_adds(out, "MIME-Version: 1.0\n"
		"Content-Type: text/plain; charset=utf-8\n"
		"Content-Transfer-Encoding: 8bit\n"
		"X-Mailer: mglrulab watch\n\n");
	plain_lines(out, body);
	sb_adds(out, "\n-- \nmglrulab watch\n");
	sb_release(&s);
}

char *report_mail_default_from(void)
{
	const char *user = getenv("USER");
	char host[256] = "localhost";

	if (gethostname(host, sizeof(host) - 1))
		snprintf(host, sizeof(host), "localhost");
	host[sizeof(host) - 1] = '\0';
	/* Only a plain ASCII user and host make an address a mail server takes. */
	if (!user || !*user || user[strspn(user, WORD_CHARS)])
		user = "mglrulab";
	if (host[strspn(host, WORD_CHARS ".")])
		snprintf(host, sizeof(host), "localhost");
	return xasprintf("%s@%s", user, host);
}
