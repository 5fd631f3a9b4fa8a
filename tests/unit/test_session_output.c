// SPDX-License-Identifier: GPL-2.0
/*
 * session_output.c: the exit status CI sees (3 when --fail-on finds a
 * failing verdict, 2 when interrupted or no run succeeded) and the JUnit
 * file it writes (well-formed, every name escaped, the counts right).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "fsutil.h"
#include "report_view.h"
#include "session_priv.h"

static char dir[64];

static int setup(void **state)
{
	(void)state;
	strcpy(dir, "/tmp/mglrulab-test-output-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	rm_rf(dir);
	return 0;
}

/* A report with one result per verdict kind (and a counter, which has none). */
static json_t *report_of(const char *const *verdicts)
{
	json_t *results = json_array();
	char name[16];

	for (size_t i = 0; verdicts[i]; i++) {
		snprintf(name, sizeof(name), "m%zu", i);
		json_array_append_new(results, json_pack("{s:s, s:s, s:s, s:s}", "workload", "yp",
			"metric", name, "verdict", verdicts[i], "reason", "because"));
	}
	return json_pack("{s:o}", "results", results);
}

/*
 * The view the gate reads of a report that holds results alone (what
 * report_analyze_view() gives the session, without the rest): its
 * records, decoded as every stage decodes them.
 */
static struct report_view view_of(json_t *report)
{
	struct report_view v = { 0 };

	v.results = report_result_records(report, &v.nresults, NULL);
	v.own_json = report;	/* the records' strings point into it */
	return v;
}

/* --- a small XML checker: enough to catch what an unescaped name breaks --- */

static const char *entity_end(const char *p)
{
	static const char *const ok[] = { "&lt;", "&gt;", "&amp;", "&quot;", "&apos;", NULL };

	for (const char *const *e = ok; *e; e++)
		if (!strncmp(p, *e, strlen(*e)))
			return p + strlen(*e);
	/* a decimal character reference, as sb_add_xml() writes the apostrophe */
	if (p[1] == '#' && p[2] >= '0' && p[2] <= '9') {
		p += 2;
		while (*p >= '0' && *p <= '9')
			p++;
		return *p == ';' ? p + 1 : NULL;
	}
	return NULL;
}

static int bad_char(unsigned char c)
{
	return c < 0x20 && c != '\n' && c != '\t' && c != '\r';
}

/* 1 when @s is one well-formed element tree after an optional <?xml ...?> line. */
static int xml_well_formed(const char *s)
{
	char stack[16][64];
	int depth = 0, roots = 0;

	if (!strncmp(s, "<?xml ", 6)) {
		s = strstr(s, "?>");
		if (!s)
			return 0;
		s += 2;
	}
	while (*s) {
		if (*s == '&') {
			if (!(s = entity_end(s)))
				return 0;
			continue;
		}
		if (*s != '<') {
			if (bad_char((unsigned char)*s) || (!depth && !strchr(" \n\t\r", *s)))
				return 0;
			s++;
			continue;
		}
		int closing = *++s == '/';
		size_t n;
		s += closing;
		n = strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-_.");
		if (!n || n >= sizeof(stack[0]))
			return 0;
		if (closing) {
			if (!depth || strncmp(stack[depth - 1], s, n) || stack[depth - 1][n] || s[n] != '>')
				return 0;
			depth--;
			s += n + 1;
			continue;
		}
		if (depth == (int)ARRAY_SIZE(stack) || (!depth && roots++))
			return 0;
		memcpy(stack[depth], s, n);
		stack[depth][n] = '\0';
		s += n;
		/* attributes: name="value", the value free of < and " and bare & */
		for (;;) {
			s += strspn(s, " \n\t");
			if (*s == '>' || (*s == '/' && s[1] == '>'))
				break;
			n = strspn(s, "abcdefghijklmnopqrstuvwxyz_-");
			if (!n || s[n] != '=' || s[n + 1] != '"')
				return 0;
			for (s += n + 2; *s != '"'; ) {
				if (!*s || *s == '<' || bad_char((unsigned char)*s))
					return 0;
				if (*s == '&') {
					if (!(s = entity_end(s)))
						return 0;
				} else {
					s++;
				}
			}
			s++;
		}
		if (*s == '/')
			s += 2;		/* empty element */
		else
			depth++, s++;
	}
	return !depth && roots == 1;
}

