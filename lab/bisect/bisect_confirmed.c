// SPDX-License-Identifier: GPL-2.0
/*
 * bisect --confirmed DIR (and `mglrulab watch`): a finished session of
 * BASE against NEW, in the bisection's reports folder, is the confirm
 * step, measured once. It is checked before the bisection's folder is
 * made, so a wrong DIR leaves nothing behind.
 */
#include "bisect_priv.h"
#include "bisect_doc.h"
#include "fsutil.h"
#include "session_doc.h"
#include "stamped_dir.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The report of @real compares @base against @series (design.baseline, design.patched). */
static int check_kernels(const char *real, const char *base, const char *series)
{
	char *path = xasprintf("%s/report.json", real);
	struct strbuf err = STRBUF_INIT;
	struct session_doc d;
	json_error_t jerr;
	json_t *rep = json_load_file(path, 0, &jerr);
	int r = LAB_OK;

	if (!json_is_object(rep)) {
		r = user_error("bisect --confirmed: %s: %s", path,
			       rep ? "not a JSON object" : jerr.text);
	} else if (session_doc_decode(rep, &d, &err)) {
		r = user_error("bisect --confirmed: %s: %s", path, sb_str(&err));
	} else {
		const char *b = d.design.baseline, *p = d.design.patched ? d.design.patched : "";

		if (strcmp(b, base) || strcmp(p, series))
			r = user_error("bisect --confirmed: %s: expected a session of %s against %s "
				       "(design.baseline, design.patched), found '%s' against '%s'",
				       path, base, series, b, p);
		session_doc_release(&d);
	}
	json_decref(rep);
	sb_release(&err);
	free(path);
	return r;
}

/* @real is a folder directly in @reports: the step links to it by name. */
static int check_place(const char *real, const char *reports)
{
	size_t n = strlen(reports);

	if (strncmp(real, reports, n) || real[n] != '/' || strchr(real + n + 1, '/'))
		return user_error("bisect --confirmed: the session %s is not in the reports "
				  "folder %s (the confirm step links to it there)", real, reports);
	return LAB_OK;
}

int bisect_confirmed_check(struct bisect *bs, const char *base, const char *series,
			   struct bisect_confirmed *out)
{
	const char *arg = bs->o->confirmed;
	char *reports = realpath(bs->cfg.reports_dir, NULL);
	/* a bare name is a session of the reports folder, as run --resume takes it */
	char *cand = strchr(arg, '/') ? xstrdup(arg) :
		     xasprintf("%s/%s", bs->cfg.reports_dir, arg);
	struct strbuf err = STRBUF_INIT;
	const char *bad;
	int r;

	memset(out, 0, sizeof(*out));
	out->real = realpath(cand, NULL);
	if (!reports || !out->real) {
		r = user_error("bisect --confirmed: %s: %s", reports ? cand : bs->cfg.reports_dir,
			       strerror(errno));
		goto out;
	}
	r = check_place(out->real, reports);
	if (!r)
		r = check_kernels(out->real, base, series);
	if (r)
		goto out;
	out->json = bisect_report_results(out->real, &out->results, &err);
	bad = out->json ? bisect_invalid_metric(&out->results) : NULL;
	if (!out->json)
		r = user_error("bisect --confirmed: %s", sb_str(&err));
	else if (bad)
		r = lab_error("bisect --confirmed: the session %s: its metric %s is invalid (too "
			      "many failed runs; see its logs/): it cannot confirm a change",
			      out->real, bad);
out:
	if (r)
		bisect_confirmed_release(out);
	free(reports);
	free(cand);
	sb_release(&err);
	return r;
}

/*
 * The confirm step's folder links to the session (a relative link: the
 * reports folder may move), so the step reads like any other; its
 * "latest" too, as a step's own session is found: a step that still needs
 * its attribution runs (bisect_run_step()) resumes this session, adding
 * no run, rather than measuring the pair again in a new one.
 */
int bisect_adopt_confirmed(struct bisect *bs, struct bisect_confirmed *c)
{
	size_t i = bisect_add_step(bs, "confirm", bs->base, bs->series);
	const struct bisect_doc_step *st = (const struct bisect_doc_step *)bs->doc.steps.v + i;
	char *dir = xasprintf("%s/%s", bs->dir, st->dir);
	char *link = xasprintf("%s/%s", dir, path_basename(c->real));
	char *target = xasprintf("../../../%s", path_basename(c->real));
	int r = LAB_OK;

	if (mkdir_p(dir, 0755) || (symlink(target, link) && errno != EEXIST)) {
		r = lab_error("cannot link %s to %s: %s", link, target, strerror(errno));
	} else {
		stamped_dir_link(dir, "latest", path_basename(c->real));	/* warns on failure */
		bisect_doc_step_measured(&bs->doc, i, c->real, &c->results);
		bisect_say("step %d (confirm): the session %s", (int)st->step, c->real);
	}
	free(dir);
	free(link);
	free(target);
	return r;
}

void bisect_confirmed_release(struct bisect_confirmed *c)
{
	bisect_doc_results_release(&c->results);
	json_decref(c->json);
	free(c->real);
	c->json = NULL;
	c->real = NULL;
}
