// SPDX-License-Identifier: GPL-2.0
/* Measuring a queued series: watch_work.h. */
#include "watch_work.h"
#include "watch_series.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bisect.h"
#include "fsutil.h"
#include "interrupt.h"
#include "kbuild.h"
#include "report_headline.h"
#include "session.h"
#include "watch_msg.h"
#include "watch_verdict.h"

struct series_job {
	long id;
	char *root, *state, *title, *subject, *base_commit;
	int version, n;
	char *dir;			/* <watch>/series/<id> */
	char *kernel;			/* "watch-<id>" */
	const char *baseline;		/* [watch] baseline */
	/*
	 * The series' base-commit when the baseline is a git source that has
	 * it (and is not at it already): the series goes on the baseline at
	 * that commit, kernel base_at ("watch-<id>-base"); NULL: on the
	 * baseline. base_is_own: the base-commit is the baseline's commit.
	 */
	char *commit, *base_at;
	int base_is_own;
	/* the base-commit did not build here: on the baseline instead, and said */
	int base_fell_back;
	const char *a;			/* the kernel it goes on: base_at or baseline */
};

static void job_release(struct series_job *j)
{
	free(j->root);
	free(j->state);
	free(j->title);
	free(j->subject);
	free(j->base_commit);
	free(j->dir);
	free(j->kernel);
	free(j->commit);
	free(j->base_at);
}

static char *dup_col(sqlite3_stmt *st, int col)
{
	return sqlite3_column_type(st, col) == SQLITE_NULL ? NULL : xstrdup(watch_col_text(st, col));
}

/*
 * The series to work on next (watch_series_next()), into @j: 0 (@j's id
 * 0 when there is none), or -1 with why in @err.
 */
static LAB_MUST_CHECK int next_series(struct watch_db *w, struct series_job *j,
				      struct strbuf *err)
{
	long id = watch_series_next(w, err);
	sqlite3_stmt *st;
	int r;

	j->id = 0;
	if (id <= 0)
		return id < 0 ? -1 : 0;
	st = watch_db_prepare(w, "SELECT s.id, s.root, s.state, s.title,"
			      " (SELECT subject FROM messages WHERE message_id = s.root),"
			      " s.base_commit, s.version, s.n FROM series s WHERE s.id = ?", err);
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	r = sqlite3_step(st);
	if (r == SQLITE_ROW) {
		j->id = (long)sqlite3_column_int64(st, 0);
		j->root = dup_col(st, 1);
		j->state = dup_col(st, 2);
		j->title = dup_col(st, 3);
		j->subject = dup_col(st, 4);
		j->base_commit = dup_col(st, 5);
		j->version = sqlite3_column_int(st, 6);
		j->n = sqlite3_column_int(st, 7);
	}
	r = r == SQLITE_ROW || r == SQLITE_DONE ? 0 : watch_db_error(w, err);
	sqlite3_finalize(st);
	return r;
}

/* The series' cover letter and patches 1..n, in order, as series/ID/series.mbox. */
static int write_mbox(struct watch_db *w, const struct series_job *j, const char *path,
		      struct strbuf *err)
{
	struct strbuf mbox = STRBUF_INIT;
	int r = watch_series_mbox(w, j->id, &mbox, err);

	if (!r && write_file_atomic(path, mbox.buf, mbox.len))
		r = (sb_addf(err, "cannot write %s: %s", path, strerror(errno)), -1);
	sb_release(&mbox);
	return r;
}

static int set_state(struct watch_db *w, const struct series_job *j, const char *state,
		     const char *reason)
{
	struct strbuf err = STRBUF_INIT;
	int r = watch_series_set_state(w, j->id, state, reason, time(NULL), &err);

	if (r)
		lab_error("watch: %s", sb_str(&err));
	sb_release(&err);
	return r;
}