static void test_checker_catches(void **state)
{
	(void)state;
	/* the checker itself must be able to say no */
	assert_true(xml_well_formed("<?xml version=\"1.0\"?>\n<a x=\"1 &amp; 2\"><b/>t&lt;</a>\n"));
	assert_false(xml_well_formed("<a x=\"<\"></a>"));
	assert_false(xml_well_formed("<a x=\"\"\"></a>"));
	assert_false(xml_well_formed("<a>&</a>"));
	assert_false(xml_well_formed("<a>\x07</a>"));
	assert_false(xml_well_formed("<a><b></a></b>"));
	assert_false(xml_well_formed("<a></a><a></a>"));
	assert_false(xml_well_formed("<a>"));
}

static void test_verdict_status(void **state)
{
	struct report_view all = view_of(report_of((const char *const[]){ "regression",
		"improvement", "no-change", "within-noise", "inconclusive", "invalid", NULL }));
	struct report_view calm = view_of(report_of((const char *const[]){ "no-change",
		"inconclusive", "invalid", "within-noise", NULL }));
	struct report_view better = view_of(report_of((const char *const[]){ "improvement",
										NULL }));
	struct report_view none = view_of(json_object());
	struct strbuf why = STRBUF_INIT;
	(void)state;

	assert_int_equal(session_verdict_status(&all, FAIL_ON_REGRESSION, &why), LAB_REGRESSION);
	assert_int_equal(LAB_REGRESSION, 3);
	assert_string_equal(sb_str(&why), "  yp m0: regression\n");
	sb_reset(&why);
	assert_int_equal(session_verdict_status(&all, FAIL_ON_CHANGE, &why), LAB_REGRESSION);
	assert_string_equal(sb_str(&why), "  yp m0: regression\n  yp m1: improvement\n");
	sb_reset(&why);
	assert_int_equal(session_verdict_status(&all, FAIL_ON_NONE, &why), LAB_OK);
	assert_int_equal(why.len, 0);

	/* an improvement fails only --fail-on change */
	assert_int_equal(session_verdict_status(&better, FAIL_ON_REGRESSION, &why), LAB_OK);
	assert_int_equal(session_verdict_status(&better, FAIL_ON_CHANGE, &why), LAB_REGRESSION);
	sb_reset(&why);
	/* nothing decided, or nothing at all: no failure */
	assert_int_equal(session_verdict_status(&calm, FAIL_ON_CHANGE, &why), LAB_OK);
	assert_int_equal(session_verdict_status(&none, FAIL_ON_CHANGE, &why), LAB_OK);
	assert_int_equal(why.len, 0);

	report_view_release(&all);
	report_view_release(&calm);
	report_view_release(&better);
	report_view_release(&none);
	sb_release(&why);
}

static char *read_back(const char *path)
{
	struct strbuf sb = STRBUF_INIT;

	assert_int_equal(read_file(path, &sb, 0), 0);
	return sb_detach(&sb);
}

