// SPDX-License-Identifier: GPL-2.0
/*
 * mglrulab history: every session of the reports folder as series of
 * nights, with the change points in each (lab/history/history.h).
 */
#include "cmd.h"
#include "config.h"
#include "escape.h"
#include "fsutil.h"
#include "history.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

struct history_cli {
	const char *config, *html, *out, *since, *state, *cache, *junit;
	int text, json, fail_on_new, by_name, no_state, no_cache;
	enum fail_on fail_on;
	long last, permutations;
	const char *alpha;
};

static const struct lab_option history_options[] = {
	CMD_OPT_CONFIG(struct history_cli, config),
	LAB_OPT_STRING("html", 0, struct history_cli, html, "FILE",
		       "self-contained HTML page (inline CSS and SVG, no\n"
		       "scripts; \"-\": stdout)"),
	LAB_OPT_BOOL("text", 0, struct history_cli, text, "text summary for mail on stdout"),
	LAB_OPT_BOOL("json", 0, struct history_cli, json,
		     "every series, night and change point as JSON on stdout"),
	LAB_OPT_STRING(NULL, 'o', struct history_cli, out, "FILE",
		       "write what would go to stdout into FILE instead;\n"
		       "one format per stdout: two are refused"),
	LAB_OPT_STRING("since", 0, struct history_cli, since, "DATE",
		       "only sessions created at or after DATE (2026-11-01 or\n"
		       "2026-11-01T02:00:00Z)"),
	CMD_OPT_FAIL_ON(struct history_cli, fail_on,
			"exit 3 when the newest session starts a regression\n"
			"(regression), any change (change), or when a kernel\n"
			"failed in its guest (invalid, and both others; 2 when\n"
			"no run of it succeeded); none, the default: exit 0"),
	LAB_OPT_BOOL("fail-on-new", 0, struct history_cli, fail_on_new,
		     "the same as --fail-on regression"),
	CMD_OPT_JUNIT(struct history_cli, junit),
	LAB_OPT_BOOL("by-name", 0, struct history_cli, by_name,
		     "one line per kernel name, whatever patch series it carries"),
	LAB_OPT_LONG("last", 0, struct history_cli, last, 1, 100000, "N",
		     "the summary lists change points of the last N sessions (14)"),
	LAB_OPT_STRING("alpha", 0, struct history_cli, alpha, "P",
		       "significance of each segment's test (0.01)"),
	LAB_OPT_LONG("permutations", 0, struct history_cli, permutations, 99, 1000000, "N",
		     "permutations per test (999)"),
	LAB_OPT_STRING("state", 0, struct history_cli, state, "FILE",
		       "incremental state (default: " HISTORY_STATE_FILE " in the first DIR)"),
	LAB_OPT_BOOL("no-state", 0, struct history_cli, no_state,
		     "search every series from its first night; write no state"),
	LAB_OPT_STRING("cache", 0, struct history_cli, cache, "FILE",
		       "digests of the reports read (default: " HISTORY_CACHE_FILE " in the\n"
		       "first DIR)"),
	LAB_OPT_BOOL("no-cache", 0, struct history_cli, no_cache,
		     "read every report; write no digest cache"),
	LAB_OPT_END
};

static const char *const history_synopsis[] = {
	"mglrulab history [DIR...] [--html FILE] [--text] [--json] [-o FILE]",
	"                 [--since DATE] [--fail-on WHAT | --fail-on-new] [--junit FILE]",
	"                 [--by-name] [--last N] [--alpha P] [--permutations N]",
	"                 [--state FILE | --no-state] [--cache FILE | --no-cache]",
	NULL
};

const struct lab_usage history_usage = {
	.synopsis = history_synopsis,
	.description =
		"Read every report.json under the folders (default: lab.conf's reports_dir),\n"
		"build one series per kernel line, workload and metric (sessions of other\n"
		"hosts, guests or workload parameters apart), and find the change points\n"
		"in each from every raw run of every night. Corrupt, partial and running\n"
		"sessions are skipped with a warning. Without an output option, --text.\n"
		"A folder with no session to read is an error, and nothing is written.\n",
	.options = history_options,
	.footer = "exit status: 0 ok, 1 bad options, no folder or no session in it, 2 cannot\n"
		  "write output or (--fail-on) no run of the newest session succeeded,\n"
		  "3 (--fail-on) the newest session starts a regression, or a kernel failed\n"
		  "in its guest.\n",
};