static int set_column(struct watch_db *w, const struct series_job *j, const char *sql,
		      const char *value)
{
	struct strbuf err = STRBUF_INIT;
	sqlite3_stmt *st = watch_db_prepare(w, sql, &err);
	int r = -1;

	if (st) {
		sqlite3_bind_text(st, 1, value, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 2, j->id);
		r = sqlite3_step(st) == SQLITE_DONE ? 0 : watch_db_error(w, &err);
		sqlite3_finalize(st);
	}
	if (r)
		lab_error("watch: %s", sb_str(&err));
	sb_release(&err);
	return r;
}

/* The event of a series whose base-commit did not build: it goes on the baseline from then on. */
#define BASE_UNBUILDABLE "base-unbuildable"

/* What the reply says beyond the measurement: the base the series went on. */
static char *base_note(const struct series_job *j, const struct lab_config *cfg)
{
	const struct kernel_cfg *k = config_kernel(cfg, j->baseline);
	/* the source's name, not where it lies on the lab's machine: a reply is public */
	const char *src = k ? path_basename(k->source) : "?";

	if (!j->base_commit)
		return xasprintf("Built on [kernel %s] of the lab (%s): the series names no "
				 "base-commit.", j->baseline, src);
	if (j->base_fell_back)
		return xasprintf("The series names base-commit %s, which the lab's [kernel %s] "
				 "(%s) has but which does not build here; built on [kernel %s] as "
				 "the lab has it instead.", j->base_commit, j->baseline, src,
				 j->baseline);
	if (j->commit)
		return xasprintf("Built on the series' base-commit %s: [kernel %s] of the lab (%s) "
				 "at that commit, for the baseline and the series alike.",
				 j->base_commit, j->baseline, src);
	if (j->base_is_own)
		return xasprintf("Built on the series' base-commit %s, the commit of [kernel %s] "
				 "of the lab (%s).", j->base_commit, j->baseline, src);
	return xasprintf("The series names base-commit %s; built on [kernel %s] of the lab "
			 "(%s) instead, which is no git tree that has that commit ([watch] "
			 "baseline).", j->base_commit, j->baseline, src);
}

/*
 * Where the series goes (series_job.commit): its base-commit, when it is
 * a commit's hex name (the mail is untrusted) that the baseline's git
 * source has and the baseline is not at already.
 */
static void choose_base(struct watch_db *w, struct series_job *j, const struct lab_config *cfg)
{
	const struct kernel_cfg *k = config_kernel(cfg, j->baseline);
	const char *c = j->base_commit;
	size_t len = c ? strspn(c, "0123456789abcdef") : 0;
	char *commit, *own;

	j->a = j->baseline;
	j->base_fell_back = watch_series_has_event(w, j->id, BASE_UNBUILDABLE);
	if (j->base_fell_back || !k || !c || len < 7 || len > 64 || c[len] ||
	    !(commit = ksource_git_commit(k->source, c)))
		return;
	own = ksource_git_commit(k->source, k->ref ? k->ref : "HEAD");
	if (own && !strcmp(own, commit)) {
		j->base_is_own = 1;
		free(commit);
	} else {
		j->commit = commit;
		j->base_at = xasprintf("%s-base", j->kernel);
		j->a = j->base_at;
	}
	free(own);
}

/* The reply to a series that could not be measured, as series/ID/reply.eml. */
static int write_failure_reply(const struct series_job *j, const struct lab_config *cfg,
			       const char *tag, const char *what, const char *errors)
{
	struct report_mail_opts mo = {
		.from = cfg->report.mail_from, .to = cfg->report.mail_to, .cc = cfg->report.mail_cc,
	};
	char *from = mo.from ? NULL : report_mail_default_from();
	char *msgid = xasprintf("<%s>", j->root), *note = base_note(j, cfg);
	char *path = xasprintf("%s/reply.eml", j->dir);
	struct strbuf body = STRBUF_INIT, mail = STRBUF_INIT;
	int r = 0;

	if (from)
		mo.from = from;
	sb_addf(&body, "mglrulab could not measure this series (v%d, %d patch%s): %s\n\n", j->version,
		j->n, j->n == 1 ? "" : "es", what);
	/* the errors as the lab said them, indented; the lab's own folders are no news */
	for (const char *p = errors; *p;) {
		size_t len = strcspn(p, "\n"), sp = strspn(p, " ");

		if (len && strncmp(p + sp, "the work tree ", 14) &&
		    strncmp(p + sp, "and the work tree ", 18))
			sb_addf(&body, "  %.*s\n", (int)len, p);
		p += len + (p[len] == '\n');
	}
	sb_addf(&body, "\n%s\n", note);
	report_render_plain_mail(&mo, j->subject ? j->subject : j->title, tag, msgid, body.buf,
				 &mail);
	if (write_file_atomic(path, mail.buf, mail.len))
		r = lab_error("watch: cannot write %s: %s", path, strerror(errno));
	free(from);
	free(msgid);
	free(note);
	free(path);
	sb_release(&body);
	sb_release(&mail);
	return r;
}