static void test_junit(void **state)
{
	const char *hostile = "lat<b>\"p99\"</b>&amp;'\x07";
	json_t *results = json_pack("[{s:s, s:s, s:s, s:s}, {s:s, s:s, s:s, s:s},"
				    " {s:s, s:s, s:s, s:s}, {s:s, s:s, s:s, s:s}, {s:s, s:s}]",
		"workload", "w<&>", "metric", hostile, "verdict", "regression", "reason", "slower \"by\" 5% <x>",
		"workload", "w2", "metric", "ops", "verdict", "improvement", "reason", "faster & better",
		"workload", "w2", "metric", "lat", "verdict", "inconclusive", "reason", "noisy\x01",
		"workload", "w2", "metric", "p", "verdict", "no-change", "reason", "same",
		"workload", "w2", "metric", "pgfault");	/* a counter: no verdict, no test case */
	struct report_view report = view_of(json_pack("{s:o}", "results", results));
	char *path = xasprintf("%s/junit.xml", dir);
	(void)state;

	assert_int_equal(session_write_junit(path, &report, FAIL_ON_REGRESSION), LAB_OK);
	char *xml = read_back(path);
	assert_true(xml_well_formed(xml));
	/* counted from the cases: the inconclusive one is skipped */
	assert_non_null(strstr(xml, "<testsuite name=\"mglrulab\" tests=\"4\" failures=\"1\" errors=\"0\" "
				    "skipped=\"1\""));
	assert_non_null(strstr(xml, "classname=\"mglrulab.w&lt;&amp;&gt;\" "
				    "name=\"lat&lt;b&gt;&quot;p99&quot;&lt;/b&gt;&amp;amp;&#39;\xef\xbf\xbd\""));
	assert_non_null(strstr(xml, "<failure type=\"regression\" message=\"regression: slower &quot;by&quot; 5% &lt;x&gt;\"/>"));
	assert_non_null(strstr(xml, "<skipped message=\"inconclusive: noisy\xef\xbf\xbd\"/>"));
	assert_null(strstr(xml, "pgfault"));
	/* one failure element: the improvement passes under --fail-on regression */
	assert_null(strstr(strstr(xml, "<failure") + 1, "<failure"));
	free(xml);

	assert_int_equal(session_write_junit(path, &report, FAIL_ON_CHANGE), LAB_OK);
	xml = read_back(path);
	assert_true(xml_well_formed(xml));
	assert_non_null(strstr(xml, "tests=\"4\" failures=\"2\""));
	assert_non_null(strstr(xml, "<failure type=\"improvement\" message=\"improvement: faster &amp; better\"/>"));
	free(xml);

	assert_int_equal(session_write_junit(path, &report, FAIL_ON_NONE), LAB_OK);
	xml = read_back(path);
	assert_true(xml_well_formed(xml));
	assert_non_null(strstr(xml, "failures=\"0\""));
	assert_null(strstr(xml, "<failure"));
	free(xml);
	free(path);

	/* a folder that is not there: an error, not a silent success */
	path = xasprintf("%s/no/such/junit.xml", dir);
	assert_int_equal(session_write_junit(path, &report, FAIL_ON_REGRESSION), LAB_ELAB);
	free(path);
	report_view_release(&report);
}

/* --- session_finish(): the exit status of a whole session --- */

struct finish_case {
	struct session s;
	struct session_opts o;
};

/* A session folder holding the fixture's context and runs (@ok: keep the ok runs). */
static void session_from_fixture(struct finish_case *c, const char *sub, int keep_ok)
{
	json_error_t jerr;
	json_t *fx = json_load_file("tests/fixtures/reports/session-ab.json", 0, &jerr), *run;
	size_t i;

	assert_non_null(fx);
	memset(c, 0, sizeof(*c));
	c->s.o = &c->o;
	c->s.saved_stdout = -1;
	c->s.dir = xasprintf("%s/%s", dir, sub);
	c->s.id = xstrdup(sub);
	c->s.cfg.path = xstrdup("lab.conf");
	char *runs_dir = xasprintf("%s/runs", c->s.dir);
	assert_int_equal(mkdir_p(runs_dir, 0755), 0);
	free(runs_dir);
	json_array_foreach(json_object_get(fx, "runs"), i, run) {
		json_int_t seq = json_integer_value(json_object_get(run, "seq"));
		if (!keep_ok && !strcmp(json_string_value(json_object_get(run, "status")), "ok"))
			json_object_set_new(run, "status", json_string("failed"));
		char *path = session_run_path(c->s.dir, (int)seq);
		assert_int_equal(session_write_json(path, run), 0);
		free(path);
	}
	json_object_del(fx, "runs");
	/* the end encodes the session's document, as session_doc_load_file() reads it */
	struct strbuf err = STRBUF_INIT;

	if (session_doc_decode(fx, &c->s.doc, &err))
		fail_msg("session-ab.json: %s", sb_str(&err));
	c->s.doc.owned = fx;	/* and keeps the tree its strings point into */
	sb_release(&err);
}

