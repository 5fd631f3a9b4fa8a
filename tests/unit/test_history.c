// SPDX-License-Identifier: GPL-2.0
/*
 * mglrulab history's series (lab/history/history.c): which nights go
 * together, what is skipped and why, failed runs kept visible, and the
 * incremental state.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fsutil.h"
#include "history.h"
#include "history_seal.h"
#include "sha256.h"

#include <fcntl.h>
#include <sys/stat.h>

static char tmpl[] = "/tmp/mglrulab-test-history.XXXXXX";
static char *root;
/* The history key's homes (XDG_STATE_HOME): the test's own, and another user's. */
static char key_home[] = "/tmp/mglrulab-test-history-key.XXXXXX";
static char key_home_alt[] = "/tmp/mglrulab-test-history-key2.XXXXXX";

/*
 * One session: kernel "next" (@subject: its first patch), one workload
 * yield_pingpong with @duration, on host @hostname, @runs runs of value
 * @base + i (the last @failed of them failed).
 */
static void session(const char *name, int day, const char *hostname, const char *duration,
		    const char *subject, double base, int runs, int failed, const char *complete)
{
	struct strbuf sb = STRBUF_INIT;
	char *dir = xasprintf("%s/%s", root, name), *path = xasprintf("%s/report.json", dir);

	sb_addf(&sb, "{\"schema\":\"mglrulab-report/%d\",\"generator\":{\"name\":\"t\",\"version\":\"0\"},"
		"\"session\":{\"id\":\"%s\",\"created\":\"2026-11-%02dT01:00:00Z\"%s%s},"
		"\"host\":{\"hostname\":\"%s\",\"accel\":\"kvm\"},"
		"\"kernels\":[{\"name\":\"next\",\"series\":[{\"subject\":\"[PATCH 1/1] %s\"}]}],"
		"\"workloads\":[{\"name\":\"yield\",\"type\":\"yield_pingpong\","
		"\"params\":{\"duration\":\"%s\"},\"metrics\":[{\"name\":\"cs\",\"unit\":\"1/s\","
		"\"better\":\"higher\"}],\"primary\":[\"cs\"]}],"
		"\"design\":{\"baseline\":\"next\"},\"runs\":[", 1 + day % 2, name, day,
		complete ? ",\"complete\":" : "", complete ? complete : "", hostname, subject,
		duration);
	for (int i = 0; i < runs; i++) {
		int ok = i < runs - failed;

		sb_addf(&sb, "%s{\"seq\":%d,\"kernel\":\"next\",\"workload\":\"yield\","
			"\"status\":\"%s\",\"metrics\":{", i ? "," : "", i + 1, ok ? "ok" : "failed");
		if (ok)
			sb_addf(&sb, "\"cs\":%g", base + i);
		sb_adds(&sb, "}}");
	}
	sb_adds(&sb, "]}\n");
	assert_int_equal(mkdir_p(dir, 0755), 0);
	assert_int_equal(write_file_atomic(path, sb.buf, sb.len), 0);
	sb_release(&sb);
	free(dir);
	free(path);
}

static int setup(void **state)
{
	(void)state;
	strcpy(tmpl + strlen(tmpl) - 6, "XXXXXX");
	root = mkdtemp(tmpl);
	return root ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	rm_rf(root);
	return 0;
}

static struct history_series *find(struct history *h, const char *hostname, const char *line)
{
	for (size_t i = 0; i < h->nseries; i++) {
		struct history_series *s = &h->series[i];
		const json_t *host = json_object_get(json_object_get(s->context, "host"), "hostname");

		if (!strcmp(json_string_value(host), hostname) && !strcmp(s->line, line))
			return s;
	}
	return NULL;
}

static void build(struct history *h, int by_name, const json_t *state)
{
	struct history_opts o;

	history_opts_default(&o);
	o.by_name = by_name;
	history_init(h, &o);
	assert_int_equal(history_add_dir(h, root), 0);
	history_build(h, state);
}

