// SPDX-License-Identifier: GPL-2.0
/*
 * The answer first (report_headline.h) and the reply mail (report_mail.c).
 * Guards what issue 29 found: the text report opened with 30 lines of
 * metadata and "Verdicts: 2 improvement, 1 regression" named no metric;
 * the warnings ("3 metric(s) have outliers") named none either; and there
 * was no mail a maintainer could send in reply to the series, threaded
 * under its cover letter, with every guest string made safe.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixtures_report.h"
#include "escape.h"
#include "mbox.h"
#include "report.h"
#include "report_headline.h"
#include "report_view.h"

#define SERIES "tests/fixtures/series/yield-three.mbox"
#define COVER_ID "<cover.1796058141.git.test@mglrulab.invalid>"
#define PATCH1_ID "<9f30fd64695635abcd65ff0f43f5b72aba2710bc.1796058141.git.test@mglrulab.invalid>"

static json_t *patched_kernel(json_t *session)
{
	return json_array_get(json_object_get(session, "kernels"), 1);
}

/* The headline of @session (analysed), into @h; the view stays in @v, the report in *@r. */
static void headline_of(const json_t *session, json_t **r, struct report_view *v,
			struct headline *h)
{
	struct strbuf err = STRBUF_INIT;

	*r = fixture_analyze(session);
	if (report_view_decode(*r, v, &err))
		fail_msg("%s", err.buf);
	headline_build(v, h);
	sb_release(&err);
}

static void done(json_t *r, struct report_view *v, struct headline *h)
{
	headline_release(h);
	report_view_release(v);
	json_decref(r);
}

/* The line of @text that contains @needle, as a new string (fails when none). */
static char *line_with(const char *text, const char *needle)
{
	const char *at = strstr(text, needle), *a, *b;

	if (!at)
		fail_msg("no \"%s\" in:\n%s", needle, text);
	for (a = at; a > text && a[-1] != '\n'; a--)
		;
	b = strchr(at, '\n');
	return strndup(a, b ? (size_t)(b - a) : strlen(a));
}

/* Without primaries: every metric with news, by name, the regression among them. */
static void test_named_metrics(void **state)
{
	json_t *s = fixture_session_ab(), *r;
	struct report_view v;
	struct headline h;
	struct strbuf t = STRBUF_INIT;
	(void)state;

	headline_of(s, &r, &v, &h);
	assert_false(h.primaries);
	assert_int_equal(h.regressions, 1);
	assert_int_equal(h.improvements, 2);
	assert_int_equal(h.undecided, 3);
	assert_int_equal(h.quiet, 3);
	headline_render_text(&h, &t);
	char *line = line_with(t.buf, "  kbuild: elapsed_s ");
	/* Workload, metric, change, interval, verdict: on one line. */
	assert_non_null(strstr(line, "+3.5%"));
	assert_non_null(strstr(line, "[+1.8%, +4.9%]"));
	assert_non_null(strstr(line, "regression"));
	free(line);
	sb_reset(&t);
	headline_summary(&h, &t);
	assert_string_equal(t.buf, "1 regression (kbuild: elapsed_s +3.5%), 2 improvements, "
			    "3 no change, 3 undecided");
	sb_release(&t);
	done(r, &v, &h);
	json_decref(s);
}

