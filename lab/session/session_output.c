// SPDX-License-Identifier: GPL-2.0
/* What a session leaves behind for people and for CI: reports, JUnit, exit status. */
#include "session_priv.h"
#include "session_plan.h"
#include "escape.h"
#include "fsutil.h"
#include "report.h"
#include "report_gate.h"
#include "report_headline.h"
#include "report_result.h"
#include "report_view.h"
#include "run_record.h"
#include "stamped_dir.h"
#include "util.h"
#include "xjson.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int write_text(const char *dir, const char *name, const struct strbuf *sb)
{
	char *path = xasprintf("%s/%s", dir, name);
	int r = write_file_atomic(path, sb_str(sb), sb->len);

	if (r)
		lab_error("cannot write %s: %s", path, strerror(errno));
	free(path);
	return r;
}

/*
 * The session analysed once (report_analyze_view()) into @v, and every
 * report rendered from that one view, as `mglrulab report` does: 0, or -1
 * (said) when the session does not analyse. @session_json must outlive @v.
 */
static int write_reports(const char *dir, const json_t *session_json, struct report_view *v,
			 int *unwritten)
{
	struct strbuf err = STRBUF_INIT, sb = STRBUF_INIT;

	if (report_analyze_view(session_json, v, &err)) {
		lab_error("%s: cannot analyse the session: %s", dir, sb_str(&err));
		report_view_release(v);
		sb_release(&err);
		return -1;
	}
	*unwritten = 0;
	report_view_dump(v, &sb);
	*unwritten += !!write_text(dir, "report.json", &sb);
	sb_reset(&sb);
	report_render_html_view(v, &sb);
	*unwritten += !!write_text(dir, "report.html", &sb);
	sb_reset(&sb);
	report_render_text_view(v, &sb);
	*unwritten += !!write_text(dir, "report.txt", &sb);
	sb_release(&sb);
	sb_release(&err);
	return 0;
}

int session_verdict_status(const struct report_view *v, enum fail_on fail_on, struct strbuf *why)
{
	return report_gate_status_view(v, fail_on, why);
}

int session_write_junit(const char *path, const struct report_view *v, enum fail_on fail_on)
{
	struct strbuf sb = STRBUF_INIT;
	int r;

	report_gate_junit_view(v, fail_on, &sb);
	r = write_user_output(path, sb.buf, sb.len);
	if (r)
		lab_error("cannot write %s: %s", user_output_name(path), user_file_strerror(errno));
	sb_release(&sb);
	return r ? LAB_ELAB : LAB_OK;
}

#define SESSION_SUMMARY_SCHEMA "mglrulab-run-summary/1"

void session_summary_json(const char *dir, const struct report_view *v, enum fail_on f,
			  int status, struct strbuf *out)
{
	char *paths[3];
	static const char *const names[3] = { "report.json", "report.html", "report.txt" };
	json_t *root;

	for (int i = 0; i < 3; i++)
		paths[i] = path_join(dir, names[i]);
	root = xjson_pack("{s:s, s:s, s:b, s:{s:s, s:s, s:s}, s:s, s:i, s:s, s:o, s:o}",
		"schema", SESSION_SUMMARY_SCHEMA, "session", dir,
		"complete", v && v->session.complete,
		"reports", "json", paths[0], "html", paths[1], "text", paths[2],
		"fail_on", fail_on_name(f), "exit_status", status,
		"exit_meaning", report_gate_status_meaning(status),
		"primaries", v ? report_gate_results_view(v, f, 1) : json_array(),
		"failing", v ? report_gate_results_view(v, f, 0) : json_array());
	report_dump(root, out);
	json_decref(root);
	for (int i = 0; i < 3; i++)
		free(paths[i]);
}

/* --json FILE: the summary, or an error naming the file (exit 2 unless 3 already). */
static int write_summary(const struct session *s, const struct report_view *v, int status)
{
	struct strbuf sb = STRBUF_INIT;
	int r = 0;

	session_summary_json(s->dir, v, s->o->fail_on, status, &sb);
	if (write_user_output(s->o->json, sb.buf, sb.len))
		r = lab_error("cannot write %s: %s", user_output_name(s->o->json),
			      user_file_strerror(errno));
	sb_release(&sb);
	return r;
}