static void test_series_and_skips(void **state)
{
	struct history h;
	struct history_series *s;
	char *latest = xasprintf("%s/latest", root), *target = xasprintf("%s/s03", root);
	char *corrupt = xasprintf("%s/bad/report.json", root), *running = xasprintf("%s/run", root);
	char *sj = xasprintf("%s/run/session.json", root);
	size_t i;
	int seen_corrupt = 0, seen_partial = 0, seen_running = 0;
	(void)state;

	/* Written out of order: the series follows session.created. */
	session("s03", 3, "hostA", "1", "mm: series", 100, 6, 1, NULL);
	session("s01", 1, "hostA", "1", "mm: series", 100, 6, 0, "true");
	session("s02", 2, "hostA", "1", "mm: series", 100, 6, 6, NULL);	/* every run failed */
	session("s04", 4, "hostB", "1", "mm: series", 100, 6, 0, NULL);	/* another host */
	session("s05", 5, "hostA", "2", "mm: series", 100, 6, 0, NULL);	/* other parameters */
	session("s06", 6, "hostA", "1", "mm: other series", 100, 6, 0, NULL);
	session("s07", 7, "hostA", "1", "mm: series", 100, 6, 0, "false");	/* interrupted */
	/* A truncated report, and a session still running (no report.json yet). */
	assert_int_equal(mkdir_p(running, 0755), 0);
	assert_int_equal(write_file_atomic(sj, "{}", 2), 0);
	{
		char *bad = xasprintf("%s/bad", root);
		assert_int_equal(mkdir_p(bad, 0755), 0);
		free(bad);
	}
	assert_int_equal(write_file_atomic(corrupt, "{\"schema\": \"mglrulab-rep", 24), 0);
	/* reports/latest: a link to a session, not a second copy of it. */
	assert_int_equal(symlink(target, latest), 0);

	build(&h, 0, NULL);
	assert_int_equal(h.ns, 6);
	/* hostA/series, hostB/series, hostA duration 2, hostA other series. */
	assert_int_equal(h.nseries, 4);
	s = find(&h, "hostA", "next + mm: series");
	assert_non_null(s);
	assert_string_equal(s->workload, "yield");
	assert_string_equal(s->metric, "cs");
	assert_int_equal(s->better, 1);
	assert_true(s->primary);
	assert_int_equal(s->nn, 3);
	assert_string_equal(h.s[s->nights[0].session].id, "s01");
	assert_string_equal(h.s[s->nights[1].session].id, "s02");
	assert_string_equal(h.s[s->nights[2].session].id, "s03");
	/* Failed runs stay visible, also on a night with no value at all. */
	assert_int_equal(s->nights[1].n, 0);
	assert_int_equal(s->nights[1].failed, 6);
	assert_int_equal(s->nights[2].n, 5);
	assert_int_equal(s->nights[2].failed, 1);
	assert_true(s->nights[0].median == 102.5);
	assert_non_null(find(&h, "hostA", "next + mm: other series"));
	assert_non_null(find(&h, "hostB", "next + mm: series"));

	for (i = 0; i < h.nskipped; i++) {
		const char *file = h.skipped[i].file, *why = h.skipped[i].reason;

		if (!strcmp(file, corrupt)) {
			seen_corrupt = 1;
			/* report_load()'s reason: line and column. */
			assert_non_null(strstr(why, "line 1, column 24"));
		}
		seen_partial |= strstr(file, "s07") && strstr(why, "partial");
		seen_running |= !strcmp(file, running) && strstr(why, "still running");
	}
	assert_true(seen_corrupt);
	assert_true(seen_partial);
	assert_true(seen_running);
	history_release(&h);

	/* --by-name: one line per kernel name, the two series together. */
	build(&h, 1, NULL);
	s = find(&h, "hostA", "next");
	assert_non_null(s);
	assert_int_equal(h.nseries, 3);
	assert_int_equal(s->nn, 4);
	history_release(&h);
	free(latest);
	free(target);
	free(corrupt);
	free(running);
	free(sj);
}

/*
 * A history with a step, then one more night: the second analysis keeps
 * the confirmed change point from the state and searches only after it.
 */
static void test_incremental(void **state)
{
	struct history h;
	struct history_series *s;
	json_t *st;
	char name[16];
	(void)state;

	for (int d = 1; d <= 20; d++) {
		snprintf(name, sizeof(name), "n%02d", d);
		session(name, d, "hostC", "1", "mm: inc", d <= 10 ? 1000 : 900, 8, 0, NULL);
	}
	build(&h, 0, NULL);
	s = find(&h, "hostC", "next + mm: inc");
	assert_non_null(s);
	assert_int_equal(s->ncp, 1);
	assert_int_equal(s->cps[0].at, 10);
	assert_string_equal(s->cps[0].kind, "regression");
	assert_true(s->cps[0].delta_pct < -8 && s->cps[0].delta_pct > -12);
	assert_false(s->resumed);
	assert_int_equal(h.searched, 20);
	st = history_state_json(&h);
	history_release(&h);

	session("n21", 21, "hostC", "1", "mm: inc", 900, 8, 0, NULL);
	build(&h, 0, st);
	s = find(&h, "hostC", "next + mm: inc");
	assert_true(s->resumed);
	assert_int_equal(s->ncp, 1);
	assert_true(s->cps[0].kept);
	assert_int_equal(s->cps[0].at, 10);
	/* Only the open segment, nights 10..20, was searched. */
	assert_int_equal(h.searched, 11);
	history_release(&h);

	/* Tonight steps again: a new, tentative regression. */
	session("n22", 22, "hostC", "1", "mm: inc", 700, 8, 0, NULL);
	build(&h, 0, st);
	s = find(&h, "hostC", "next + mm: inc");
	assert_int_equal(s->ncp, 2);
	assert_true(s->cps[1].is_new);
	assert_true(s->cps[1].tentative);
	assert_int_equal(history_new_regressions(&h), 1);
	history_release(&h);
	json_decref(st);
}

/*
 * A gross step (stats.h): nights that alternate 4 % apart, then nights at
 * a quarter. By ranks the step is one more pair of nights apart; its runs
 * are apart by about 30 times the spread. Confirmed, it is kept in the
 * state with its ratio, and read back as it was.
 */
