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
#include "run_record.h"
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

json_t *session_write_reports(const char *dir, const json_t *session_json, int *unwritten)
{
	struct strbuf err = STRBUF_INIT, sb = STRBUF_INIT;
	json_t *report = report_analyze(session_json, &err);

	if (!report) {
		lab_error("%s: cannot analyse the session: %s", dir, sb_str(&err));
		sb_release(&err);
		return NULL;
	}
	*unwritten = 0;
	report_dump(report, &sb);
	*unwritten += !!write_text(dir, "report.json", &sb);
	sb_reset(&sb);
	report_render_html(report, &sb);
	*unwritten += !!write_text(dir, "report.html", &sb);
	sb_reset(&sb);
	report_render_text(report, &sb);
	*unwritten += !!write_text(dir, "report.txt", &sb);
	sb_release(&sb);
	sb_release(&err);
	return report;
}

int session_verdict_status(const json_t *report, enum fail_on fail_on, struct strbuf *why)
{
	return report_gate_status(report, fail_on, why);
}

int session_write_junit(const char *path, const json_t *report, enum fail_on fail_on)
{
	struct strbuf sb = STRBUF_INIT;
	int r;

	report_gate_junit(report, fail_on, &sb);
	r = write_user_output(path, sb.buf, sb.len);
	if (r)
		lab_error("cannot write %s: %s", user_output_name(path), user_file_strerror(errno));
	sb_release(&sb);
	return r ? LAB_ELAB : LAB_OK;
}

#define SESSION_SUMMARY_SCHEMA "mglrulab-run-summary/1"

void session_summary_json(const char *dir, const json_t *report, enum fail_on f, int status,
			  struct strbuf *out)
{
	char *paths[3];
	static const char *const names[3] = { "report.json", "report.html", "report.txt" };
	json_t *session = json_object_get(report, "session"), *root;

	for (int i = 0; i < 3; i++)
		paths[i] = path_join(dir, names[i]);
	root = xjson_pack("{s:s, s:s, s:b, s:{s:s, s:s, s:s}, s:s, s:i, s:s, s:o, s:o}",
		"schema", SESSION_SUMMARY_SCHEMA, "session", dir,
		"complete", json_is_true(json_object_get(session, "complete")),
		"reports", "json", paths[0], "html", paths[1], "text", paths[2],
		"fail_on", fail_on_name(f), "exit_status", status,
		"exit_meaning", report_gate_status_meaning(status),
		"primaries", report ? report_gate_results_json(report, f, 1) : json_array(),
		"failing", report ? report_gate_results_json(report, f, 0) : json_array());
	report_dump(root, out);
	json_decref(root);
	for (int i = 0; i < 3; i++)
		free(paths[i]);
}

/* --json FILE: the summary, or an error naming the file (exit 2 unless 3 already). */
static int write_summary(const struct session *s, const json_t *report, int status)
{
	struct strbuf sb = STRBUF_INIT;
	int r = 0;

	session_summary_json(s->dir, report, s->o->fail_on, status, &sb);
	if (write_user_output(s->o->json, sb.buf, sb.len))
		r = lab_error("cannot write %s: %s", user_output_name(s->o->json),
			      user_file_strerror(errno));
	sb_release(&sb);
	return r;
}

/*
 * --junit, --json and --mail, once the exit status is known: each said,
 * naming the file, when it cannot be written (CI would read no verdicts
 * at all); 1 then.
 */
static int write_ci_outputs(const struct session *s, const json_t *report, int status)
{
	int failed = s->o->junit && session_write_junit(s->o->junit, report, s->o->fail_on);

	if (s->o->json && write_summary(s, report, status))
		failed = 1;
	if (s->o->mail && session_write_mail(s->o->mail, report, &s->cfg.report, s->o->mail_appendix))
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
	fflush(stdout);
	s->saved_stdout = dup(1);
	dup2(2, 1);
}