static void finish_case_release(struct finish_case *c)
{
	session_doc_release(&c->s.doc);
	free(c->s.dir);
	free(c->s.id);
	free(c->s.cfg.path);
}

/* session_finish() with its report.txt on stdout sent to /dev/null. */
static int finish_quietly(struct session *s, enum plan_end end)
{
	int saved = dup(1), null = open("/dev/null", O_WRONLY), r;

	fflush(stdout);
	dup2(null, 1);
	r = session_finish(s, end);
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	close(null);
	return r;
}

static json_t *report_in(const struct session *s)
{
	char *path = xasprintf("%s/report.json", s->dir);
	json_t *r = json_load_file(path, 0, NULL);

	free(path);
	assert_non_null(r);
	return r;
}

static int has_verdict(const json_t *report, const char *verdict)
{
	json_t *res;
	size_t i;

	json_array_foreach(json_object_get(report, "results"), i, res)
		if (!strcmp(json_string_value(json_object_get(res, "verdict")) ?: "", verdict))
			return 1;
	return 0;
}

static void test_finish_status(void **state)
{
	struct finish_case c;
	char junit[128];
	(void)state;

	session_from_fixture(&c, "s1", 1);
	/* the fixture's kbuild elapsed_s is a regression: exit 3, and the JUnit file says so */
	c.o.fail_on = FAIL_ON_REGRESSION;
	snprintf(junit, sizeof(junit), "%s/s1/junit.xml", dir);
	c.o.junit = junit;
	assert_int_equal(finish_quietly(&c.s, PLAN_DONE), LAB_REGRESSION);
	json_t *rep = report_in(&c.s);
	assert_true(has_verdict(rep, "regression"));
	assert_true(json_is_true(json_object_get(json_object_get(rep, "session"), "complete")));
	json_decref(rep);
	char *xml = read_back(c.o.junit);
	assert_true(xml_well_formed(xml));
	assert_non_null(strstr(xml, "<failure type=\"regression\""));
	free(xml);

	c.o.fail_on = FAIL_ON_NONE;
	assert_int_equal(finish_quietly(&c.s, PLAN_DONE), LAB_OK);
	/* interrupted: 2 whatever the verdicts, and the report says it is partial */
	c.o.fail_on = FAIL_ON_REGRESSION;
	assert_int_equal(finish_quietly(&c.s, PLAN_STOPPED), LAB_ELAB);
	rep = report_in(&c.s);
	assert_true(json_is_false(json_object_get(json_object_get(rep, "session"), "complete")));
	json_decref(rep);
	finish_case_release(&c);

	/* no run succeeded: the lab itself is failing, 2 */
	session_from_fixture(&c, "s2", 0);
	c.o.fail_on = FAIL_ON_NONE;
	assert_int_equal(finish_quietly(&c.s, PLAN_DONE), LAB_ELAB);
	finish_case_release(&c);
}

/*
 * run --json FILE: the summary a script reads instead of parsing the text
 * report (run had no machine-readable summary): the folder, the reports'
 * paths, each primary's verdict and gate, the exit status and what it
 * means, and what failed.
 */