/* YYYY-MM-DD, optionally followed by THH:MM[:SS][Z]: compared as text with session.created. */
static int valid_date(const char *s)
{
	static const char pat[] = "dddd-dd-ddTdd:dd:ddZ";
	size_t n = strlen(s);

	if (n != 10 && n != 16 && n != 19 && n != 20)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (pat[i] == 'd' ? (s[i] < '0' || s[i] > '9') : s[i] != pat[i])
			return 0;
	return 1;
}

/* -o FILE is written even when empty; standard output only when there is something. */
static int write_out(const char *path, const struct strbuf *sb)
{
	if ((sb->len || !user_output_is_stdout(path)) &&
	    write_user_output(path, sb->buf ? sb->buf : "", sb->len))
		return lab_error("cannot write %s: %s", user_output_name(path),
				 user_file_strerror(errno));
	return LAB_OK;
}

/* One output on standard output, as for report (cmd_report.c). */
static int one_stdout_output(const struct history_cli *c)
{
	const char *out = c->out ? c->out : USER_OUTPUT_STDOUT;
	struct cmd_output outs[] = {
		{ "--text", c->text ? out : NULL }, { "--json", c->json ? out : NULL },
		{ "--html -", c->html }, { "--junit -", c->junit },
	};

	return cmd_one_stdout_output("history", outs, ARRAY_SIZE(outs), NULL);
}

static int options_to(const struct history_cli *c, struct history_opts *o)
{
	history_opts_default(o);
	o->since = c->since;
	o->by_name = c->by_name;
	if (c->last)
		o->last = (size_t)c->last;
	if (c->permutations)
		o->cp.permutations = (unsigned)c->permutations;
	if (c->alpha && (parse_double(c->alpha, &o->cp.alpha) || !(o->cp.alpha > 0) ||
			 o->cp.alpha >= 0.5))
		return user_error("history: --alpha: expected a number between 0 and 0.5, got '%s'",
				  c->alpha);
	/* p is at least 1 / (permutations + 1): a smaller alpha could never be reached. */
	if (o->cp.alpha * ((double)o->cp.permutations + 1) < 1)
		return user_error("history: --alpha %g needs at least %.0f permutations (--permutations)",
				  o->cp.alpha, ceil(1 / o->cp.alpha) - 1);
	if (c->since && !valid_date(c->since))
		return user_error("history: --since: expected a date such as 2026-11-01 or "
				  "2026-11-01T02:00:00Z, got '%s'", c->since);
	return one_stdout_output(c);
}

/* The lab's reports folder, or NULL when lab.conf does not load (reported). */
static char *lab_reports_dir(const struct history_cli *c)
{
	struct lab_config cfg;
	char *dir = NULL;

	if (!config_load_or_report(cmd_config_path(c->config), &cfg))
		dir = xstrdup(cfg.reports_dir);
	config_release(&cfg);
	return dir;
}

/* --html to its file, then the text (the default) and --json to --out or stdout. */
static int render(const struct history_cli *c, const struct history *h)
{
	struct strbuf out = STRBUF_INIT;
	int r;

	if (c->html) {
		history_render_html(h, user_output_is_stdout(c->html) ? NULL : c->html, &out);
		if (write_user_output(c->html, out.buf, out.len)) {
			r = lab_error("cannot write %s: %s", user_output_name(c->html),
				      user_file_strerror(errno));
			sb_release(&out);
			return r;
		}
		sb_reset(&out);
	}
	/* The default --text, unless --html - or --junit - took stdout. */
	if (c->text || (!c->json && !c->html && !(c->junit && user_output_is_stdout(c->junit))))
		history_render_text(h, &out);
	if (c->json)
		history_render_json(h, &out);
	r = write_out(c->out, &out);
	sb_release(&out);
	return r;
}