/* --mail FILE: the mail reads the report as a tree, made from the view for it alone. */
static int write_mail(const struct session *s, const struct report_view *v)
{
	json_t *tree = report_view_tree(v);
	int r = session_write_mail(s->o->mail, tree, &s->cfg.report, s->o->mail_appendix);

	json_decref(tree);
	return r;
}

/*
 * --junit, --json and --mail, once the exit status is known: each said,
 * naming the file, when it cannot be written (CI would read no verdicts
 * at all); 1 then.
 */
static int write_ci_outputs(const struct session *s, const struct report_view *v, int status)
{
	int failed = s->o->junit && session_write_junit(s->o->junit, v, s->o->fail_on);

	if (s->o->json && write_summary(s, v, status))
		failed = 1;
	if (s->o->mail && write_mail(s, v))
		failed = 1;
	return failed;
}

/* A timing or metric the record does not have shows as 0, as it always did. */
static double or_zero(double v)
{
	return isnan(v) ? 0 : v;
}

/*
 * "boot 15.2s [guest clock 161.8s]": the host's clock first, which is what
 * the run cost; the guest's uptime only labelled as such (under icount it
 * is not the host's time at all).
 */
static void progress_boot(struct strbuf *out, const struct run_timings *t)
{
	if (t && isfinite(t->boot_wall_s))
		sb_addf(out, "boot %.1fs [guest clock %.1fs]", t->boot_wall_s, or_zero(t->boot_s));
	else
		sb_addf(out, "boot %.1fs [guest clock]", t ? or_zero(t->boot_s) : 0);
}

void session_progress_line(struct strbuf *out, size_t i, size_t total,
			   const struct plan_entry *planned, const struct run_record *rec)
{
	struct strbuf raw = STRBUF_INIT;
	const char *status = !rec ? "?" : rec->ok ? "ok" : "failed";

	sb_addf(&raw, "run %zu/%zu %s %s%s: %s", i, total, planned->kernel, planned->workload,
		planned->warmup ? " (warm-up)" : "", status);
	if ((rec && rec->ok) || lab_verbose) {
		const struct run_timings *t = rec ? &rec->timings : NULL;

		for (size_t n = 0; rec && n < rec->nr_metrics && n < 2; n++)
			sb_addf(&raw, " %s=%.6g", rec->metrics[n].name, or_zero(rec->metrics[n].value));
		sb_adds(&raw, " (");
		progress_boot(&raw, t);
		sb_addf(&raw, ", workload %.1fs [guest clock], host %.2fs)",
			t ? or_zero(t->workload_s) : 0,
			t ? or_zero(t->host_overhead_s) : 0);
	} else {
		const char *why = rec ? rec->failure : NULL;
		sb_addf(&raw, ": %.*s", why ? (int)strcspn(why, "\n") : 0, why ? why : "");
	}
	/* Metric names and the failure reason come from the guest. */
	sb_add_text_safe(out, sb_str(&raw));
	sb_release(&raw);
}

void session_stdout_to_stderr(struct session *s)
{
	s->saved_stdout = stdout_to_stderr();
}

void session_stdout_restore(struct session *s)
{
	stdout_restore(&s->saved_stdout);
}

int session_render_mail(const json_t *report, const struct report_cfg *rc, const char *appendix,
			struct strbuf *out)
{
	struct report_mail_opts o = {
		.from = rc->mail_from, .to = rc->mail_to, .cc = rc->mail_cc,
		.base_url = rc->base_url, .appendix = appendix,
	};
	struct strbuf why = STRBUF_INIT;
	char *from = o.from ? NULL : report_mail_default_from();
	int r;

	if (from)
		o.from = from;
	r = report_render_mail(report, &o, out, &why);
	/* Not threaded is said, not fatal: the mail is still worth sending. */
	if (r > 0)
		warning("mail: %s", sb_str(&why));
	else if (r < 0)
		lab_error("mail: %s", sb_str(&why));
	free(from);
	sb_release(&why);
	return r < 0 ? -1 : 0;
}