static void test_gross_step_kept(void **state)
{
	static const double base[] = { 1000, 1040, 1000, 1040, 250, 250 };
	struct history h;
	struct history_series *s;
	json_t *st, *conf;
	char name[16];
	double gross;
	(void)state;

	for (int d = 1; d <= 6; d++) {
		snprintf(name, sizeof(name), "g%02d", d);
		session(name, d, "hostG", "1", "mm: gross", base[d - 1], 8, 0, NULL);
	}
	build(&h, 0, NULL);
	s = find(&h, "hostG", "next + mm: gross");
	assert_non_null(s);
	assert_int_equal(s->ncp, 1);
	assert_int_equal(s->cps[0].at, 4);
	assert_false(s->cps[0].tentative);
	assert_string_equal(s->cps[0].kind, "regression");
	gross = s->cps[0].gross;
	assert_true(gross >= STATS_CP_GROSS && gross < 40);
	st = history_state_json(&h);
	history_release(&h);
	conf = json_object_get(json_object_iter_value(json_object_iter(json_object_get(st,
							"series"))), "confirmed");
	assert_int_equal(json_array_size(conf), 1);
	assert_true(json_real_value(json_object_get(json_array_get(conf, 0), "gross")) == gross);

	build(&h, 0, st);
	s = find(&h, "hostG", "next + mm: gross");
	assert_true(s->resumed);
	assert_int_equal(s->ncp, 1);
	assert_true(s->cps[0].kept);
	assert_true(s->cps[0].gross == gross);
	history_release(&h);
	json_decref(st);
}

/*
 * A bisection (reports/<stamp>-bisect/, bisect.json) keeps each step's
 * session under steps/: measured on purpose against a prefix of a series,
 * they are not nights. Counted, a later, slower step became "tonight" and
 * a new regression for --fail-on-new.
 */
/* A change point says what changed in the kernel between its two nights. */
static void test_change_point_diff(void **state)
{
	struct history h;
	struct history_series *s;
	char name[16];
	(void)state;

	for (int d = 1; d <= 20; d++) {
		snprintf(name, sizeof(name), "m%02d", d);
		session(name, d, "hostE", "1", d <= 10 ? "mm: old" : "mm: new",
			d <= 10 ? 1000 : 900, 8, 0, NULL);
	}
	build(&h, 1, NULL);
	s = find(&h, "hostE", "next");
	assert_non_null(s);
	assert_int_equal(s->ncp, 1);
	assert_int_equal(s->cps[0].diff.n, 2);
	assert_string_equal(s->cps[0].diff.v[0], "+ [PATCH 1/1] mm: new");
	assert_string_equal(s->cps[0].diff.v[1], "- [PATCH 1/1] mm: old");
	history_release(&h);
}

static void test_bisection_steps_are_not_nights(void **state)
{
	struct history h;
	struct history_series *s;
	char name[16], *bisect = xasprintf("%s/20261120-bisect/bisect.json", root);
	(void)state;

	for (int d = 1; d <= 10; d++) {
		snprintf(name, sizeof(name), "n%02d", d);
		session(name, d, "hostD", "1", "mm: bis", 1000, 8, 0, NULL);
	}
	session("20261120-bisect/steps/01-ends/20261120-010000-ab", 20, "hostD", "1", "mm: bis",
		700, 8, 0, NULL);
	session("20261120-bisect/steps/02-probe/20261121-010000-ab", 21, "hostD", "1", "mm: bis",
		700, 8, 0, NULL);
	assert_int_equal(write_file_atomic(bisect, "{\"schema\": \"mglrulab-bisect/1\"}\n", 32), 0);
	build(&h, 0, NULL);
	assert_int_equal(h.ns, 10);
	assert_string_equal(h.s[h.latest].id, "n10");
	s = find(&h, "hostD", "next + mm: bis");
	assert_non_null(s);
	assert_int_equal(s->nn, 10);
	assert_int_equal(s->ncp, 0);
	assert_int_equal(history_new_regressions(&h), 0);
	/* Not a problem with a report either: nothing is listed as skipped. */
	assert_int_equal(h.nskipped, 0);
	history_release(&h);
	free(bisect);
}

/*
 * A history whose every series is a primary has no "Other metrics"
 * section: the page showed the heading over nothing (issue 29).
 */
static void test_html_no_empty_other(void **state)
{
	struct history h;
	struct strbuf sb = STRBUF_INIT;
	char name[16];
	(void)state;

	for (int d = 1; d <= 6; d++) {
		snprintf(name, sizeof(name), "n%02d", d);
		session(name, d, "hostE", "1", "mm: only primaries", 1000, 6, 0, NULL);
	}
	build(&h, 0, NULL);
	assert_true(h.nseries > 0);
	for (size_t i = 0; i < h.nseries; i++)
		assert_true(h.series[i].primary);
	history_render_html(&h, NULL, &sb);
	assert_non_null(strstr(sb.buf, "<h2>Primary metrics</h2>"));
	assert_null(strstr(sb.buf, "<h2>Other metrics</h2>"));
	assert_non_null(strstr(sb.buf, "</html>"));
	sb_release(&sb);
	history_release(&h);
}