void session_stdout_restore(struct session *s)
{
	fflush(stdout);
	if (s->saved_stdout >= 0) {
		dup2(s->saved_stdout, 1);
		close(s->saved_stdout);
		s->saved_stdout = -1;
	}
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

/* Why an attribution member holds no table for some workload, or NULL. */
static const char *attribution_missing(const json_t *a)
{
	const char *why = json_string_value(json_object_get(a, "unavailable"));
	const json_t *w;
	size_t i;

	if (why)
		return why;
	json_array_foreach(json_object_get(a, "workloads"), i, w) {
		why = json_string_value(json_object_get(w, "error"));
		if (!why)
			why = json_string_value(json_object_get(w, "skipped"));
		if (!why && !json_array_size(json_object_get(w, "windows")) &&
		    !json_array_size(json_object_get(w, "profiles")))
			why = "a workload has no measured phase";
		if (why)
			return why;
	}
	return NULL;
}

/*
 * Attribution runs read the verdicts, so they follow the first report; the
 * reports are then written again with an "attribution" member, every other
 * member as it was (session_attribute.c). Returns the report to go on
 * with; *@missing says why some workload has no table (NULL: all have one).
 */
static json_t *write_attributed_reports(struct session *s, json_t *session_json, json_t *report,
					int *unwritten, char **missing)
{
	json_t *attribution = session_attribute(s, report);
	const char *why = attribution ? attribution_missing(attribution) : NULL;

	if (!attribution)
		return report;
	if (why)
		*missing = xstrdup(why);
	json_object_set_new(session_json, "attribution", attribution);
	json_decref(report);
	*unwritten = 0;
	return session_write_reports(s->dir, session_json, unwritten);
}

/* The same for the coherence runs (session_coherence.c): a "coherence" member. */
static json_t *write_coherence_reports(struct session *s, json_t *session_json, json_t *report,
				       int *unwritten)
{
	json_t *coherence = session_coherence(s, report);

	if (!coherence)
		return report;
	json_object_set_new(session_json, "coherence", coherence);
	json_decref(report);
	*unwritten = 0;
	return session_write_reports(s->dir, session_json, unwritten);
}

/* Attribution, then coherence: each follows the verdicts, each rewrites the reports. */
static json_t *write_late_reports(struct session *s, json_t *session_json, json_t *report,
				  int *unwritten, char **missing)
{
	report = write_attributed_reports(s, session_json, report, unwritten, missing);
	return report ? write_coherence_reports(s, session_json, report, unwritten) : NULL;
}

int session_finish(struct session *s, enum plan_end end)
{
	struct strbuf err = STRBUF_INIT, why = STRBUF_INIT;
	json_t *session_json = json_deep_copy(s->ctx);
	json_t *runs = session_load_runs(s->dir, &err);
	int unrecorded = atomic_load(&s->unrecorded);
	int unreadable = err.len > 0;
	int unwritten = 0;
	int stopped = end == PLAN_STOPPED;
	char *no_table = NULL;		/* why some workload has no attribution table */
	char finished[32];
	int r = LAB_OK;

	/* A record the report leaves out is said now, whatever happens next. */
	if (unreadable) {
		sb_trim_trailing_newlines(&err);
		lab_error("%s", sb_str(&err));
	}
	iso8601_now(finished);
	json_object_set_new(json_object_get(session_json, "session"), "finished", json_string(finished));
	json_object_set_new(json_object_get(session_json, "session"), "complete",
			    json_boolean(!stopped && !unrecorded && !unreadable));
	json_object_set_new(session_json, "runs", runs);
	/* Why each workload stopped where it did, and every look taken. */
	if (s->seq)
		json_object_set_new(session_json, "sequential", session_seq_state_json(s->seq));
	json_t *report = session_write_reports(s->dir, session_json, &unwritten);
	if (report && !stopped && !unrecorded && !unreadable)
		report = write_late_reports(s, session_json, report, &unwritten, &no_table);
	json_decref(session_json);
	session_stdout_restore(s);
	if (!report) {
		/* No report: the --json summary still tells a script where and why. */
		if (s->o->json)
			LAB_IGNORE(write_summary(s, NULL, LAB_ELAB));
		sb_release(&err);
		free(no_table);
		return LAB_ELAB;
	}
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
	json_t *summary = json_object_get(report, "summary");
	if (unrecorded) {
		r = lab_error("%d run%s not recorded (see above): %s not count; make room, then "
			      "continue with:\n"
			      "  mglrulab run --resume %s -c %s", unrecorded,
			      unrecorded == 1 ? "" : "s", unrecorded == 1 ? "it does" : "they do",
			      s->id, s->cfg.path);
	} else if (stopped) {
		term_printf(stderr, "interrupted: %lld of %zu runs done; continue with:\n"
			    "  mglrulab run --resume %s -c %s\n",
			    (long long)json_integer_value(json_object_get(summary, "runs")),
			    json_array_size(s->doc.plan), s->id, s->cfg.path);
		r = LAB_ELAB;
	} else if (json_integer_value(json_object_get(summary, "runs_ok")) == 0) {
		r = lab_error("no run succeeded: the lab itself is failing (see %s/logs/)", s->dir);
	} else {
		r = session_verdict_status(report, s->o->fail_on, &why);
		if (r)
			term_printf(stderr, "failing (--fail-on %s):\n%s", fail_on_name(s->o->fail_on),
				    sb_str(&why));
	}
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
	free(no_table);
	if (write_ci_outputs(s, report, r) && r == LAB_OK)
		r = LAB_ELAB;
	json_decref(report);
	sb_release(&err);
	sb_release(&why);
	return r;
}