/* The text report's first lines are the answer, not the metadata. */
static void test_text_opens_with_answer(void **state)
{
	json_t *s = fixture_session_ab(), *r;
	struct strbuf t = STRBUF_INIT;
	(void)state;

	r = fixture_analyze(s);
	fixture_render_text(r, &t);
	/* issue 50: the counts on the first line, the title after the answer */
	assert_int_equal(strncmp(t.buf, "Answer:  1 regression (kbuild: elapsed_s +3.5%), 2 "
			 "improvements, 3 no change,", 71), 0);
	assert_true(strstr(t.buf, "Answer:") < strstr(t.buf, "mglrulab report: base vs patched"));
	/* The regression is named within the first 10 lines. */
	const char *p = t.buf;
	for (int i = 0; i < 10 && p; i++, p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (!strncmp(p, "  kbuild: elapsed_s", 19))
			break;
	assert_non_null(p);
	assert_int_equal(strncmp(p, "  kbuild: elapsed_s", 19), 0);
	/* ... and the context comes after it. */
	assert_true(strstr(t.buf, "Answer:") < strstr(t.buf, "\nsession  "));
	sb_release(&t);
	json_decref(r);
	json_decref(s);
}

/* Declared primaries: only they are lines, a regression line among them. */
static void test_primaries(void **state)
{
	json_t *s = fixture_session_ab(), *r, *w;
	struct report_view v;
	struct headline h;
	size_t i;
	(void)state;

	json_object_set_new(s, "schema", json_string(REPORT_SCHEMA));
	json_array_foreach(json_object_get(s, "workloads"), i, w)
		if (!strcmp(json_string_value(json_object_get(w, "name")), "kbuild"))
			json_object_set_new(w, "primary", json_pack("[s]", "elapsed_s"));
	headline_of(s, &r, &v, &h);
	assert_true(h.primaries);
	assert_int_equal(h.nlines, 1);
	assert_string_equal(h.lines[0].workload, "kbuild");
	assert_string_equal(h.lines[0].metric, "elapsed_s");
	assert_int_equal(h.lines[0].verdict, VERDICT_REGRESSION);
	assert_string_equal(h.lines[0].verdict_label, "regression");
	/* A report does not know which patch: no culprit made up. */
	assert_null(h.lines[0].culprit);
	assert_false(h.culprit_known);
	/* Three patches: which one is a bisection's question, and it says so. */
	int bisect = 0;
	for (i = 0; i < h.ntodo; i++)
		bisect |= strstr(h.todo[i].text, "mglrulab bisect base patched") != NULL;
	assert_true(bisect);
	done(r, &v, &h);
	json_decref(s);
}

/* Declare @metric the primary of workload @wname of @s. */
static void set_primary(json_t *s, const char *wname, const char *metric)
{
	json_t *w;
	size_t i;

	json_array_foreach(json_object_get(s, "workloads"), i, w)
		if (!strcmp(json_string_value(json_object_get(w, "name")), wname))
			json_object_set_new(w, "primary", json_pack("[s]", metric));
}

/*
 * Issue 50: the headline counts regressions (even at 0), improvements,
 * no change with its band, undecided: "primary metrics: 2 undecided"
 * said nothing of the rest.
 */
static void test_summary_counts(void **state)
{
	json_t *s = fixture_session_ab(), *r;
	struct report_view v;
	struct headline h;
	struct strbuf t = STRBUF_INIT;
	(void)state;

	json_object_set_new(s, "schema", json_string(REPORT_SCHEMA));
	set_primary(s, "yp_private", "cs_per_sec_per_cpu_2cpu");
	set_primary(s, "wis_ctx1", "ops_per_sec");
	headline_of(s, &r, &v, &h);
	assert_int_equal(h.no_change, 1);
	headline_summary(&h, &t);
	assert_string_equal(t.buf, "0 regressions, 1 no change (+-1%), 1 undecided");
	sb_reset(&t);
	headline_render_text(&h, &t);
	static const char first[] = "Answer:  0 regressions, 1 no change (+-1%), 1 undecided "
				    "(primary metrics)\n";
	assert_int_equal(strncmp(t.buf, first, strlen(first)), 0);
	sb_release(&t);
	done(r, &v, &h);
	json_decref(s);
}

/*
 * The demo's series (seed 000): a cache-line fix, claimed +2.3 % on
 * hardware. Under icount the guest cannot see cache-line transfers, so
 * its "no change" is "cannot test here" (issue 50: a public "no change"
 * can sink a valid patch); on KVM the interval is read against the claim.
 */
static void test_claim_cannot_test_here(void **state)
{
	json_t *s = fixture_session_ab(), *r, *run;
	struct report_view v;
	struct headline h;
	struct strbuf t = STRBUF_INIT;
	size_t i, nb = 0;
	json_t *base[32];
	(void)state;

	json_object_set_new(s, "schema", json_string(REPORT_SCHEMA));
	set_primary(s, "yp_shared", "cs_per_sec_per_cpu_2cpu");
	set_primary(s, "yp_private", "cs_per_sec_per_cpu_2cpu");
	/* what icount measures of this patch: the same switches per second */
	json_array_foreach(json_object_get(s, "runs"), i, run)
		if (!strcmp(json_string_value(json_object_get(run, "workload")), "yp_shared") &&
		    !strcmp(json_string_value(json_object_get(run, "kernel")), "base") && nb < 32)
			base[nb++] = json_object_get(run, "metrics");
	size_t k = 0;
	json_array_foreach(json_object_get(s, "runs"), i, run)
		if (!strcmp(json_string_value(json_object_get(run, "workload")), "yp_shared") &&
		    !strcmp(json_string_value(json_object_get(run, "kernel")), "patched") && nb)
			json_object_set(run, "metrics", base[k++ % nb]);
	json_object_set_new(json_object_get(s, "guest"), "icount_shift", json_integer(2));
	json_object_set_new(s, "claim", json_pack("{s:s, s:s, s:s, s:f, s:s, s:s}", "workload",
		"yp_shared", "metric", "cs_per_sec_per_cpu_%dcpu", "direction", "higher",
		"size_pct", 2.3, "mechanism", "cache-lines", "source", "seed 000"));
	headline_of(s, &r, &v, &h);
	assert_int_equal(h.cannot_test, 1);
	assert_int_equal(h.no_change, 1);	/* yp_private: the claim is not on it */
	assert_string_equal(h.lines[0].workload, "yp_shared");
	assert_string_equal(h.lines[0].verdict_label, "cannot test here");
	headline_summary(&h, &t);
	assert_string_equal(t.buf, "0 regressions, 1 no change (+-1%), 1 cannot test here");
	sb_reset(&t);
	/* the sentences, not their wrapped lines */
	assert_int_equal(h.nvalidity, 2);
	assert_non_null(strstr(h.validity[0].text, "TCG with icount and sees instructions only"));
	assert_non_null(strstr(h.validity[1].text, "TCG with icount cannot see cache-line traffic"));
	sb_release(&t);
	done(r, &v, &h);

	/* The same runs on KVM: testable, and the interval rules the claim out. */
	json_object_set_new(json_object_get(s, "host"), "accel", json_string("kvm"));
	json_object_del(json_object_get(s, "guest"), "icount_shift");
	headline_of(s, &r, &v, &h);
	assert_int_equal(h.cannot_test, 0);
	assert_string_equal(h.lines[0].verdict_label, "no change");
	assert_string_equal(h.lines[0].vs_claim, "rules out the claimed +2.3%");
	done(r, &v, &h);
	json_decref(s);
}

/* A comparison of two sessions: no bisection of kernels named "A:..." and "B:...". */
static void test_compare_no_bisect(void **state)
{
	json_t *a = fixture_session_ab(), *b = fixture_session_ab(), *c, *r;
	struct strbuf err = STRBUF_INIT;
	struct report_view v;
	struct headline h;
	(void)state;

	c = report_compare_session(a, b, "base", NULL, &err);
	assert_non_null(c);
	headline_of(c, &r, &v, &h);
	assert_int_equal(h.regressions, 1);
	for (size_t i = 0; i < h.ntodo; i++)
		assert_null(strstr(h.todo[i].text, "bisect"));
	done(r, &v, &h);
	json_decref(c);
	json_decref(a);
	json_decref(b);
	sb_release(&err);
}

/* An invalid primary (its runs failed) is said as invalid, with its reason. */
static void test_invalid_said(void **state)
{
	json_t *s = fixture_session_ab(), *r, *run, *w;
	struct report_view v;
	struct headline h;
	struct strbuf t = STRBUF_INIT;
	size_t i;
	int reason = 0;
	(void)state;

	json_object_set_new(s, "schema", json_string(REPORT_SCHEMA));
	json_array_foreach(json_object_get(s, "workloads"), i, w)
		if (!strcmp(json_string_value(json_object_get(w, "name")), "kbuild"))
			json_object_set_new(w, "primary", json_pack("[s]", "elapsed_s"));
	/* The patched kernel's kbuild runs all failed (a kernel that crashes the guest). */
	json_array_foreach(json_object_get(s, "runs"), i, run)
		if (!strcmp(json_string_value(json_object_get(run, "workload")), "kbuild") &&
		    !strcmp(json_string_value(json_object_get(run, "kernel")), "patched")) {
			json_object_set_new(run, "status", json_string("failed"));
			json_object_set_new(run, "failure", json_string("guest panicked"));
		}
	headline_of(s, &r, &v, &h);
	assert_int_equal(h.invalid, 1);
	headline_summary(&h, &t);
	assert_string_equal(t.buf, "0 regressions, 1 invalid");
	for (i = 0; i < h.ntodo; i++)
		reason |= !strncmp(h.todo[i].text, "kbuild: elapsed_s: invalid: ", 28);
	assert_true(reason);
	sb_release(&t);
	done(r, &v, &h);
	json_decref(s);
}

/* What is undecided, and what it would take. */
static void test_undecided(void **state)
{
	json_t *s = fixture_session_ab(), *r;
	struct report_view v;
	struct headline h;
	int found = 0;
	(void)state;

	headline_of(s, &r, &v, &h);
	for (size_t i = 0; i < h.ntodo; i++)
		found |= !strcmp(h.todo[i].text, "wis_ctx1: ops_per_sec: inconclusive with 10 runs "
				 "per kernel; about 200 runs per kernel might decide (a new "
				 "session with --runs 200)");
	assert_true(found);
	done(r, &v, &h);
	json_decref(s);
}

/* A sequential session the budget stopped: the existing resume line, once. */
static void test_budget_resume(void **state)
{
	json_t *s = fixture_session_ab(), *r;
	struct report_view v;
	struct headline h;
	struct strbuf t = STRBUF_INIT;
	(void)state;

	json_object_set_new(json_object_get(s, "design"), "sequential",
			    json_pack("{s:f, s:i, s:i, s:i, s:f, s:f}", "alpha", 0.05, "min_runs", 6,
				      "max_runs", 20, "step", 4, "rho", 2.0, "budget_s", 600.0));
	json_object_set_new(s, "sequential", json_pack("{s:{s:{s:b, s:s, s:i, s:i}}}", "workloads",
		"wis_ctx1", "stopped", 1, "why", "budget", "look", 2, "runs_per_kernel", 10));
	headline_of(s, &r, &v, &h);
	int resume = 0;
	for (size_t i = 0; i < h.ntodo; i++)
		resume += strstr(h.todo[i].text, "to go on where it stopped: mglrulab run --resume "
				 "2026-11-29T184628Z-ab --budget 1200s") != NULL;
	assert_int_equal(resume, 1);
	headline_render_text(&h, &t);
	assert_non_null(strstr(t.buf, "wis_ctx1: ops_per_sec: inconclusive with 10 runs per "
			       "kernel; the budget\n    stopped it"));
	sb_release(&t);
	done(r, &v, &h);
	json_decref(s);
}

/* Warnings name their metrics and say where the run-order plots are. */
static void test_warning_names(void **state)
{
	json_t *s = fixture_session_ab(), *r;
	struct report_view v;
	struct headline h;
	int outliers = 0, drift = 0;
	(void)state;

	headline_of(s, &r, &v, &h);
	for (size_t i = 0; i < h.nwarnings; i++) {
		const char *w = h.warnings[i].text;

		if (!strcmp(h.warnings[i].kind, "outliers")) {
			outliers = 1;
			assert_non_null(strstr(w, "yp_shared:cs_per_sec_per_cpu_1cpu"));
			assert_non_null(strstr(w, "kbuild:pgpgin"));
			assert_non_null(strstr(w, "aging:avg_ms_per_gen"));
		}
		if (!strcmp(h.warnings[i].kind, "drift")) {
			drift = 1;
			assert_non_null(strstr(w, "wis_ctx1:lat"));
			assert_non_null(strstr(w, "run-order plots in the HTML report"));
		}
	}
	assert_true(outliers && drift);
	done(r, &v, &h);
	json_decref(s);
}

/* The session as it records its series: the fixture mbox's Message-Ids. */
static json_t *threaded_report(int with_cover)
{
	json_t *s = fixture_session_ab(), *r;
	struct patch_list pl = { 0 };
	struct strbuf err = STRBUF_INIT;

	if (mbox_split(SERIES, &pl, &err))
		fail_msg("%s", err.buf);
	if (!with_cover) {
		/* A series posted without a cover letter. */
		assert_true(pl.v[0].is_cover);
		free(pl.v[0].file);
		free(pl.v[0].subject);
		free(pl.v[0].message_id);
		free(pl.v[0].text);
		memmove(&pl.v[0], &pl.v[1], (pl.n - 1) * sizeof(pl.v[0]));
		pl.n--;
	}
	mbox_thread_json(&pl, patched_kernel(s), json_object_get(patched_kernel(s), "series"));
	patch_list_release(&pl);
	sb_release(&err);
	r = fixture_analyze(s);
	json_decref(s);
	return r;
}

static char *mail_of(const json_t *r, const struct report_mail_opts *o, int want)
{
	struct strbuf out = STRBUF_INIT, why = STRBUF_INIT;

	assert_int_equal(report_render_mail(r, o, &out, &why), want);
	assert_true(want ? why.len > 0 : why.len == 0);
	sb_release(&why);
	return sb_detach(&out);
}

/* Every line at most 80 columns, only '\n' of the control characters. */
static void assert_mail_shape(const char *mail)
{
	const char *p = mail;

	while (*p) {
		const char *nl = strchr(p, '\n');
		char *line = strndup(p, nl ? (size_t)(nl - p) : strlen(p));

		if (text_safe_width(line) > 80)
			fail_msg("line over 80 columns: %s", line);
		for (const char *c = line; *c; c++)
			if ((unsigned char)*c < 0x20 || *c == 0x7f)
				fail_msg("control character 0x%02x in: %s", *c, line);
		free(line);
		p = nl ? nl + 1 : p + strlen(p);
	}
}

/*
 * Issue 50: a list-ready mail. To from the series' author when lab.conf
 * names nobody (it was "To:" nowhere), each row's medians with their CV,
 * change, interval, verdict and runs, and a reproduction recipe with no
 * path of the sender's machine (it printed "-c /home/.../lab.conf").
 */
static void test_mail_list_ready(void **state)
{
	struct report_mail_opts o = { .from = "Lab <lab@example.org>" };
	json_t *s = fixture_session_ab(), *r, *k = patched_kernel(s);
	char *mail;
	(void)state;

	json_object_set_new(json_array_get(json_object_get(k, "series"), 0), "author",
			    json_string("Ridong Chen <ridong@example.org>"));
	json_object_set_new(json_object_get(s, "session"), "command",
			    json_string("mglrulab run --ab -c /home/alice/lab/lab.conf --runs 10"));
	r = fixture_analyze(s);
	mail = mail_of(r, &o, 1);
	assert_non_null(strstr(mail, "\nTo: Ridong Chen <ridong@example.org>\n"));
	assert_null(strstr(mail, "/home/alice"));
	assert_non_null(strstr(mail, "\n  mglrulab run --ab -c lab.conf --runs 10\n"));
	/* the kernels by source, ref, config digest and patches */
	assert_non_null(strstr(mail, "\n  patched: linux-source-6.12.tar.xz at v6.12, config "
			       "sha256:5b0e7c1d\n    + 3 patches, 3f1c2a9e0b7d..c0ffee123456\n"));
	/* LKP's row: base +-CV, patched +-CV, change, interval, verdict, runs */
	char *row = line_with(mail, "96.153 +-1.3%");
	assert_non_null(strstr(row, "99.501 +-1.0%   +3.5%   [+1.8%, +4.9%] regression"));
	assert_non_null(strstr(row, " 10/10"));
	free(row);
	assert_mail_shape(mail);
	free(mail);
	json_decref(r);

	/*
	 * A watched series' command is longer than a line: wrapped between
	 * words, never cut with "~" (a recipe is copied whole), its paths
	 * reduced to file names.
	 */
	json_object_set_new(json_object_get(s, "session"), "command",
			    json_string("mglrulab run --ab baseline watch-6 -c /var/lib/w/watch.conf, "
					"with [kernel watch-6] (from = baseline, series = "
					"/var/lib/w/series/6/series.mbox) added to it"));
	r = fixture_analyze(s);
	mail = mail_of(r, &o, 1);
	assert_null(strstr(mail, "/var/lib/w"));
	assert_non_null(strstr(mail, "\n  mglrulab run --ab baseline watch-6 -c watch.conf, with [kernel watch-6]\n"
			       "    (from = baseline, series = series.mbox) added to it\n"));
	assert_mail_shape(mail);
	free(mail);
	json_decref(r);
	json_decref(s);
}

static void test_mail_threaded_under_cover(void **state)
{
	struct report_mail_opts o = { .from = "Lab <lab@example.org>", .to = "linux-mm@kvack.org",
				      .base_url = "https://example.org/r" };
	json_t *r = threaded_report(1);
	char *mail = mail_of(r, &o, 0);
	(void)state;

	assert_int_equal(strncmp(mail, "From: Lab <lab@example.org>\nTo: linux-mm@kvack.org\n", 51), 0);
	assert_non_null(strstr(mail, "\nSubject: Re: [PATCH 0/3] sched: a three-patch series for the "
			       "lab's bisection\n test [mglrulab: 1 regression"));
	assert_non_null(strstr(mail, "\nIn-Reply-To: " COVER_ID "\n"));
	assert_non_null(strstr(mail, "\nReferences: " COVER_ID "\n"));
	assert_non_null(strstr(mail, "\nDate: Sun, 29 Nov 2026 19:31:05 +0000\n"));
	/* Headers end at the first blank line; the answer opens the body. */
	const char *body = strstr(mail, "\n\n");
	assert_non_null(body);
	assert_non_null(strstr(body, "\nAnswer:  1 regression (kbuild: elapsed_s +3.5%), 2 "
				     "improvements, 3 no change,"));
	assert_non_null(strstr(body, "\n  kbuild: elapsed_s"));
	assert_non_null(strstr(body, "\nsession  2026-11-29T184628Z-ab"));
	assert_non_null(strstr(body, "\n  mglrulab run --ab -c lab.conf --runs 10\n"));
	assert_non_null(strstr(body, "\n  https://example.org/r/2026-11-29T184628Z-ab/report.html\n"));
	assert_mail_shape(mail);
	free(mail);
	json_decref(r);
}

/*
 * An appendix (the watch's bisection) after the answer, before Setup: its
 * long lines wrapped at their own indent, its control characters gone.
 */
static void test_mail_appendix(void **state)
{
	struct report_mail_opts o = {
		.from = "lab@example.org",
		.appendix = "Bisection of the series:\n\nculprit: patch 2/3: [PATCH 2/3] sched: add a "
			    "fixed 10us delay to sched_yield() (mglrulab test series), and more words "
			    "to wrap\n    yield cs: -5.0 % \x1b[31m[-5.7, -2.9] regression\n",
	};
	json_t *r = threaded_report(1);
	char *mail = mail_of(r, &o, 0);
	const char *answer = strstr(mail, "\nAnswer:"), *bis = strstr(mail, "\nBisection of");
	const char *setup = strstr(mail, "\nSetup\n");
	(void)state;

	assert_non_null(answer);
	assert_non_null(bis);
	assert_non_null(setup);
	assert_true(answer < bis && bis < setup);
	assert_non_null(strstr(bis, "\nculprit: patch 2/3: [PATCH 2/3] sched: add a fixed 10us"));
	assert_non_null(strstr(bis, "\n    yield cs: -5.0 % ?[31m[-5.7, -2.9] regression\n"));
	assert_mail_shape(mail);
	free(mail);
	json_decref(r);
}

/* No cover letter: the first patch's Message-Id; none at all: said, not fatal. */
static void test_mail_first_patch_or_none(void **state)
{
	struct report_mail_opts o = { .from = "lab@example.org" };
	json_t *r = threaded_report(0), *s;
	char *mail = mail_of(r, &o, 0);
	(void)state;

	assert_non_null(strstr(mail, "\nIn-Reply-To: " PATCH1_ID "\n"));
	/* The first patch's subject as the report records it (the fixture's own). */
	assert_non_null(strstr(mail, "\nSubject: Re: [RFC PATCH 1/3] mm/mglru"));
	/* To the first patch's author, whom the session recorded */
	assert_non_null(strstr(mail, "\nTo: mglrulab test <test@mglrulab.invalid>\n"));
	free(mail);
	json_decref(r);

	s = fixture_session_ab();
	r = fixture_analyze(s);
	mail = mail_of(r, &o, 1);
	assert_null(strstr(mail, "In-Reply-To"));
	assert_non_null(strstr(mail, "\nSubject: Re: [RFC PATCH 1/3] mm/mglru"));
	assert_mail_shape(mail);
	free(mail);
	json_decref(r);
	json_decref(s);
}

/* [run] note: after the opening, before any figure, made safe like every string. */
static void test_mail_note(void **state)
{
	struct report_mail_opts o = { .from = "lab@example.org" };
	json_t *s = fixture_session_ab(), *r;
	char *mail;
	(void)state;

	json_object_set_new(s, "note", json_string("Cache-line bouncing costs no instructions:\n"
						    "Subject: injected\x1b[31m"));
	r = fixture_analyze(s);
	mail = mail_of(r, &o, 1);
	assert_mail_shape(mail);
	const char *note = strstr(mail, "Cache-line bouncing costs no instructions:");
	assert_non_null(note);
	assert_true(note > strstr(mail, "Hi,\n"));
	assert_null(strstr(mail, "\nSubject: injected"));
	free(mail);
	json_decref(r);
	json_decref(s);
}

/*
 * A hostile report: a cover subject that tries to add a header, escape
 * sequences in host and guest strings, a Message-Id with a newline.
 */
static void test_mail_hostile(void **state)
{
	struct report_mail_opts o = { .from = "lab@example.org" };
	json_t *s = fixture_session_ab(), *r, *k;
	const char *evil = "[PATCH 0/1] x\r\nBcc: victim@example.org\x1b[2J\x07 \xe2\x80\xae end";
	(void)state;

	k = patched_kernel(s);
	json_object_set_new(k, "cover", json_pack("{s:s, s:s}", "subject", evil,
						  "message_id", "<a@b>\nBcc: victim@example.org"));
	json_object_set_new(json_object_get(s, "host"), "cpu", json_string("CPU\x1b]0;title\x07\r"));
	json_object_set_new(json_object_get(s, "session"), "command",
			    json_string("mglrulab run\x1b[31m --ab\nrm -rf /"));
	r = fixture_analyze(s);
	char *mail = mail_of(r, &o, 1);

	assert_mail_shape(mail);
	assert_null(strstr(mail, "\nBcc:"));
	assert_null(strstr(mail, "\x1b"));
	assert_null(strstr(mail, "In-Reply-To"));
	/* The subject with its control characters as '?', the bidi override too. */
	assert_non_null(strstr(mail, "\nSubject: Re: [PATCH 0/1] x??Bcc: victim@example.org"));
	free(mail);
	json_decref(r);

	/* A UTF-8 subject is encoded (RFC 2047), not sent as raw 8-bit in a header. */
	json_object_set_new(k, "cover", json_pack("{s:s, s:s}", "subject",
						  "[PATCH 0/2] mm: Zoë's fix", "message_id", "<c@d>"));
	r = fixture_analyze(s);
	mail = mail_of(r, &o, 0);
	assert_non_null(strstr(mail, "\nSubject: =?UTF-8?B?"));
	const char *subj = strstr(mail, "\nSubject: ");
	for (const char *c = subj + 1; *c && !(c[0] == '\n' && c[1] != ' '); c++)
		assert_true((unsigned char)*c < 0x80);
	free(mail);
	json_decref(r);
	json_decref(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_named_metrics),
		cmocka_unit_test(test_text_opens_with_answer),
		cmocka_unit_test(test_primaries),
		cmocka_unit_test(test_summary_counts),
		cmocka_unit_test(test_claim_cannot_test_here),
		cmocka_unit_test(test_undecided),
		cmocka_unit_test(test_invalid_said),
		cmocka_unit_test(test_compare_no_bisect),
		cmocka_unit_test(test_budget_resume),
		cmocka_unit_test(test_warning_names),
		cmocka_unit_test(test_mail_threaded_under_cover),
		cmocka_unit_test(test_mail_list_ready),
		cmocka_unit_test(test_mail_first_patch_or_none),
		cmocka_unit_test(test_mail_appendix),
		cmocka_unit_test(test_mail_hostile),
		cmocka_unit_test(test_mail_note),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