/*
 * The series' kernel (and the baseline at its base-commit) joined to
 * @cfg, the kernel it goes on in *@base; NULL when lab.conf does not
 * allow it (said).
 */
static const struct kernel_cfg *add_kernels(struct lab_config *cfg, const struct series_job *j,
					    const char *mbox, const struct kernel_cfg **base)
{
	const struct session_series_kernel sk = { j->baseline, j->kernel, mbox, j->commit,
						  j->base_at };
	struct strbuf err = STRBUF_INIT;
	const struct kernel_cfg *k = NULL;

	*base = NULL;
	if (!config_kernel(cfg, j->baseline))
		user_error("watch: %s: [watch] baseline names [kernel %s], which it does not have",
			   cfg->path, j->baseline);
	else if (session_series_kernel_add(cfg, &sk, &err))
		user_error("watch: %s", sb_str(&err));
	else if ((k = config_kernel(cfg, j->kernel)))
		*base = config_kernel(cfg, j->a);	/* after the array grew */
	sb_release(&err);
	return *base ? k : NULL;
}

/*
 * Where a step leaves its series, when its status is 0 (build_step(),
 * run_step()); a status (a negated LAB_E*) stops the watch instead, the
 * series left in its state.
 */
enum series_step_end {
	SERIES_NEXT_STEP,	/* built: on to its session; regressed: on to its bisection */
	SERIES_DONE,		/* decided, or failed with its reply: nothing more to do */
};

static LAB_MUST_CHECK int lab_failed(struct watch_db *w, struct series_job *j,
				     const struct watch_work_opts *o, const char *step,
				     const char *state, const char *errors);

/* The words of a reply and of the queue for a series whose kernel @f stopped. */
static void failure_words(enum kbuild_failure f, const char **tag, const char **what)
{
	switch (f) {
	case KBUILD_FAIL_APPLY:
		*tag = "does not apply";
		*what = "it does not apply to the baseline";
		break;
	case KBUILD_FAIL_CONFIG:
		*tag = "does not configure";
		*what = "its kernel cannot be configured as the lab's";
		break;
	case KBUILD_FAIL_TIMEOUT:
		*tag = "build timed out";
		*what = "its kernel's build ran past the lab's time limit";
		break;
	default:
		*tag = "does not build";
		*what = "its kernel does not build";
		break;
	}
}

/*
 * The base-commit's kernel did not build: the series goes on [watch]
 * baseline from now on (an event says so, and the reply's base note),
 * never stuck on a commit someone named. 0, or <0 stop.
 */
static int fall_back_to_baseline(struct watch_db *w, struct series_job *j)
{
	struct strbuf err = STRBUF_INIT;

	warning("watch: series %ld: its base-commit %s does not build here: it goes on [kernel %s] "
		"instead", j->id, j->base_commit, j->baseline);
	if (watch_series_event(w, j->id, BASE_UNBUILDABLE, j->commit, time(NULL), &err)) {
		lab_error("watch: %s", sb_str(&err));
		sb_release(&err);
		return -LAB_ELAB;
	}
	sb_release(&err);
	free(j->commit);
	free(j->base_at);
	j->commit = j->base_at = NULL;
	j->a = j->baseline;
	j->base_fell_back = 1;
	return 0;
}