static void test_finish_json_summary(void **state)
{
	struct finish_case c;
	char path[128];
	json_t *j, *p, *f;
	size_t i;
	int kbuild = 0;
	(void)state;

	session_from_fixture(&c, "s9", 1);
	c.o.fail_on = FAIL_ON_REGRESSION;
	snprintf(path, sizeof(path), "%s/s9/summary.json", dir);
	c.o.json = path;
	assert_int_equal(finish_quietly(&c.s, PLAN_DONE), LAB_REGRESSION);
	j = json_load_file(path, 0, NULL);
	assert_non_null(j);
	assert_string_equal(json_string_value(json_object_get(j, "schema")), "mglrulab-run-summary/1");
	assert_string_equal(json_string_value(json_object_get(j, "session")), c.s.dir);
	assert_int_equal(json_integer_value(json_object_get(j, "exit_status")), 3);
	assert_non_null(strstr(json_string_value(json_object_get(j, "exit_meaning")), "regression"));
	assert_string_equal(json_string_value(json_object_get(j, "fail_on")), "regression");
	assert_true(json_is_true(json_object_get(j, "complete")));
	char *html = xasprintf("%s/report.html", c.s.dir);
	assert_string_equal(json_string_value(json_object_get(json_object_get(j, "reports"), "html")),
			    html);
	free(html);
	/* every primary (the fixture declares none: every metric), with its verdict */
	assert_true(json_array_size(json_object_get(j, "primaries")) > 0);
	json_array_foreach(json_object_get(j, "primaries"), i, p) {
		assert_non_null(json_string_value(json_object_get(p, "verdict")));
		if (!strcmp(json_string_value(json_object_get(p, "workload")), "kbuild") &&
		    !strcmp(json_string_value(json_object_get(p, "metric")), "elapsed_s")) {
			kbuild = 1;
			assert_string_equal(json_string_value(json_object_get(p, "gate")), "failure");
			assert_true(json_real_value(json_object_get(p, "ci_lo_pct")) > 0);
		}
	}
	assert_true(kbuild);
	f = json_object_get(j, "failing");
	assert_int_equal(json_array_size(f), 1);
	assert_string_equal(json_string_value(json_object_get(json_array_get(f, 0), "verdict")),
			    "regression");
	json_decref(j);
	finish_case_release(&c);
}

/*
 * run --mail FILE: the reply mail is written when the session ends, with
 * the lab's [report] sender; a mail that cannot be written is a lab
 * failure, as an unwritable JUnit file is (guards `run --mail`).
 */
static void test_finish_mail(void **state)
{
	struct finish_case c;
	char mail[128];
	(void)state;

	session_from_fixture(&c, "s3", 1);
	c.o.fail_on = FAIL_ON_NONE;
	snprintf(mail, sizeof(mail), "%s/s3/reply.mail", dir);
	c.o.mail = mail;
	c.s.cfg.report.mail_from = xstrdup("Lab <lab@example.org>");
	assert_int_equal(finish_quietly(&c.s, PLAN_DONE), LAB_OK);
	char *text = read_back(mail);
	assert_int_equal(strncmp(text, "From: Lab <lab@example.org>\nSubject: Re: ", 41), 0);
	assert_non_null(strstr(text, "\n\nHi,\n"));
	assert_non_null(strstr(text, "\nAnswer:  "));
	free(text);
	snprintf(mail, sizeof(mail), "%s/no-such-folder/reply.mail", dir);
	assert_int_equal(finish_quietly(&c.s, PLAN_DONE), LAB_ELAB);
	free(c.s.cfg.report.mail_from);
	finish_case_release(&c);
}

/*
 * --junit FILE that cannot be written: an error naming the file and a
 * non-zero exit, not a green run whose CI finds no JUnit file. A verdict
 * that fails --fail-on still says 3.
 */
static void test_finish_junit_unwritable(void **state)
{
	struct finish_case c;
	char junit[128], errpath[128];
	int saved, fd, r;
	(void)state;

	session_from_fixture(&c, "s3", 1);
	snprintf(junit, sizeof(junit), "%s/s3/no/such/folder/junit.xml", dir);
	c.o.junit = junit;
	c.o.fail_on = FAIL_ON_NONE;
	snprintf(errpath, sizeof(errpath), "%s/s3/stderr", dir);
	fd = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	fflush(stderr);
	saved = dup(2);
	dup2(fd, 2);
	close(fd);
	r = finish_quietly(&c.s, PLAN_DONE);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	char *said = read_back(errpath);
	fputs(said, stderr);
	assert_int_equal(r, LAB_ELAB);
	assert_non_null(strstr(said, junit));
	free(said);

	c.o.fail_on = FAIL_ON_REGRESSION;
	assert_int_equal(finish_quietly(&c.s, PLAN_DONE), LAB_REGRESSION);
	finish_case_release(&c);
}