/* The history of @root as JSON, with the digest cache @cache (NULL: none). */
static char *history_json(const char *cache, size_t *cached)
{
	struct history_opts o;
	struct history h;
	struct strbuf sb = STRBUF_INIT;

	history_opts_default(&o);
	history_init(&h, &o);
	if (cache)
		history_cache_load(&h, cache);
	assert_int_equal(history_add_dir(&h, root), 0);
	if (cache)
		assert_int_equal(history_cache_save(&h), 0);
	history_build(&h, NULL);
	history_render_json(&h, &sb);
	if (cached)
		*cached = h.cached;
	history_release(&h);
	return sb_detach(&sb);
}

/* What a function writes on stderr (warnings). */
static int saved_fd = -1;
static char errfile[] = "/tmp/mglrulab-test-history-err.XXXXXX";

static void capture_begin(void)
{
	int fd;

	strcpy(errfile + strlen(errfile) - 6, "XXXXXX");
	fd = mkstemp(errfile);
	assert_true(fd >= 0);
	fflush(stderr);
	saved_fd = dup(2);
	assert_true(dup2(fd, 2) == 2);
	close(fd);
}

static char *capture_end(void)
{
	struct strbuf sb = STRBUF_INIT;

	fflush(stderr);
	assert_true(dup2(saved_fd, 2) == 2);
	close(saved_fd);
	assert_int_equal(read_file(errfile, &sb, 0), 0);
	unlink(errfile);
	return sb_detach(&sb);
}

/* Replace the first @from in @path by @to (as long), in place: same inode and size. */
static void patch_in_place(const char *path, const char *from, const char *to)
{
	struct strbuf sb = STRBUF_INIT;
	char *at;
	FILE *f;

	assert_int_equal(read_file(path, &sb, 0), 0);
	at = strstr(sb.buf, from);
	assert_non_null(at);
	assert_int_equal(strlen(from), strlen(to));
	memcpy(at, to, strlen(to));
	f = fopen(path, "r+");
	assert_non_null(f);
	assert_int_equal(fwrite(sb.buf, 1, sb.len, f), sb.len);
	assert_int_equal(fclose(f), 0);
	sb_release(&sb);
}

/*
 * Replace @from by @to in the line of sealed file @path that holds it,
 * and seal that line again with this user's key: what only a bug of ours,
 * or someone who can read the key, could write.
 */
static void reseal(const char *path, const char *from, const char *to)
{
	struct strbuf sb = STRBUF_INIT, out = STRBUF_INIT;
	const unsigned char *key = history_key();
	char *at, *line, *end, *l2 = NULL, mac[SHA256_HEX_LEN + 1];
	const char *schema = HISTORY_CACHE_SCHEMA;
	struct hmac_sha256 c;

	assert_non_null(key);
	assert_int_equal(read_file(path, &sb, 0), 0);
	l2 = strchr(sb.buf, '\n') + 1;
	at = strstr(sb.buf, from);
	assert_non_null(at);
	line = at;
	while (line[-1] != '\n')
		line--;
	end = strchr(at, '\n');
	sb_add(&out, sb.buf, (size_t)(line - sb.buf));
	{
		struct strbuf text = STRBUF_INIT;

		sb_add(&text, line + SHA256_HEX_LEN + 1, (size_t)(at - line) - SHA256_HEX_LEN - 1);
		sb_adds(&text, to);
		sb_add(&text, at + strlen(from), (size_t)(end - at) - strlen(from));
		hmac_sha256_init(&c, key, HISTORY_KEY_LEN);
		hmac_sha256_update(&c, schema, strlen(schema));
		hmac_sha256_update(&c, "\n", 1);
		hmac_sha256_update(&c, l2, SHA256_HEX_LEN);
		hmac_sha256_update(&c, "\n", 1);
		hmac_sha256_update(&c, text.buf, text.len);
		hmac_sha256_final_hex(&c, mac);
		sb_addf(&out, "%s %s", mac, sb_str(&text));
		sb_release(&text);
	}
	sb_adds(&out, end);
	assert_int_equal(write_file_atomic(path, out.buf, out.len), 0);
	sb_release(&sb);
	sb_release(&out);
}

/*
 * The digest cache gives what the reports give: the same JSON as reading
 * every report, with every report unchanged taken from it; a report
 * changed in place (even with its mtime put back), or replaced, is read
 * again; an entry someone else wrote (its MAC wrong), one that does not
 * validate, one cut short, and a cache too large are reported and not used,
 * and the output is the same.
 */