/*
 * Build the baseline and the series' kernel: 0 and *@end SERIES_NEXT_STEP
 * (built) or SERIES_DONE (the series failed, its reply written), or <0
 * stop. Whatever stops a kernel that holds the series (apply,
 * configure, compile, the time limit) is the series' failure, with a reply
 * that says only what kbuild allows in public (kbuild.h, public_reason);
 * the baseline's own failure is the lab's, counted like a failed session
 * (WATCH_LAB_ATTEMPTS), and a base-commit that does not build falls back
 * to the baseline.
 */
static LAB_MUST_CHECK int build_step(struct watch_db *w, struct series_job *j,
				     const struct watch_work_opts *o, enum series_step_end *end)
{
	struct lab_config cfg;
	struct strbuf err = STRBUF_INIT;
	char *mbox = xasprintf("%s/series.mbox", j->dir);
	const struct kernel_cfg *base, *k = NULL;
	struct kbuild_result res;
	int r;

	*end = SERIES_NEXT_STEP;
	if (set_state(w, j, "building", NULL) || write_mbox(w, j, mbox, &err)) {
		if (err.len)
			lab_error("watch: %s", sb_str(&err));
		free(mbox);
		sb_release(&err);
		return -LAB_ELAB;
	}
	if (config_load_or_report(o->config, &cfg)) {
		free(mbox);
		return -LAB_EUSER;
	}
	info("series %ld: building %s%s%s and %s (%d patch%s) on it", j->id,
	     j->commit ? "" : "[kernel ", j->a, j->commit ? " (the baseline at its base-commit)" :
	     "]", j->kernel, j->n, j->n == 1 ? "" : "es");
	k = add_kernels(&cfg, j, mbox, &base);
	if (!k) {
		/* the lab's configuration, not the series: it stays building */
		config_release(&cfg);
		free(mbox);
		return -LAB_EUSER;
	}
	memset(&res, 0, sizeof(res));
	r = kbuild_kernel(&cfg, base, &res);
	kbuild_result_release(&res);
	if (r && interrupted()) {
		r = -LAB_ELAB;
	} else if (r && j->commit) {
		r = fall_back_to_baseline(w, j);
		config_release(&cfg);
		free(mbox);
		sb_release(&err);
		return r ? r : build_step(w, j, o, end);
	} else if (r) {
		/* the lab's own kernel: no series is to blame */
		r = lab_failed(w, j, o, "the lab's baseline kernel did not build", "building",
			       "the lab could not build its baseline kernel");
		*end = SERIES_DONE;
		goto out;
	}
	memset(&res, 0, sizeof(res));
	r = kbuild_kernel(&cfg, k, &res);
	if (interrupted()) {
		r = -LAB_ELAB;
	} else if (r && res.failure) {
		const char *tag, *what;
		const char *why = res.public_reason ? res.public_reason : "";

		failure_words(res.failure, &tag, &what);
		r = write_failure_reply(j, &cfg, tag, what, why) ||
		    set_column(w, j, "UPDATE series SET verdict = ? WHERE id = ?", what) ||
		    set_state(w, j, "failed", *why ? why : what) ? -LAB_ELAB : 0;
		*end = SERIES_DONE;
	} else if (r) {
		/* the lab's failure (its disk, its tools), not the series' */
		r = lab_failed(w, j, o, "the lab could not build its kernel", "building",
			       "the lab failed to build the series' kernel");
		*end = SERIES_DONE;
	}
	kbuild_result_release(&res);
out:
	config_release(&cfg);
	free(mbox);
	sb_release(&err);
	return r;
}

/* A session's budget, and each bisection step's: [watch] budget or its default. */
static double watch_budget(const struct lab_config *cfg)
{
	return cfg->watch.budget_s > 0 ? cfg->watch.budget_s : WATCH_BUDGET_DEFAULT_S;
}

/*
 * A step that failed for the lab's reasons: a session that failed as a
 * whole (its kernels built, so a host, libvirt or the disk, not the
 * series, is the likely cause; a kernel that does not boot fails runs,
 * not the session), or the lab's baseline that did not build. The series
 * stays where it is, to be taken up by the next watch, which stops now;
 * only after WATCH_LAB_ATTEMPTS such failures is it failed, with a reply
 * that says the lab could not measure it, so that one series cannot stall
 * the queue for good. @step names the failure in the lab's own messages,
 * @state the state the series keeps meanwhile. 0 the series is failed
 * (its reply written), <0 stop.
 */