/* session_finish() with stderr captured into @errpath; the status. */
static int finish_capturing(struct session *s, enum plan_end end, const char *errpath, char **said)
{
	int saved, fd, r;

	fd = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	fflush(stderr);
	saved = dup(2);
	dup2(fd, 2);
	close(fd);
	r = finish_quietly(s, end);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	*said = read_back(errpath);
	fputs(*said, stderr);
	return r;
}

/*
 * A record that cannot be read back is not dropped in silence: the error
 * names it, the exit status is 2 (3 still wins), and the report is not
 * complete, since it leaves a run out.
 */
static void test_finish_unreadable_record(void **state)
{
	struct finish_case c;
	char errpath[128], *said;
	(void)state;

	session_from_fixture(&c, "s4", 1);
	char *bad = session_run_path(c.s.dir, 9998);
	assert_int_equal(write_file_atomic(bad, "{\"seq\": 9998, cut", 17), 0);
	snprintf(errpath, sizeof(errpath), "%s/s4/stderr", dir);
	c.o.fail_on = FAIL_ON_NONE;
	assert_int_equal(finish_capturing(&c.s, PLAN_DONE, errpath, &said), LAB_ELAB);
	assert_non_null(strstr(said, bad));
	free(said);
	json_t *rep = report_in(&c.s);
	assert_true(json_is_false(json_object_get(json_object_get(rep, "session"), "complete")));
	json_decref(rep);
	c.o.fail_on = FAIL_ON_REGRESSION;
	assert_int_equal(finish_capturing(&c.s, PLAN_DONE, errpath, &said), LAB_REGRESSION);
	free(said);
	/* moved away: complete again, and green */
	assert_int_equal(unlink(bad), 0);
	c.o.fail_on = FAIL_ON_NONE;
	assert_int_equal(finish_capturing(&c.s, PLAN_DONE, errpath, &said), LAB_OK);
	assert_null(strstr(said, "error:"));
	free(said);
	rep = report_in(&c.s);
	assert_true(json_is_true(json_object_get(json_object_get(rep, "session"), "complete")));
	json_decref(rep);
	free(bad);
	finish_case_release(&c);
}

/*
 * A record whose write failed (ENOSPC) is no result: the session stops
 * short of complete, says why and how to go on, and exits 2.
 */
static void test_finish_unrecorded(void **state)
{
	struct finish_case c;
	char errpath[128], *said;
	(void)state;

	session_from_fixture(&c, "s5", 1);
	snprintf(errpath, sizeof(errpath), "%s/s5/stderr", dir);
	c.o.fail_on = FAIL_ON_NONE;
	atomic_store(&c.s.unrecorded, 1);
	for (enum plan_end end = PLAN_DONE; end <= PLAN_STOPPED; end++) {
		assert_int_equal(finish_capturing(&c.s, end, errpath, &said), LAB_ELAB);
		assert_non_null(strstr(said, "1 run not recorded"));
		assert_non_null(strstr(said, "run --resume s5"));
		free(said);
		json_t *rep = report_in(&c.s);
		assert_true(json_is_false(json_object_get(json_object_get(rep, "session"),
							  "complete")));
		json_decref(rep);
	}
	finish_case_release(&c);
}

/*
 * A report that cannot be written (here report.json is a folder; ENOSPC
 * does the same) is a lab failure, named, with the way to write it again:
 * exit 2, not a green session whose CI finds no report. No "reports:"
 * line claims it, and a regression found still says 3.
 */