static void test_cache(void **state)
{
	char *cache = xasprintf("%s/.history-cache", root), *p3 = xasprintf("%s/c03/report.json", root);
	char *plain, *with, *err;
	struct timespec times[2];
	struct stat st;
	size_t cached;
	char name[16];
	(void)state;

	for (int d = 1; d <= 6; d++) {
		snprintf(name, sizeof(name), "c%02d", d);
		session(name, d, "hostD", "1", "mm: cache", d <= 3 ? 100 : 200, 6, d == 2, NULL);
	}
	/* Older than the cache by more than a clock tick: not racy (history.c). */
	usleep(30000);
	plain = history_json(NULL, NULL);
	with = history_json(cache, &cached);
	assert_int_equal(cached, 0);
	assert_string_equal(with, plain);
	assert_true(is_regular_file(cache));
	free(with);
	with = history_json(cache, &cached);
	assert_int_equal(cached, 6);
	assert_string_equal(with, plain);
	free(with);
	free(plain);

	/* Changed in place, mtime put back: same inode, size and mtime. */
	assert_int_equal(stat(p3, &st), 0);
	patch_in_place(p3, "\"cs\":100", "\"cs\":900");
	times[0] = st.st_atim;
	times[1] = st.st_mtim;
	assert_int_equal(utimensat(AT_FDCWD, p3, times, 0), 0);
	usleep(30000);
	plain = history_json(NULL, NULL);
	assert_non_null(strstr(plain, "900"));
	with = history_json(cache, &cached);
	assert_int_equal(cached, 5);
	assert_string_equal(with, plain);
	free(with);
	free(plain);

	/* Replaced (a new file): read again. */
	session("c05", 5, "hostD", "1", "mm: cache", 300, 6, 0, NULL);
	usleep(30000);
	plain = history_json(NULL, NULL);
	with = history_json(cache, &cached);
	assert_int_equal(cached, 5);
	assert_string_equal(with, plain);
	free(with);

	/*
	 * Forged: one value of c01 changed, and whatever checksum anyone can
	 * compute put right (here: none; the MAC is the one written): that
	 * entry is not used, with one warning naming the cache and the
	 * report, and the output is that of no cache at all.
	 */
	patch_in_place(cache, "\"100 101", "\"900 101");
	capture_begin();
	with = history_json(cache, &cached);
	err = capture_end();
	assert_non_null(strstr(err, cache));
	assert_non_null(strstr(err, ": 1 entry not used (the first, for "));
	assert_non_null(strstr(err, "c01/report.json: does not match its MAC"));
	assert_int_equal(cached, 5);
	assert_string_equal(with, plain);
	free(with);
	free(err);

	/* The cache was written again: all six from it, nothing said. */
	capture_begin();
	with = history_json(cache, &cached);
	err = capture_end();
	assert_string_equal(err, "");
	assert_int_equal(cached, 6);
	assert_string_equal(with, plain);
	free(with);
	free(err);

	/* An entry whose MAC is right (this user's key) but whose digest does not validate. */
	reseal(cache, "\"100 101", "\"1x0");
	capture_begin();
	with = history_json(cache, &cached);
	err = capture_end();
	assert_non_null(strstr(err, "1 entry not used (the first, for "));
	assert_non_null(strstr(err, "c01/report.json: its digest does not validate); its report is "
				    "read instead"));
	assert_int_equal(cached, 5);
	assert_string_equal(with, plain);
	free(with);
	free(err);

	/* Truncated inside an entry: the entries before it are used, the cut one is not. */
	{
		struct strbuf sb = STRBUF_INIT;

		assert_int_equal(read_file(cache, &sb, 0), 0);
		assert_int_equal(truncate(cache, (off_t)sb.len - 20), 0);
		sb_release(&sb);
	}
	capture_begin();
	with = history_json(cache, &cached);
	err = capture_end();
	assert_non_null(strstr(err, "1 entry not used (the first, for line 8: truncated"));
	assert_int_equal(cached, 5);
	assert_string_equal(with, plain);
	free(with);
	free(err);

	/* Larger than any cache the lab writes (sparse: nothing is read). */
	assert_int_equal(truncate(cache, (off_t)3 << 30), 0);
	capture_begin();
	with = history_json(cache, &cached);
	err = capture_end();
	assert_non_null(strstr(err, "larger than the lab ever writes"));
	assert_int_equal(cached, 0);
	assert_string_equal(with, plain);
	free(with);
	free(err);
	free(plain);
	free(cache);
	free(p3);
}

/*
 * The key: made on first use, private (0600 in a 0700 folder); one that
 * others can read is not used (nothing sealed is trusted or written, and
 * the output stays that of the reports); a cache written with another
 * key (another user, another machine) is said and not used.
 */