static int lab_failed(struct watch_db *w, struct series_job *j, const struct watch_work_opts *o,
		      const char *step, const char *state, const char *errors)
{
	struct strbuf err = STRBUF_INIT;
	long n = watch_series_lab_failure(w, j->id, errors, time(NULL), &err);
	const char *what = "the lab failed to measure it";
	struct lab_config cfg;
	int r = -LAB_ELAB;

	if (n < 0) {
		lab_error("watch: %s", sb_str(&err));
	} else if (n < WATCH_LAB_ATTEMPTS) {
		lab_error("watch: series %ld: %s (%ld of %d times): it stays %s, and the next watch "
			  "resumes it", j->id, step, n, WATCH_LAB_ATTEMPTS, state);
	} else if (!config_load_or_report(o->config, &cfg)) {
		char *why = xasprintf("%s, %ld times; this says nothing of the series", what, n);

		if (!write_failure_reply(j, &cfg, "not measured", why, errors) &&
		    !set_column(w, j, "UPDATE series SET verdict = ? WHERE id = ?", what) &&
		    !set_state(w, j, "failed", errors))
			r = 0;
		free(why);
		config_release(&cfg);
	}
	sb_release(&err);
	return r;
}

/*
 * A series whose session found a regression is bisected ([watch] bisect)
 * when it has patches to tell apart and its kernel is the baseline plus
 * the series: a baseline carrying patches of its own would make them
 * prefixes of the bisection.
 */
static int wants_bisection(const struct series_job *j, const struct watch_work_opts *o)
{
	const struct kernel_cfg *base = config_kernel(o->cfg, j->baseline);

	if (o->cfg->watch.bisect != WATCH_BISECT_REGRESSION || j->n < 2)
		return 0;
	if (base && base->series.n) {
		info("series %ld: not bisected: [kernel %s] carries a series of its own", j->id,
		     j->baseline);
		return 0;
	}
	return 1;
}

/* series/ID/reply.eml again, from the session's report, with @appendix after the answer. */
static int rewrite_reply(const struct series_job *j, const struct watch_work_opts *o,
			 const char *appendix)
{
	char *report = xasprintf("%s/reports/latest/report.json", j->dir);
	char *reply = xasprintf("%s/reply.eml", j->dir);
	json_error_t je;
	json_t *rep = json_load_file(report, 0, &je);
	int r;

	if (!rep)
		r = lab_error("watch: %s:%d: %s", report, je.line, je.text);
	else
		r = session_write_mail(reply, rep, &o->cfg->report, appendix);
	json_decref(rep);
	free(report);
	free(reply);
	return r;
}

/*
 * A bisection that failed (@errors, what the lab said): a lab failure
 * (lab_failed()). <0: stop, the series stays bisecting; 0: the
 * attempts are spent, the reply's words on it in @appendix.
 */
static LAB_MUST_CHECK int bisect_failed(struct watch_db *w, const struct series_job *j,
					const char *errors, struct strbuf *appendix)
{
	struct strbuf err = STRBUF_INIT;
	long n = watch_series_lab_failure(w, j->id, *errors ? errors : "the bisection failed",
					  time(NULL), &err);

	if (n < 0) {
		lab_error("watch: %s", sb_str(&err));
		sb_release(&err);
		return -LAB_ELAB;
	}
	sb_release(&err);
	if (n < WATCH_LAB_ATTEMPTS)
		return -lab_error("watch: series %ld: its bisection failed (%ld of %d times): it "
				  "stays bisecting, and the next watch resumes it", j->id, n,
				  WATCH_LAB_ATTEMPTS);
	sb_addf(appendix, "The bisection of the series did not finish: the lab failed it %ld "
		"times. It said:\n", n);
	for (const char *p = *errors ? errors : "(nothing)"; *p;) {
		size_t len = strcspn(p, "\n");

		if (len)
			sb_addf(appendix, "  %.*s\n", (int)len, p);
		p += len + (p[len] == '\n');
	}
	return 0;
}