int session_write_mail(const char *path, const json_t *report, const struct report_cfg *rc,
		       const char *appendix)
{
	struct strbuf sb = STRBUF_INIT;
	int r = LAB_ELAB;

	/* A report the mail cannot read writes no empty mail. */
	if (session_render_mail(report, rc, appendix, &sb))
		goto out;
	r = LAB_OK;
	if (write_user_output(path, sb.buf, sb.len))
		r = lab_error("cannot write %s: %s", user_output_name(path), user_file_strerror(errno));
out:
	sb_release(&sb);
	return r;
}

/* Why the report's attribution holds no table for some workload, or NULL. */
static const char *attribution_missing(const struct view_attribution *a)
{
	if (a->unavailable)
		return a->unavailable;
	for (size_t i = 0; i < a->nworkloads; i++) {
		const struct view_attr_workload *w = &a->workloads[i];

		if (w->error)
			return w->error;
		if (w->skipped)
			return w->skipped;
		if (!w->nwindows && !w->nprofiles)
			return "a workload has no measured phase";
	}
	return NULL;
}

/*
 * Attribution runs read the verdicts, so they follow the first report; the
 * session is then analysed again with an "attribution" member, every other
 * member as it was (session_attribute.c), into @v, and the reports written
 * again. 0, or -1 when it no longer analyses (@v released); *@missing
 * says why some workload has no table (NULL: all have one).
 */
static int write_attributed_reports(struct session *s, json_t *session_json,
				    struct report_view *v, int *unwritten, char **missing)
{
	json_t *attribution = session_attribute(s, v);
	const char *why;

	if (!attribution)
		return 0;
	json_object_set_new(session_json, "attribution", attribution);
	report_view_release(v);
	if (write_reports(s->dir, session_json, v, unwritten))
		return -1;
	why = attribution_missing(&v->attribution);
	if (why)
		*missing = xstrdup(why);
	return 0;
}

/* The same for the coherence runs (session_coherence.c): a "coherence" member. */
static int write_coherence_reports(struct session *s, json_t *session_json,
				   struct report_view *v, int *unwritten)
{
	json_t *coherence = session_coherence(s, v);

	if (!coherence)
		return 0;
	json_object_set_new(session_json, "coherence", coherence);
	report_view_release(v);
	return write_reports(s->dir, session_json, v, unwritten);
}

/* Attribution, then coherence: each follows the verdicts, each rewrites the reports. */
static int write_late_reports(struct session *s, json_t *session_json, struct report_view *v,
			      int *unwritten, char **missing)
{
	if (write_attributed_reports(s, session_json, v, unwritten, missing))
		return -1;
	return write_coherence_reports(s, session_json, v, unwritten);
}

/*
 * The session as the end reads it: its document encoded, finished now,
 * complete or not, with the runs read back from runs/ (a record that does
 * not read is in @err) and the stopping rule's state. A new reference.
 */
static json_t *finished_session(const struct session *s, int complete, struct strbuf *err)
{
	/* shallow: the arrays are only read; the end's two members are this copy's */
	struct session_doc d = s->doc;
	json_t *runs = session_load_runs(s->dir, err), *session_json;
	char finished[32];

	iso8601_now(finished);
	d.session.finished = finished;
	d.session.complete = complete && !err->len;
	session_json = session_doc_encode(&d);
	json_object_set_new(session_json, "runs", runs);
	/* Why each workload stopped where it did, and every look taken. */
	if (s->seq)
		json_object_set_new(session_json, "sequential", session_seq_state_json(s->seq));
	return session_json;
}

/*
 * The exit status the verdicts and the session's end give: runs not
 * recorded, interrupted, no run succeeded, else the gate (--fail-on).
 */