static void test_key(void **state)
{
	char *cache = xasprintf("%s/.history-cache", root), *kp = history_key_path(), *plain, *with;
	char *err;
	struct stat st;
	size_t cached;
	(void)state;

	for (int d = 1; d <= 4; d++) {
		char name[16];

		snprintf(name, sizeof(name), "k%02d", d);
		session(name, d, "hostK", "1", "mm: key", 100, 6, 0, NULL);
	}
	usleep(30000);
	plain = history_json(NULL, NULL);
	with = history_json(cache, &cached);
	assert_string_equal(with, plain);
	free(with);
	assert_int_equal(stat(kp, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(st.st_size, HISTORY_KEY_LEN);

	/* Readable by others: not used, said with the file and what is expected. */
	assert_int_equal(chmod(kp, 0644), 0);
	/* history_key() keeps what it read per key path: another path makes it look again. */
	setenv("XDG_STATE_HOME", key_home_alt, 1);
	assert_non_null(history_key());
	setenv("XDG_STATE_HOME", key_home, 1);
	capture_begin();
	with = history_json(cache, &cached);
	err = capture_end();
	assert_non_null(strstr(err, kp));
	assert_non_null(strstr(err, "readable or writable by other users (expected this user's file"));
	assert_int_equal(cached, 0);
	assert_string_equal(with, plain);
	free(with);
	free(err);
	assert_int_equal(chmod(kp, 0600), 0);

	/* In a folder others can write (they could have put their own key there): the same. */
	{
		char *dir = path_dirname(kp);

		assert_int_equal(chmod(dir, 0777), 0);
		setenv("XDG_STATE_HOME", key_home_alt, 1);
		assert_non_null(history_key());
		setenv("XDG_STATE_HOME", key_home, 1);
		capture_begin();
		with = history_json(cache, &cached);
		err = capture_end();
		assert_non_null(strstr(err, "history.key: its folder is writable by other users"));
		assert_int_equal(cached, 0);
		assert_string_equal(with, plain);
		free(with);
		free(err);
		assert_int_equal(chmod(dir, 0700), 0);
		free(dir);
	}

	/* Another key (another user's, or another machine's): said, not used, written again. */
	setenv("XDG_STATE_HOME", key_home_alt, 1);
	capture_begin();
	with = history_json(cache, &cached);
	err = capture_end();
	assert_non_null(strstr(err, "written with another key than"));
	assert_non_null(strstr(err, cache));
	assert_int_equal(cached, 0);
	assert_string_equal(with, plain);
	free(with);
	free(err);
	with = history_json(cache, &cached);
	assert_int_equal(cached, 4);
	free(with);
	setenv("XDG_STATE_HOME", key_home, 1);
	free(plain);
	free(cache);
	free(kp);
}

/* The change points of @h: (series, night, kind) as text, to compare two analyses. */
static char *cps_of(const struct history *h)
{
	struct strbuf sb = STRBUF_INIT;

	for (size_t i = 0; i < h->nseries; i++)
		for (size_t j = 0; j < h->series[i].ncp; j++)
			sb_addf(&sb, "%s@%zu:%s ", h->series[i].metric, h->series[i].cps[j].at,
				h->series[i].cps[j].kind);
	return sb_detach(&sb);
}

/* Build with @state, and what was said; the change points into *@cps. */
static char *build_said(struct history *h, const json_t *state, char **cps)
{
	capture_begin();
	build(h, 0, state);
	*cps = cps_of(h);
	return capture_end();
}

/*
 * A state that disagrees with the reports is not used for that series,
 * with one warning naming the file (here: none, it is in memory) and the
 * field, and the change points are those of no state: a night index or p
 * value out of range, of the wrong type, repeated; session ids that are
 * not strings; runs that are not those the change points were found in.
 */
static void test_state_checks(void **state)
{
	struct history h;
	json_t *st, *bad, *series;
	char *want, *got, *err, name[16];
	static const char *const forged[][2] = {
		{ "confirmed", "[{\"at\": 9223372036854775807, \"p\": 0.001}]" },
		{ "confirmed", "[{\"at\": 10, \"p\": 1e300}]" },
		{ "confirmed", "[{\"at\": \"10\", \"p\": 0.001}]" },
		{ "confirmed", "[{\"at\": 10.0, \"p\": 0.001}]" },
		{ "confirmed", "[{\"at\": 12, \"p\": 0.001}, {\"at\": 12, \"p\": 0.001}]" },
		{ "confirmed", "{\"at\": 10}" },
		{ "confirmed", "[{\"at\": 10, \"p\": 0.001, \"gross\": 3}]" },
		{ "confirmed", "[{\"at\": 10, \"p\": 0.001, \"gross\": \"big\"}]" },
		{ "sessions", "[1, 2]" },
		{ "sessions", "[]" },
		{ "values", "[]" },
	};
	static const char *const field[] = {
		"confirmed[0].at: expected a night from 1 to 18, after the one before",
		"confirmed[0].p: expected a p value above 0, at most 1",
		"confirmed[0].at", "confirmed[0].at", "confirmed[1].at",
		"expected sessions, values and confirmed",
		"confirmed[0].gross: expected none, or a ratio of at least 20",
		"confirmed[0].gross: expected none, or a ratio of at least 20",
		"sessions[0]: expected a session id",
		"confirmed[0]: expected none over 0 nights", "expected sessions, values and confirmed",
	};
	(void)state;

	for (int d = 1; d <= 19; d++) {
		snprintf(name, sizeof(name), "t%02d", d);
		session(name, d, "hostS", "1", "mm: st", d <= 10 ? 1000 : 900, 8, 0, NULL);
	}
	build(&h, 0, NULL);
	want = cps_of(&h);
	assert_string_equal(want, "cs@10:regression ");
	st = history_state_json(&h);
	history_release(&h);
	series = json_object_get(st, "series");
	assert_int_equal(json_object_size(series), 1);

	for (size_t i = 0; i < ARRAY_SIZE(forged); i++) {
		const char *key = json_object_iter_key(json_object_iter(series));
		json_error_t e;

		bad = json_deep_copy(st);
		json_object_set_new(json_object_get(json_object_get(bad, "series"), key), forged[i][0],
				    json_loads(forged[i][1], JSON_DECODE_ANY, &e));
		err = build_said(&h, bad, &got);
		assert_non_null(strstr(err, "the history state: the state of 1 series not used "
					    "(the first, "));
		assert_non_null(strstr(err, field[i]));
		assert_non_null(strstr(err, "); it was searched from its first night"));
		assert_false(h.series[0].resumed);
		assert_string_equal(got, want);
		history_release(&h);
		free(err);
		free(got);
		json_decref(bad);
	}

	/* The state as written resumes, silently. */
	err = build_said(&h, st, &got);
	assert_string_equal(err, "");
	assert_true(h.series[0].resumed);
	assert_string_equal(got, want);
	history_release(&h);
	free(err);
	free(got);

	/* A report of the past replaced by other runs, same session id: not resumed. */
	session("t05", 5, "hostS", "1", "mm: st", 1001, 8, 0, NULL);
	err = build_said(&h, st, &got);
	assert_non_null(strstr(err, "values: the runs of its first 19 nights are not those its "
				    "change points were found in (a report changed)"));
	assert_false(h.series[0].resumed);
	assert_string_equal(got, want);
	history_release(&h);
	free(err);
	free(got);
	json_decref(st);
	free(want);
}

/*
 * The state file as history writes and reads it: a series whose line was
 * edited (its confirmed change point moved after the real regression,
 * which then went unsearched and unreported while the invented one was)
 * is not resumed, with a warning naming the file and the series; the
 * change points are those of no state. A truncated or planted file is
 * ignored with a warning.
 */
static void test_state_file(void **state)
{
	struct history h;
	char *path = xasprintf("%s.state", root), *want, *got, *err, name[16];
	(void)state;

	for (int d = 1; d <= 19; d++) {
		snprintf(name, sizeof(name), "f%02d", d);
		session(name, d, "hostF", "1", "mm: sf", d <= 10 ? 1000 : 900, 8, 0, NULL);
	}
	build(&h, 0, NULL);
	want = cps_of(&h);
	assert_string_equal(want, "cs@10:regression ");
	assert_int_equal(history_state_save(&h, path), 0);
	history_release(&h);

	/* Read back: resumed, nothing said. */
	{
		struct history_opts o;
		json_t *st;

		history_opts_default(&o);
		history_init(&h, &o);
		capture_begin();
		st = history_state_load(&h, path);
		assert_int_equal(history_add_dir(&h, root), 0);
		history_build(&h, st);
		err = capture_end();
		assert_string_equal(err, "");
		assert_true(h.series[0].resumed);
		got = cps_of(&h);
		assert_string_equal(got, want);
		history_release(&h);
		json_decref(st);
		free(err);
		free(got);
	}

	/* Edited: the confirmed change point at 10 moved to 16. */
	patch_in_place(path, "\"confirmed\":[{\"at\":10,", "\"confirmed\":[{\"at\":16,");
	{
		struct history_opts o;
		json_t *st;

		history_opts_default(&o);
		history_init(&h, &o);
		capture_begin();
		st = history_state_load(&h, path);
		assert_int_equal(history_add_dir(&h, root), 0);
		history_build(&h, st);
		err = capture_end();
		assert_non_null(strstr(err, path));
		assert_non_null(strstr(err, "the state of 1 series not used (the first, "));
		assert_non_null(strstr(err, " / next + mm: sf / yield / cs: sessions, values and confirmed: does not match its MAC"));
		assert_false(h.series[0].resumed);
		got = cps_of(&h);
		assert_string_equal(got, want);
		history_release(&h);
		json_decref(st);
		free(err);
		free(got);
	}

	/* Truncated in its first line, and a planted plain JSON state: ignored, said. */
	assert_int_equal(truncate(path, 10), 0);
	{
		struct history_opts o;
		json_t *st;

		history_opts_default(&o);
		history_init(&h, &o);
		capture_begin();
		st = history_state_load(&h, path);
		err = capture_end();
		assert_null(st);
		assert_non_null(strstr(err, "line 1: expected 'mglrulab-history-state/2' and a key id; "
					    "searching every series from its first night"));
		history_release(&h);
		free(err);
	}
	free(want);
	free(path);
}

/*
 * history's gate (history_gate.c): a night whose runs all failed fails
 * --fail-on invalid and stricter as the lab failing (no run of that
 * session succeeded): exit 2, a JUnit <error>; --fail-on none lets it
 * pass. history had no such gate: it exited 0 on any night that failed.
 */
static void test_gate_failed_night(void **state)
{
	struct history h;
	struct strbuf why = STRBUF_INIT, xml = STRBUF_INIT;
	char name[16];
	(void)state;

	for (int d = 1; d <= 6; d++) {
		snprintf(name, sizeof(name), "g%02d", d);
		session(name, d, "hostG", "1", "mm: x", 1000, 8, d == 6 ? 8 : 0, NULL);
	}
	build(&h, 1, NULL);
	assert_int_equal(history_gate_status(&h, FAIL_ON_REGRESSION, &why), LAB_ELAB);
	assert_non_null(strstr(sb_str(&why), "next / yield / cs: invalid: no run of tonight's "
					     "session succeeded"));
	assert_int_equal(history_gate_status(&h, FAIL_ON_INVALID, &why), LAB_ELAB);
	sb_reset(&why);
	assert_int_equal(history_gate_status(&h, FAIL_ON_NONE, &why), LAB_OK);
	assert_int_equal(why.len, 0);
	history_render_junit(&h, FAIL_ON_REGRESSION, 1.5, &xml);
	assert_non_null(strstr(sb_str(&xml), "<testsuite name=\"mglrulab.history\" tests=\"1\" "
					     "failures=\"0\" errors=\"1\" skipped=\"0\" "
					     "timestamp=\"2026-11-06T01:00:00\" hostname=\"hostG\" "
					     "time=\"1.50\">"));
	assert_non_null(strstr(sb_str(&xml), "<error type=\"lab-failed\""));
	history_release(&h);
	sb_release(&why);
	sb_release(&xml);
}

/* Occurrences of @what in @s. */
static int count_of(const char *s, const char *what)
{
	int n = 0;

	for (const char *p = strstr(s, what); p; p = strstr(p + 1, what))
		n++;
	return n;
}

/*
 * The HTML trend a maintainer reads: it labelled only the first and the
 * last night, had no unit on the value axis, and no night linked to its
 * report. Now: dates on several ticks, the unit, a link per night that has
 * a report.html (relative to the page, escaped), and none for one without.
 */
static void test_html_trend(void **state)
{
	struct history_opts o;
	struct history h;
	struct strbuf sb = STRBUF_INIT;
	char name[32], *page = xasprintf("%s/history.html", root), *html;
	(void)state;

	for (int d = 1; d <= 12; d++) {
		snprintf(name, sizeof(name), d == 5 ? "n&%02d" : "n%02d", d);
		session(name, d, "hostH", "1", "mm: t", 1000 + d % 3, 8, 0, NULL);
		html = xasprintf("%s/%s/report.html", root, name);
		/* Night 7 has no report.html: nothing to link. */
		if (d != 7)
			assert_int_equal(write_file_atomic(html, "<html>", 6), 0);
		free(html);
	}
	history_opts_default(&o);
	history_init(&h, &o);
	assert_int_equal(history_add_dir(&h, root), 0);
	history_build(&h, NULL);
	history_render_html(&h, page, &sb);
	const char *s = sb_str(&sb);
	/* Ticks: six of the twelve dates, not only the first and the last. */
	assert_int_equal(count_of(s, ">2026-11-"), 6);
	assert_non_null(strstr(s, ">2026-11-01<"));
	assert_non_null(strstr(s, ">2026-11-12<"));
	/* The unit along the value axis, and round values on it. */
	assert_non_null(strstr(s, "class=\"ax unit\""));
	assert_non_null(strstr(s, ">1/s</text>"));
	assert_true(count_of(s, "<line class=\"axl\"") >= 3 + 6);
	/* A link per night with a report (its column and its median), relative, escaped. */
	assert_int_equal(count_of(s, "href=\"./n01/report.html\""), 2);
	assert_int_equal(count_of(s, "href=\"./n12/report.html\""), 2);
	/* Percent-encoded: a '&', '#' or '?' in a folder's name stays in the path. */
	assert_int_equal(count_of(s, "href=\"./n%2605/report.html\""), 2);
	assert_int_equal(count_of(s, "n07/report.html"), 0);
	assert_int_equal(count_of(s, "<rect class=\"hit\""), 11);
	assert_null(strstr(s, "n&05"));
	/* Only primaries: no empty "Other metrics" section. */
	assert_null(strstr(s, "Other metrics"));
	history_release(&h);
	sb_release(&sb);
	free(page);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_gate_failed_night, setup, teardown),
		cmocka_unit_test_setup_teardown(test_series_and_skips, setup, teardown),
		cmocka_unit_test_setup_teardown(test_gross_step_kept, setup, teardown),
		cmocka_unit_test_setup_teardown(test_incremental, setup, teardown),
		cmocka_unit_test_setup_teardown(test_change_point_diff, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cache, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bisection_steps_are_not_nights, setup, teardown),
		cmocka_unit_test_setup_teardown(test_key, setup, teardown),
		cmocka_unit_test_setup_teardown(test_state_checks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_state_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_html_trend, setup, teardown),
		cmocka_unit_test_setup_teardown(test_html_no_empty_other, setup, teardown),
	};

	int r;

	if (!mkdtemp(key_home) || !mkdtemp(key_home_alt))
		return 1;
	setenv("XDG_STATE_HOME", key_home, 1);
	r = cmocka_run_group_tests(tests, NULL, NULL);
	rm_rf(key_home);
	rm_rf(key_home_alt);
	return r;
}