/*
 * The bisection of a series that regressed (state bisecting), in
 * series/ID/reports next to its session, which is its confirm step; a
 * watch killed in it resumes it. The culprit goes into the series' note
 * and into the reply, after the answer. A bisection the lab fails is a
 * lab failure (lab_failed()): after WATCH_LAB_ATTEMPTS the series is
 * decided on its session alone, the reply saying the bisection did not
 * finish. 0 decided, <0 stop.
 */
static LAB_MUST_CHECK int bisect_step(struct watch_db *w, struct series_job *j,
				      const struct watch_work_opts *o)
{
	char *mbox = xasprintf("%s/series.mbox", j->dir), *reports = xasprintf("%s/reports", j->dir);
	char *summary = xasprintf("%s/bisect-summary.json", j->dir);
	char *latest = xasprintf("%s/latest", reports);
	char *state = xasprintf("%s/latest-bisect/bisect.json", reports);
	char *text_path = xasprintf("%s/latest-bisect/bisect.txt", reports);
	const struct session_series_kernel sk = { j->baseline, j->kernel, mbox, j->commit,
						  j->base_at };
	struct strbuf errors = STRBUF_INIT, appendix = STRBUF_INIT, *old;
	struct bisect_opts bo = {
		.config = o->config, .base = j->a, .series = j->kernel,
		.budget_s = watch_budget(o->cfg),
		.attribute = RUN_ATTRIBUTE_OFF, .json = summary, .series_kernel = &sk,
		.reports_dir = reports, .confirmed = latest,
		/* one killed before it wrote its state starts again */
		.resume = is_regular_file(state),
	};
	struct strbuf text = STRBUF_INIT;
	char *note = NULL, *base;
	int r;

	info("series %ld: %s bisection of its %d patches", j->id, bo.resume ? "resuming the" :
	     "a regression: a", j->n);
	old = error_capture(&errors);
	r = bisect_main(&bo);
	error_capture(old);
	strvec_clear(&bo.workloads);
	if (interrupted()) {
		r = -LAB_ELAB;
		goto out;
	}
	base = base_note(j, o->cfg);
	sb_addf(&appendix, "%s\n\n", base);
	free(base);
	if (r == LAB_OK && !read_file(text_path, &text, 1 << 20)) {
		note = watch_bisect_note(state, j->n);
		sb_addf(&appendix, "Bisection of the series (mglrulab bisect: each step a "
			"session like the one above, the first of them that session):\n\n%s",
			sb_str(&text));
	} else if ((r = bisect_failed(w, j, sb_str(&errors), &appendix))) {
		goto out;
	} else {
		note = xstrdup("bisection failed");
	}
	r = rewrite_reply(j, o, appendix.buf) ||
	    set_column(w, j, "UPDATE series SET note = ? WHERE id = ?", note) ||
	    set_state(w, j, "decided", NULL) ? -LAB_ELAB : 0;
	if (!r)
		info("series %ld: %s", j->id, note);
out:
	free(note);
	sb_release(&text);
	free(mbox);
	free(reports);
	free(summary);
	free(latest);
	free(state);
	free(text_path);
	sb_release(&errors);
	sb_release(&appendix);
	return r;
}

/*
 * The session of the baseline against the series: 0 and *@end
 * SERIES_DONE (decided, or failed) or SERIES_NEXT_STEP (a regression to
 * bisect), or <0 stop.
 */