static int no_session(const struct history *h, const char *dir, int more)
{
	size_t skipped = h->nskipped;

	return user_error("history: %s%s: no session to read: no report.json under it that loads "
			  "(%zu skipped); nothing written", dir, more ? " and the other folders" : "",
			  skipped);
}

/* --junit and --fail-on (history_gate.c): 3, else 2, else the status of the JUnit file. */
/* What the gate judges: the nights, and the time the command took (JUnit's). */
struct gated_history {
	const struct history *h;
	double time_s;
};

static void history_junit(const void *subject, enum fail_on f, struct strbuf *out)
{
	const struct gated_history *g = subject;

	history_render_junit(g->h, f, g->time_s, out);
}

static int history_status(const void *subject, enum fail_on f, struct strbuf *why)
{
	return history_gate_status(((const struct gated_history *)subject)->h, f, why);
}

static int gate(const struct history_cli *c, const struct history *h, double time_s)
{
	static const struct cmd_gate_ops ops = { history_junit, history_status };
	struct gated_history g = { h, time_s };

	return cmd_gate_with("history", &ops, &g, c->fail_on, c->junit);
}

int cmd_history(int argc, char **argv)
{
	struct history_cli c = { .fail_on = FAIL_ON_DEFAULT };
	struct history_opts o;
	struct history h;
	char *default_dir = NULL, *state_path = NULL;
	json_t *state = NULL;
	double t0 = now_monotonic(), t1, t2;
	int nargs, r;

	r = lab_options_parse(&history_usage, "history", argc, argv, &c, &nargs);
	if (r)
		return cmd_status(r);
	if (c.fail_on_new && c.fail_on != FAIL_ON_DEFAULT && c.fail_on != FAIL_ON_REGRESSION)
		return user_error("history: --fail-on-new is --fail-on regression, not --fail-on %s",
				  fail_on_name(c.fail_on));
	if (c.fail_on_new)
		c.fail_on = FAIL_ON_REGRESSION;
	r = options_to(&c, &o);
	if (r)
		return r;
	if (!nargs && !(default_dir = lab_reports_dir(&c)))
		return LAB_EUSER;
	history_init(&h, &o);
	if (!c.no_cache) {
		char *cache_path = c.cache ? xstrdup(c.cache) :
			path_join(nargs ? argv[0] : default_dir, HISTORY_CACHE_FILE);

		history_cache_load(&h, cache_path);
		free(cache_path);
	}
	for (int i = 0; i < (nargs ? nargs : 1); i++) {
		const char *dir = nargs ? argv[i] : default_dir;

		if (history_add_dir(&h, dir)) {
			r = user_error("history: %s: %s", dir, strerror(errno));
			goto out;
		}
	}
	/*
	 * No session at all: an error, not "0 sessions" and a state file in a
	 * stray folder. Sessions that are all older than --since are an answer.
	 */
	if (!h.ns && !h.before_since) {
		r = no_session(&h, nargs ? argv[0] : default_dir, nargs > 1);
		goto out;
	}
	/* --since cuts the series short: the state would not be a prefix of them. */
	if (!c.no_state && !c.since)
		state_path = c.state ? xstrdup(c.state) :
			path_join(nargs ? argv[0] : default_dir, HISTORY_STATE_FILE);
	if (state_path)
		state = history_state_load(&h, state_path);
	if (history_cache_save(&h))
		warning("cannot write %s: %s; the next run reads every report again",
			h.cache_path, strerror(errno));
	t1 = now_monotonic();
	history_build(&h, state);
	t2 = now_monotonic();
	if (state_path && history_state_save(&h, state_path))
		warning("cannot write %s: %s; the next run searches every series again",
			state_path, strerror(errno));
	debug("history: %zu series, %zu resumed from the state, %zu nights searched; "
	      "%zu of %zu reports from the cache", h.nseries, h.resumed, h.searched, h.cached,
	      h.ns);
	r = render(&c, &h);
	debug("history: %.2f s reading, %.2f s change points, %.2f s state and outputs",
	      t1 - t0, t2 - t1, now_monotonic() - t2);
	if (!r)
		r = gate(&c, &h, now_monotonic() - t0);
out:
	json_decref(state);
	free(state_path);
	free(default_dir);
	history_release(&h);
	return r;
}