static void test_finish_report_unwritable(void **state)
{
	struct finish_case c;
	char errpath[128], *said;
	(void)state;

	session_from_fixture(&c, "s7", 1);
	char *blocker = xasprintf("%s/report.json/x", c.s.dir);
	assert_int_equal(mkdir_p(blocker, 0755), 0);
	snprintf(errpath, sizeof(errpath), "%s/s7-stderr", dir);
	c.o.fail_on = FAIL_ON_NONE;
	assert_int_equal(finish_capturing(&c.s, PLAN_DONE, errpath, &said), LAB_ELAB);
	char *path = xasprintf("%s/report.json", c.s.dir);
	assert_non_null(strstr(said, path));
	assert_non_null(strstr(said, "1 of the reports could not be written"));
	assert_non_null(strstr(said, "run --resume s7"));
	assert_null(strstr(said, "reports: "));
	free(said);
	c.o.fail_on = FAIL_ON_REGRESSION;
	assert_int_equal(finish_capturing(&c.s, PLAN_DONE, errpath, &said), LAB_REGRESSION);
	free(said);
	/* room made: written, green */
	assert_int_equal(rm_rf(path), 0);
	c.o.fail_on = FAIL_ON_NONE;
	assert_int_equal(finish_capturing(&c.s, PLAN_DONE, errpath, &said), LAB_OK);
	assert_non_null(strstr(said, "reports: "));
	free(said);
	json_decref(report_in(&c.s));
	free(path);
	free(blocker);
	finish_case_release(&c);
}

/*
 * session_write_run() when the disk fills (RLIMIT_FSIZE stands for
 * ENOSPC): -1, the file named, no record and no temporary file left.
 */
static void test_write_run_fails_cleanly(void **state)
{
	struct finish_case c;
	struct rlimit old, tiny = { 64, 64 };
	char buf[4096], *said;
	int fds[2], saved, r;
	(void)state;

	session_from_fixture(&c, "s6", 1);
	json_t *rec = json_pack("{s:i, s:s, s:s}", "seq", 9997, "status", "ok", "padding",
				"................................................................");
	char *path = session_run_path(c.s.dir, 9997);
	char *runs = xasprintf("%s/runs", c.s.dir);
	size_t before = 0, after = 0;
	DIR *d = opendir(runs);
	assert_non_null(d);
	while (readdir(d))
		before++;
	closedir(d);

	/* A pipe, not a file: the size limit would cut the message short. */
	assert_int_equal(pipe(fds), 0);
	fflush(stderr);
	saved = dup(2);
	dup2(fds[1], 2);
	close(fds[1]);
	signal(SIGXFSZ, SIG_IGN);
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	tiny.rlim_max = old.rlim_max;
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &tiny), 0);
	r = session_write_run(c.s.dir, 9997, rec);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
	signal(SIGXFSZ, SIG_DFL);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	ssize_t got = read(fds[0], buf, sizeof(buf) - 1);
	close(fds[0]);
	assert_true(got > 0);
	buf[got] = '\0';
	said = xstrdup(buf);
	fputs(said, stderr);
	assert_int_equal(r, -1);
	assert_non_null(strstr(said, path));
	assert_false(path_exists(path));
	d = opendir(runs);
	assert_non_null(d);
	while (readdir(d))
		after++;
	closedir(d);
	assert_int_equal(after, before);
	free(said);
	free(runs);
	free(path);
	json_decref(rec);
	finish_case_release(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_checker_catches),
		cmocka_unit_test(test_verdict_status),
		cmocka_unit_test(test_junit),
		cmocka_unit_test(test_finish_status),
		cmocka_unit_test(test_finish_json_summary),
		cmocka_unit_test(test_finish_junit_unwritable),
		cmocka_unit_test(test_finish_mail),
		cmocka_unit_test(test_finish_unreadable_record),
		cmocka_unit_test(test_finish_unrecorded),
		cmocka_unit_test(test_finish_report_unwritable),
		cmocka_unit_test(test_write_run_fails_cleanly),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