static LAB_MUST_CHECK int run_step(struct watch_db *w, struct series_job *j,
				   const struct watch_work_opts *o, enum series_step_end *end)
{
	char *mbox = xasprintf("%s/series.mbox", j->dir), *reports = xasprintf("%s/reports", j->dir);
	char *summary = xasprintf("%s/summary.json", j->dir), *reply = xasprintf("%s/reply.eml", j->dir);
	char *latest = xasprintf("%s/latest/session.json", reports);
	char *report = xasprintf("%s/latest/report.json", reports);
	const struct session_series_kernel sk = { j->baseline, j->kernel, mbox, j->commit,
						  j->base_at };
	struct strbuf errors = STRBUF_INIT, *old;
	/* every reply says which base the series went on, after the answer */
	char *note = base_note(j, o->cfg);
	struct session_opts so = {
		.config = o->config, .mode = SESSION_AB, .warmups = -1, .fail_on = FAIL_ON_NONE,
		.until_decided = 1, .reports_dir = reports, .no_stdout_report = 1, .json = summary,
		.mail = reply, .mail_appendix = note, .series_kernel = &sk,
		.attribute = RUN_ATTRIBUTE_OFF,
		/* a session killed with the watch goes on from its runs on disk */
		.resume = !strcmp(j->state, "running") && is_regular_file(latest),
	};
	int r;

	*end = SERIES_DONE;
	if (set_state(w, j, "running", NULL)) {
		r = -LAB_ELAB;
		goto out;
	}
	if (!so.resume) {
		/* (a resumed session keeps its budget: a --budget would extend it) */
		so.budget_s = watch_budget(o->cfg);
		strvec_push(&so.kernel_names, j->a);
		strvec_push(&so.kernel_names, j->kernel);
	}
	info("series %ld: %s session of [kernel %s] against %s", j->id,
	     so.resume ? "resuming the" : "a decisive", j->a, j->kernel);
	old = error_capture(&errors);
	r = session_main(&so);
	error_capture(old);
	strvec_clear(&so.kernel_names);
	if (interrupted()) {
		r = -LAB_ELAB;
	} else if (r == LAB_OK || r == LAB_REGRESSION) {
		int regressed;
		char *v = watch_verdict_of(report, &regressed);
		const int bisect = regressed && wants_bisection(j, o);

		r = set_column(w, j, "UPDATE series SET verdict = ? WHERE id = ?", v) ||
		    set_state(w, j, bisect ? "bisecting" : "decided", NULL) ? -LAB_ELAB : 0;
		/* on to the bisection, which writes the reply again */
		if (bisect)
			*end = SERIES_NEXT_STEP;
		info("series %ld: %s", j->id, v);
		free(v);
	} else {
		r = lab_failed(w, j, o, "its session failed", "running",
			       errors.len ? errors.buf : "the session failed");
	}
out:
	sb_release(&errors);
	free(note);
	free(mbox);
	free(reports);
	free(summary);
	free(reply);
	free(latest);
	free(report);
	return r;
}

int watch_work_next(struct watch_db *w, const struct watch_work_opts *o)
{
	struct series_job j = { 0 };
	struct strbuf err = STRBUF_INIT;
	int r = next_series(w, &j, &err);

	if (r || !j.id) {
		if (r)
			lab_error("watch: %s", sb_str(&err));
		sb_release(&err);
		return r ? -LAB_ELAB : 0;
	}
	j.dir = xasprintf("%s/series/%ld", o->dir, j.id);
	j.kernel = xasprintf("watch-%ld", j.id);
	j.baseline = o->cfg->watch.baseline ? o->cfg->watch.baseline :
		     o->cfg->run.kernels.n ? o->cfg->run.kernels.v[0] : NULL;
	if (!j.baseline) {
		r = -user_error("watch: no baseline: set [watch] baseline or [run] kernels in %s",
				o->cfg->path);
	} else if (mkdir_p(j.dir, 0755)) {
		r = -lab_error("watch: cannot create %s: %s", j.dir, strerror(errno));
	} else {
		/* a series killed while running has its kernels: straight to its session */
		const int bisecting = !strcmp(j.state, "bisecting");
		enum series_step_end end = SERIES_NEXT_STEP;

		choose_base(w, &j, o->cfg);
		r = strcmp(j.state, "running") && !bisecting ? build_step(w, &j, o, &end) : 0;
		if (!r && end == SERIES_NEXT_STEP && !bisecting)
			r = run_step(w, &j, o, &end);
		if (!r && end == SERIES_NEXT_STEP)
			r = bisect_step(w, &j, o);
		if (!r)
			r = 1;	/* worked on, whatever its end */
	}
	job_release(&j);
	sb_release(&err);
	return r;
}