static int finish_status(const struct session *s, const struct report_view *v, int unrecorded,
			 int stopped)
{
	struct strbuf why = STRBUF_INIT;
	int r = LAB_OK;

	if (unrecorded) {
		r = lab_error("%d run%s not recorded (see above): %s not count; make room, then "
			      "continue with:\n"
			      "  mglrulab run --resume %s -c %s", unrecorded,
			      unrecorded == 1 ? "" : "s", unrecorded == 1 ? "it does" : "they do",
			      s->id, s->cfg.path);
	} else if (stopped) {
		term_printf(stderr, "interrupted: %ld of %zu runs done; continue with:\n"
			    "  mglrulab run --resume %s -c %s\n", v->summary.runs,
			    json_array_size(s->doc.plan), s->id, s->cfg.path);
		r = LAB_ELAB;
	} else if (v->summary.runs_ok == 0) {
		r = lab_error("no run succeeded: the lab itself is failing (see %s/logs/)", s->dir);
	} else {
		r = session_verdict_status(v, s->o->fail_on, &why);
		if (r)
			term_printf(stderr, "failing (--fail-on %s):\n%s", fail_on_name(s->o->fail_on),
				    sb_str(&why));
	}
	sb_release(&why);
	return r;
}

/* report.txt on stdout (unless a bisection prints its own), and where the reports are. */
static void show_reports(const struct session *s, int unwritten)
{
	char *txt = xasprintf("%s/report.txt", s->dir);
	struct strbuf text = STRBUF_INIT;

	/* (with a report unwritten, report.txt may be an older one) */
	if (!s->o->no_stdout_report && !unwritten && !read_file(txt, &text, 0))
		fputs(sb_str(&text), stdout);
	fflush(stdout);
	sb_release(&text);
	free(txt);
	if (!unwritten)
		term_printf(stderr, "\nreports: %s/report.html, report.txt, report.json\n", s->dir);
}

int session_finish(struct session *s, enum plan_end end)
{
	struct strbuf err = STRBUF_INIT;
	int unrecorded = atomic_load(&s->unrecorded);
	int stopped = end == PLAN_STOPPED;
	json_t *session_json = finished_session(s, !stopped && !unrecorded, &err);
	int unreadable = err.len > 0;
	int unwritten = 0, analysed;
	char *no_table = NULL;		/* why some workload has no attribution table */
	struct report_view v = { 0 };
	int r;

	/* A record the report leaves out is said now, whatever happens next. */
	if (unreadable) {
		sb_trim_trailing_newlines(&err);
		lab_error("%s", sb_str(&err));
	}
	/* Analysed once: every output below is rendered from the one view. */
	analysed = !write_reports(s->dir, session_json, &v, &unwritten);
	if (analysed && !stopped && !unrecorded && !unreadable)
		analysed = !write_late_reports(s, session_json, &v, &unwritten, &no_table);
	session_stdout_restore(s);
	if (!analysed) {
		/* No report: the --json summary still tells a script where and why. */
		if (s->o->json)
			LAB_IGNORE(write_summary(s, NULL, LAB_ELAB));
		r = LAB_ELAB;
		goto out;
	}
	show_reports(s, unwritten);
	r = finish_status(s, &v, unrecorded, stopped);
	if (unreadable)
		lab_error("%s: some run records could not be read (above): the report leaves them "
			  "out and is not complete; move them away, and `mglrulab run --resume %s "
			  "-c %s` runs again any run left without a record", s->dir, s->id,
			  s->cfg.path);
	if (unwritten)
		lab_error("%s: %d of the reports could not be written (above); make room, then "
			  "`mglrulab run --resume %s -c %s` writes them again", s->dir, unwritten,
			  s->id, s->cfg.path);
	/*
	 * A failed JUnit file or report, or a record the report left out, is
	 * a lab failure; a regression found still says 3.
	 */
	if ((unreadable || unwritten) && r == LAB_OK)
		r = LAB_ELAB;
	if (session_attribution_required(s) && no_table && r == LAB_OK)
		r = lab_error("no table: %s", no_table);
	if (write_ci_outputs(s, &v, r) && r == LAB_OK)
		r = LAB_ELAB;
out:
	report_view_release(&v);
	json_decref(session_json);
	free(no_table);
	sb_release(&err);
	return r;
}
