// SPDX-License-Identifier: GPL-2.0
/* lab.conf parser: valid files and every error path, with exact messages. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "fsutil.h"
#include "test_config_fixture.h"
#include "stats.h"
#include "watch_disk.h"

static int setup(void **state)
{
	(void)state;
	strcpy(tmpdir, "/tmp/mglrulab-test-config-XXXXXX");
	assert_non_null(mkdtemp(tmpdir));
	/* Files the configs below refer to. */
	char *p = xasprintf("%s/src.tar.xz", tmpdir);
	assert_int_equal(write_file_atomic(p, "x", 1), 0);
	free(p);
	p = xasprintf("%s/frag.config", tmpdir);
	assert_int_equal(write_file_atomic(p, "CONFIG_NUMA=y\n", 14), 0);
	free(p);
	p = xasprintf("%s/a.mbox", tmpdir);
	assert_int_equal(write_file_atomic(p, "x", 1), 0);
	free(p);
	p = xasprintf("%s/guests", tmpdir);
	assert_int_equal(mkdir_p(p, 0755), 0);
	free(p);
	p = xasprintf("%s/guests/tiny.conf", tmpdir);
	assert_int_equal(write_file_atomic(p, "", 0), 0);
	free(p);
	return 0;
}

#define GOOD_KERNELS \
	"[kernel baseline]\nsource = src.tar.xz\nfragments = frag.config\n" \
	"[kernel patched]\nfrom = baseline\nseries = a.mbox\n"

static void test_valid(void **state)
{
	struct lab_config cfg;
	int status;
	(void)state;
	char *err = load("# comment\n[lab]\njobs = 3\naccel = tcg ; inline comment\n"
			 GOOD_KERNELS
			 "[workload ys]\ntype = yield_pingpong\nmm = private\ncpus = 1,2,4\n"
			 "[run]\nkernels = baseline patched\nworkloads = ys mglru_aging\n"
			 "runs = 7\nseed = 42\ncoherence = all\ncoherence_ns_remote = 140\n"
			 "[stats]\nthreshold = 2%\nalpha = 0.01\n",
			 &cfg, &status);

	assert_string_equal(err, "");
	assert_int_equal(status, LAB_OK);
	assert_int_equal(cfg.jobs, 3);
	assert_string_equal(cfg.accel, "tcg");
	assert_int_equal(cfg.nr_kernels, 2);
	/* patched inherits source and fragments, adds its series */
	const struct kernel_cfg *p = config_kernel(&cfg, "patched");
	assert_non_null(p);
	char *src = xasprintf("%s/src.tar.xz", tmpdir);
	assert_string_equal(p->source, src);
	free(src);
	assert_int_equal(p->fragments.n, 1);
	assert_int_equal(p->series.n, 1);
	assert_int_equal(config_kernel(&cfg, "baseline")->series.n, 0);
	assert_string_equal(p->config, "tinyconfig");
	const struct workload_cfg *w = config_workload(&cfg, "ys");
	assert_non_null(w);
	assert_string_equal(workload_cfg_value(w, "mm"), "private");
	assert_string_equal(workload_cfg_value(w, "duration"), "2");	/* default */
	assert_non_null(config_workload(&cfg, "mglru_aging"));		/* bare type */
	assert_int_equal(cfg.run.runs, 7);
	assert_int_equal(cfg.run.seed, 42);
	assert_int_equal(cfg.run.coherence, RUN_ATTRIBUTE_ALL);
	assert_int_equal(cfg.run.coherence_ns_node, CONFIG_COH_NS_NODE);	/* default */
	assert_int_equal(cfg.run.coherence_ns_remote, 140);
	assert_int_equal(cfg.run.partners, RUN_PARTNERS_BALANCED);	/* default */
	assert_true(cfg.stats.threshold > 0.0199 && cfg.stats.threshold < 0.0201);
	assert_string_equal(cfg.run.guest, "tiny");
	char *cache = xasprintf("%s/kernels/cache", tmpdir);
	if (!getenv("MGLRULAB_CACHE_DIR"))
		assert_string_equal(cfg.cache_dir, cache);
	free(cache);
	free(err);
	config_release(&cfg);
}

/*
 * The kernel `mglrulab watch` builds for a posted series: its baseline's
 * inputs, the baseline's own series first (a fix the lab carries), then
 * the mail's, built in the shared "watch" folder.
 */
static void test_kernel_with_series(void **state)
{
	struct lab_config cfg;
	struct strbuf err = STRBUF_INIT;
	int status;
	(void)state;
	char *e = load("[lab]\n" GOOD_KERNELS "[run]\nkernels = baseline patched\n", &cfg, &status);

	assert_string_equal(e, "");
	const struct kernel_cfg *k = config_kernel_with_series(&cfg, "patched", "watch-7",
								"/x/series.mbox", &err);
	assert_non_null(k);
	assert_int_equal(k->series.n, 2);
	assert_non_null(strstr(k->series.v[0], "/a.mbox"));
	assert_string_equal(k->series.v[1], "/x/series.mbox");
	assert_string_equal(k->build_name, "watch");
	assert_int_equal(k->fragments.n, 1);
	k = config_kernel_with_series(&cfg, "baseline", "watch-8", "/x/s8.mbox", &err);
	assert_non_null(k);
	assert_int_equal(k->series.n, 1);
	/* a name lab.conf has, and a baseline it has not: refused, saying which */
	assert_null(config_kernel_with_series(&cfg, "baseline", "watch-8", "/x/s.mbox", &err));
	assert_non_null(strstr(sb_str(&err), "[kernel watch-8] is in"));
	sb_reset(&err);
	assert_null(config_kernel_with_series(&cfg, "nosuch", "watch-9", "/x/s.mbox", &err));
	assert_non_null(strstr(sb_str(&err), "no [kernel nosuch] in"));
	sb_release(&err);
	free(e);
	config_release(&cfg);
}

/*
 * A lab.conf without [stats] and a report analysed without the session's
 * settings must use the same numbers: the seed once differed (1 here,
 * "mglrulab" in stats_settings_default()).
 */
static void test_stats_defaults_agree(void **state)
{
	struct lab_config cfg;
	struct stats_settings s;
	int status;
	(void)state;
	char *err = load(GOOD_KERNELS, &cfg, &status);

	assert_string_equal(err, "");
	stats_settings_default(&s);
	assert_true(cfg.stats.alpha == s.alpha);
	assert_true(cfg.stats.confidence == s.confidence);
	assert_true(cfg.stats.threshold == s.threshold);
	assert_true(cfg.stats.max_failed == s.max_failed_fraction);
	assert_int_equal(cfg.stats.resamples, s.resamples);
	assert_int_equal(cfg.run.seed, s.seed);
	free(err);
	config_release(&cfg);
}

static void test_unknown_key_suggests(void **state)
{
	(void)state;
	expect_error("[lab]\njbos = 2\n" GOOD_KERNELS, "2: [lab] unknown key 'jbos' (did you mean 'jobs'?)");
	expect_error("[lab]\nfrobnicate = 2\n" GOOD_KERNELS,
		     "2: [lab] unknown key 'frobnicate' (expected one of: state_dir, cache_dir, "
		     "reports_dir, uri, accel, jobs, ccache, build_user, build_timeout, build_memory)");
}

static void test_unknown_section(void **state)
{
	(void)state;
	expect_error(GOOD_KERNELS "\n[kernal foo]\nsource = x\n",
		     "8: unknown section [kernal foo] (expected [lab], [kernel NAME], [guest NAME], "
		     "[workload NAME], [host NAME], [run], [stats], [report], [watch] or [claim])");
	expect_error(GOOD_KERNELS "[kernel]\n",
		     "7: [kernel] needs a name of letters, digits, '-', '_' or '.' (e.g. [kernel baseline])");
}

/*
 * [report]: the reply mail's sender, recipients and the reports' address.
 * A value that would reach a mail header or link unchecked is refused at
 * its line (guards the keys added with `report --mail`).
 */
static void test_report_section(void **state)
{
	struct lab_config cfg;
	int status;
	(void)state;
	char *err = load("[report]\nmail_from = Lab <lab@example.org>\n"
			 "mail_to = linux-mm@kvack.org\nbase_url = https://example.org/r\n"
			 GOOD_KERNELS, &cfg, &status);

	assert_string_equal(err, "");
	assert_string_equal(cfg.report.mail_from, "Lab <lab@example.org>");
	assert_string_equal(cfg.report.mail_to, "linux-mm@kvack.org");
	assert_null(cfg.report.mail_cc);
	assert_string_equal(cfg.report.base_url, "https://example.org/r");
	free(err);
	config_release(&cfg);
	expect_error("[report]\nbase_url = ftp://example.org/\n" GOOD_KERNELS,
		     "2: [report] base_url: expected an http:// or https:// URL without spaces "
		     "or quotes, not 'ftp://example.org/'");
	expect_error("[report]\nbase_url = https://example.org/a b\n" GOOD_KERNELS,
		     "2: [report] base_url: expected an http:// or https:// URL without spaces "
		     "or quotes, not 'https://example.org/a b'");
	expect_error("[report]\nbase_url = https://x/\"><script>\n" GOOD_KERNELS,
		     "2: [report] base_url: expected an http:// or https:// URL without spaces "
		     "or quotes, not 'https://x/\"><script>'");
	expect_error("[report]\nmail_from = nobody\n" GOOD_KERNELS,
		     "2: [report] mail_from: expected a mail address: user@example.org or "
		     "Name <user@example.org>, the name in UTF-8, the address in ASCII, "
		     "not 'nobody'");
	expect_error("[report]\nmail_bcc = a@b\n" GOOD_KERNELS,
		     "2: [report] unknown key 'mail_bcc' (did you mean 'mail_cc'?)");
}

/*
 * [claim] (issue 50): the effect a series claims, what its answer is read
 * against; errors with file, line and what was expected, as every key's.
 */
static void test_claim_section(void **state)
{
	struct lab_config cfg;
	int status;
	(void)state;
	char *err = load(GOOD_KERNELS "[workload ys]\ntype = yield_pingpong\nmm = shared\n"
			 "[claim]\nworkload = ys\nmetric = cs_per_sec_per_cpu_%dcpu\n"
			 "direction = higher\nsize = 2.3%\nmechanism = cache-lines\n"
			 "source = seed 000, on hardware\n", &cfg, &status);

	assert_string_equal(err, "");
	assert_int_equal(cfg.claim.line, 10);
	assert_string_equal(cfg.claim.workload, "ys");
	assert_string_equal(cfg.claim.direction, "higher");
	assert_true(cfg.claim.size > 0.0229 && cfg.claim.size < 0.0231);
	assert_string_equal(cfg.claim.mechanism, "cache-lines");
	free(err);
	config_release(&cfg);
	/* no [claim]: no claim, its size "not said" */
	err = load(GOOD_KERNELS, &cfg, &status);
	assert_int_equal(cfg.claim.line, 0);
	assert_true(cfg.claim.size < 0);
	free(err);
	config_release(&cfg);
	expect_error(GOOD_KERNELS "[claim]\nmechanism = caches\ndirection = higher\n",
		     "8: [claim] mechanism: expected one of instructions|cache-lines|"
		     "memory-latency|wall-clock, not 'caches'");
	expect_error(GOOD_KERNELS "[claim]\ndirection = higher\n",
		     "7: [claim] needs mechanism = instructions|cache-lines|memory-latency|"
		     "wall-clock: what the claimed effect goes through, which decides the guests "
		     "that can test it");
	expect_error(GOOD_KERNELS "[claim]\nmechanism = instructions\ndirection = higher\n"
		     "workload = nope\n", "10: [claim] workload: no [workload nope] in this file");
	expect_error(GOOD_KERNELS "[claim]\nmechanism = instructions\ndirection = up\n",
		     "9: [claim] direction: expected one of higher|lower, not 'up'");
}

/*
 * [watch] disk_budget: a size with K, M, G or T, or 0 or off (no budget);
 * unset, the default (watch_disk_budget()); anything else a FILE:LINE
 * error that says what is expected.
 */
static void test_watch_disk_budget(void **state)
{
	static const struct { const char *value; unsigned long long bytes; } good[] = {
		{ "40G", 40ULL << 30 }, { "512M", 512ULL << 20 }, { "2T", 2ULL << 40 },
		{ "1048576", 1ULL << 20 }, { "0", 0 }, { "off", 0 },
	};
	struct lab_config cfg;
	int status;
	(void)state;

	for (size_t i = 0; i < ARRAY_SIZE(good); i++) {
		char *text = xasprintf(GOOD_KERNELS "[watch]\ndisk_budget = %s\n", good[i].value);
		char *err = load(text, &cfg, &status);

		assert_string_equal(err, "");
		assert_true(cfg.watch.disk_budget_set);
		assert_true(cfg.watch.disk_budget == good[i].bytes);
		assert_true(watch_disk_budget(&cfg) == good[i].bytes);
		free(err);
		free(text);
		config_release(&cfg);
	}
	char *err = load(GOOD_KERNELS "[watch]\ngrace = 2d\n", &cfg, &status);

	assert_string_equal(err, "");
	assert_false(cfg.watch.disk_budget_set);
	assert_true(watch_disk_budget(&cfg) == WATCH_DISK_BUDGET_DEFAULT);
	free(err);
	config_release(&cfg);
	expect_error(GOOD_KERNELS "[watch]\ndisk_budget = 40GB\n",
		     "8: [watch] disk_budget: expected a size with a K, M, G or T suffix (40G), or "
		     "0 or off, not '40GB'");
	expect_error(GOOD_KERNELS "[watch]\ndisk_budget = max\n",
		     "8: [watch] disk_budget: expected a size with a K, M, G or T suffix (40G), or "
		     "0 or off, not 'max'");
	expect_error(GOOD_KERNELS "[watch]\ndisk_budget = -1G\n",
		     "8: [watch] disk_budget: expected a size with a K, M, G or T suffix (40G), or "
		     "0 or off, not '-1G'");
}

static void test_bad_values(void **state)
{
	(void)state;
	expect_error("[lab]\njobs = many\n" GOOD_KERNELS,
		     "2: [lab] jobs: expected an integer from 0 to 4096, not 'many'");
	expect_error("[lab]\naccel = hvf\n" GOOD_KERNELS,
		     "2: [lab] accel: expected one of auto|kvm|tcg, not 'hvf'");
	expect_error(GOOD_KERNELS "[run]\nruns = 0\n",
		     "8: [run] runs: expected an integer from 1 to 10000, not '0'");
	expect_error(GOOD_KERNELS "[stats]\nthreshold = 150%\n",
		     "8: [stats] threshold: expected a fraction from 0 to 1 (0.05) or a percentage (5%), not '150%'");
	/* The analysis's own limit (STATS_MAX_RESAMPLES), not a larger one it would ignore. */
	expect_error(GOOD_KERNELS "[stats]\nresamples = 2000000\n",
		     "8: [stats] resamples: expected an integer from 100 to 1000000, not '2000000'");
	expect_error(GOOD_KERNELS "[run]\ncoherence = some\n",
		     "8: [run] coherence: 'some' is not one of [run] workloads (off, changed, all, "
		     "or names of [run] workloads)");
	expect_error(GOOD_KERNELS "[run]\ncoherence_ns_node = 0\n",
		     "8: [run] coherence_ns_node: expected an integer from 1 to 100000, not '0'");
	/* issue 49: how a host's slots share their runs */
	expect_error(GOOD_KERNELS "[run]\npartners = paired\n",
		     "8: [run] partners: expected one of balanced|free, not 'paired'");
	expect_error(GOOD_KERNELS "[run]\nseed = -1\n",
		     "8: [run] seed: expected a non-negative integer, not '-1'");
}

/* "grace = 2d" is what lab.conf's comment and docs/watch.md show: accepted. */
static void test_watch_grace_days(void **state)
{
	struct lab_config cfg;
	int status;
	(void)state;
	char *err = load(GOOD_KERNELS "[watch]\ngrace = 2d\n", &cfg, &status);

	assert_string_equal(err, "");
	assert_true(cfg.watch.grace_s == 2 * 86400.0);
	free(err);
	config_release(&cfg);
}

static void test_duplicate_key(void **state)
{
	(void)state;
	expect_error("[lab]\njobs = 1\n\njobs = 2\n" GOOD_KERNELS,
		     "4: [lab] jobs: already set at line 2");
}

static void test_workload_params(void **state)
{
	(void)state;
	expect_error(GOOD_KERNELS "[workload yield_pingpong]\nmm = both\n",
		     "8: [workload yield_pingpong] mm: expected one of shared|private, not 'both'");
	expect_error(GOOD_KERNELS "[workload yield_pingpong]\ncpus = 1,x\n",
		     "8: [workload yield_pingpong] cpus: expected a comma-separated list of integers "
		     "from 1 to 4096, not '1,x'");
	expect_error(GOOD_KERNELS "[workload yield_pingpong]\ndurration = 3\n",
		     "8: [workload yield_pingpong] unknown key 'durration' (did you mean 'duration'?)");
	expect_error(GOOD_KERNELS "[workload foo]\ntype = nosuch\n",
		     "8: [workload foo] type: expected one of yield_pingpong, will_it_scale, "
		     "numa_workload, kernel_build, mglru_aging, thp_scale, coh_calib, not 'nosuch'");
	expect_error(GOOD_KERNELS "[workload foo]\nmm = shared\n",
		     "8: [workload foo] 'foo' is not a known workload: set 'type = ' first");
	expect_error(GOOD_KERNELS "[workload kb]\ntype = kernel_build\nruns = 0\n",
		     "9: [workload kb] runs: expected an integer from 1 to 10000, not '0'");
	expect_error(GOOD_KERNELS "[workload kb]\ntype = kernel_build\nruns = 3x\n",
		     "9: [workload kb] runs: expected an integer from 1 to 10000, not '3x'");
}

/* runs = N in a [workload] section: that workload's repetitions, not a program argument. */
/* [run] partners = free: each slot its own blocks; config print and --json say which. */
static void test_run_partners(void **state)
{
	struct lab_config cfg;
	struct strbuf out = STRBUF_INIT;
	int status;
	(void)state;
	char *err = load(GOOD_KERNELS "[run]\npartners = free\n", &cfg, &status);

	assert_string_equal(err, "");
	assert_int_equal(cfg.run.partners, RUN_PARTNERS_FREE);
	assert_string_equal(config_partners_name(cfg.run.partners), "free");
	assert_int_equal(config_partners_parse("balanced"), RUN_PARTNERS_BALANCED);
	assert_int_equal(config_partners_parse("paired"), -1);
	config_print(&cfg, &out);
	assert_non_null(strstr(sb_str(&out), "\n  partners   free (each slot its own blocks)\n"));
	char *json = config_to_json(&cfg);
	assert_non_null(strstr(json, "\"partners\": \"free\""));
	free(json);
	sb_release(&out);
	free(err);
	config_release(&cfg);
}

static void test_workload_runs(void **state)
{
	struct lab_config cfg;
	int status;
	(void)state;

	char *err = load(GOOD_KERNELS "[workload kb]\nruns = 3\ntype = kernel_build\njobs = 2\n"
			 "[run]\nworkloads = kb yield_pingpong\nruns = 7\n", &cfg, &status);
	assert_string_equal(err, "");
	assert_int_equal(status, LAB_OK);
	const struct workload_cfg *w = config_workload(&cfg, "kb");
	assert_non_null(w);
	assert_int_equal(w->runs, 3);
	/* Not among the program's parameters. */
	for (size_t i = 0; i < w->keys.n; i++)
		assert_string_not_equal(w->keys.v[i], "runs");
	assert_int_equal(config_workload(&cfg, "yield_pingpong")->runs, 0);
	assert_int_equal(cfg.run.runs, 7);
	free(err);
	config_release(&cfg);
}

/* primary = and threshold = of a [workload]: checked names, a band, the definition's default. */
static void test_workload_primary(void **state)
{
	struct lab_config cfg;
	struct strvec prim = STRVEC_INIT;
	int status;
	(void)state;

	char *err = load(GOOD_KERNELS "[workload y]\ntype = yield_pingpong\n"
			 "primary = cs_per_sec_per_cpu_2cpu\nthreshold = 3%\n"
			 "[workload n]\ntype = numa_workload\nprimary =\n"
			 "[run]\nworkloads = y n will_it_scale\n", &cfg, &status);
	assert_string_equal(err, "");
	assert_int_equal(status, LAB_OK);
	workload_cfg_primaries(config_workload(&cfg, "y"), &prim);
	assert_int_equal(prim.n, 1);
	assert_string_equal(prim.v[0], "cs_per_sec_per_cpu_2cpu");
	assert_true(config_workload(&cfg, "y")->threshold > 0.0299 &&
		    config_workload(&cfg, "y")->threshold < 0.0301);
	strvec_clear(&prim);
	/* An empty primary = declares none. */
	workload_cfg_primaries(config_workload(&cfg, "n"), &prim);
	assert_int_equal(prim.n, 0);
	/* Unset: the definition's headline metric, and no band of its own. */
	workload_cfg_primaries(config_workload(&cfg, "will_it_scale"), &prim);
	assert_int_equal(prim.n, 1);
	assert_string_equal(prim.v[0], "ops_per_sec_hostadj");
	assert_true(config_workload(&cfg, "will_it_scale")->threshold < 0);
	strvec_clear(&prim);
	free(err);
	config_release(&cfg);

	expect_error(GOOD_KERNELS "[workload y]\ntype = yield_pingpong\nprimary = ops_per_sec\n"
		     "[run]\nworkloads = y\n",
		     "9: [workload y] primary: 'ops_per_sec' is not a metric of yield_pingpong "
		     "(expected one of cs_per_sec_per_cpu_%dcpu_hostadj, cs_per_sec_per_cpu_%dcpu, "
		     "cs_per_sec_per_cpu_%dcpu_mean; "
		     "%d stands for a CPU count or node)");
	expect_error(GOOD_KERNELS "[workload y]\ntype = yield_pingpong\nthreshold = 60%\n"
		     "[run]\nworkloads = y\n",
		     "9: [workload y] threshold: expected a noise band from 0 to 50% (0.03 or 3%), "
		     "not '60%'");
}

/*
 * A name that points at nothing is reported at the line that wrote it (not
 * the [run] header, which used to be all these errors named), with the
 * nearest declared name when it is a likely typo, and without one when no
 * name is close.
 */
static void test_cross_references(void **state)
{
	(void)state;
	expect_error(GOOD_KERNELS "[run]\nkernels = baseline nosuch\n",
		     "8: [run] kernels: no [kernel nosuch] section");
	expect_error(GOOD_KERNELS "[run]\nruns = 3\nkernels = baseline patchd\n",
		     "9: [run] kernels: no [kernel patchd] section (did you mean 'patched'?)");
	/* a list key over two lines: each name's own line */
	expect_error(GOOD_KERNELS "[run]\nkernels = baseline\nseed = 1\nkernels = pached\n",
		     "10: [run] kernels: no [kernel pached] section (did you mean 'patched'?)");
	expect_error(GOOD_KERNELS "[run]\nkernels = baseline\nkernels = baseline\n",
		     "9: [run] kernels: 'baseline' is listed twice");
	expect_error(GOOD_KERNELS "[run]\nworkloads = nosuch\n",
		     "8: [run] workloads: 'nosuch' is neither a [workload] section nor a known workload");
	expect_error(GOOD_KERNELS "[workload yp]\ntype = yield_pingpong\n[run]\nruns = 2\n"
		     "workloads = yp kernel-build\n",
		     "11: [run] workloads: 'kernel-build' is neither a [workload] section nor a known "
		     "workload (did you mean 'kernel_build'?)");
	expect_error(GOOD_KERNELS "[workload yp]\ntype = yield_pingpong\n[run]\nworkloads = yq\n",
		     "10: [run] workloads: 'yq' is neither a [workload] section nor a known "
		     "workload (did you mean 'yp'?)");
	expect_error(GOOD_KERNELS "[workload kernel-build]\njobs = 2\n[run]\nworkloads = kernel-build\n",
		     "7: [workload kernel-build] is not a known workload: set 'type = ' "
		     "(did you mean 'kernel_build'?)");
	expect_error(GOOD_KERNELS "[workload k]\ntype = kernel-build\n",
		     "8: [workload k] type: expected one of yield_pingpong, will_it_scale, "
		     "numa_workload, kernel_build, mglru_aging, thp_scale, coh_calib, not 'kernel-build' "
		     "(did you mean 'kernel_build'?)");
	expect_error("[kernel a]\nfrom = b\n[kernel b]\nfrom = a\n",
		     "2: [kernel a] from: 'from' chain loops back to itself");
	expect_error("[kernel a]\nfrom = zz\n", "2: [kernel a] from: no [kernel zz] section");
	expect_error("[kernel baseline]\nsource = src.tar.xz\n[kernel p]\nref = x\n"
		     "from = baselin\n",
		     "5: [kernel p] from: no [kernel baselin] section (did you mean 'baseline'?)");
	expect_error("[kernel a]\nconfig = tinyconfig\n",
		     "1: [kernel a] source: missing (a directory, a .tar.* archive or a git repository)");
	char *msg = xasprintf("8: [run] guest: no [guest huge] section and no %s/guests/huge.conf",
			      tmpdir);
	expect_error(GOOD_KERNELS "[run]\nguest = huge\n", msg);
	free(msg);
	/* guests/tiny.conf is a guest lab.conf can name, section or not */
	msg = xasprintf("9: [run] guest: no [guest tinny] section and no %s/guests/tinny.conf "
			"(did you mean 'tiny'?)", tmpdir);
	expect_error(GOOD_KERNELS "[run]\nruns = 2\nguest = tinny\n", msg);
	free(msg);
}

/*
 * A value the guest program would refuse is refused by `config check`, at
 * its line, with the form the guest accepts: memory_max = 160MB used to
 * pass here and fail only in the guest, minutes into a session.
 */
static void test_guest_values(void **state)
{
	(void)state;
	expect_error(GOOD_KERNELS "[workload kb]\ntype = kernel_build\njobs = 2\n"
		     "memory_max = 160MB\n",
		     "10: [workload kb] memory_max: expected a size in bytes with an optional K, "
		     "M, G or T suffix (such as 512M or 3G; no B), or max, not '160MB'");
	/* checked after the parse, still at the key's line */
	expect_error(GOOD_KERNELS "[stats]\nalpha = 0.05\nconfidence = 0.4\n",
		     "9: [stats] confidence: expected at least 0.5 (e.g. 0.95)");
	/* the reference loop's buffer is a power of two: 3 MiB was "cannot allocate" */
	expect_error(GOOD_KERNELS "[workload y]\ntype = yield_pingpong\nref_mib = 3\n",
		     "9: [workload y] ref_mib: expected a power of two from 1 to 1024, not '3'");
	expect_error(GOOD_KERNELS "[workload kb]\ntype = kernel_build\ntarget = bzImage CC=clang\n",
		     "9: [workload kb] target: expected 1 to 16 make targets separated by blanks "
		     "(not -OPTION or VAR=VALUE), not 'bzImage CC=clang'");
	expect_error(GOOD_KERNELS "[workload y]\ntype = yield_pingpong\ntracepoints = sched_switch\n",
		     "9: [workload y] tracepoints: expected subsystem:event tracepoints separated by "
		     "commas (such as vmscan:mm_vmscan_lru_gen_scan), or empty, not 'sched_switch'");
}

static void test_missing_files(void **state)
{
	struct lab_config cfg;
	int status;
	(void)state;
	char *err = load("[kernel a]\nsource = nowhere\nseries = missing.mbox\n", &cfg, &status);

	assert_int_equal(status, LAB_EUSER);
	/* at the keys' lines, not the header's */
	assert_non_null(strstr(err, "lab.conf:2: [kernel a] source: '"));
	assert_non_null(strstr(err, "/nowhere' does not exist"));
	assert_non_null(strstr(err, "lab.conf:3: [kernel a] series: '"));
	assert_non_null(strstr(err, "/missing.mbox' does not exist"));
	free(err);
	config_release(&cfg);
}

static void test_syntax_and_long_lines(void **state)
{
	char longline[400];
	(void)state;

	expect_error(GOOD_KERNELS "this is not ini\n",
		     "7: expected '[section]', 'key = value' or a comment");
	expect_error("runs = 3\n" GOOD_KERNELS,
		     "1: 'runs' is outside any section (put it under [lab], [run], ...)");
	memset(longline, 'a', sizeof(longline));
	memcpy(longline, "# ", 2);
	longline[sizeof(longline) - 2] = '\n';
	longline[sizeof(longline) - 1] = '\0';
	char *text = xasprintf(GOOD_KERNELS "%s[run]\nruns = 2\n", longline);
	expect_error(text, "7: line longer than 198 characters");
	free(text);
}

/* A NUL is not an over-long line; bytes that are not UTF-8 never reach JSON. */
static void test_nul_and_utf8(void **state)
{
	static const char nul[] = GOOD_KERNELS "[run]\nruns = 3\0 0\n";
	char path[128];
	struct lab_config cfg;
	struct strbuf err = STRBUF_INIT;
	(void)state;

	snprintf(path, sizeof(path), "%s/lab.conf", tmpdir);
	assert_int_equal(write_file_atomic(path, nul, sizeof(nul) - 1), 0);
	assert_int_equal(config_load(path, &cfg, &err), LAB_EUSER);
	char *want = xasprintf("%s:8: NUL byte at column 9 (not a text file?)\n", path);
	if (!strstr(sb_str(&err), want))
		fail_msg("expected\n  %s\ngot\n  %s", want, sb_str(&err));
	assert_null(strstr(sb_str(&err), "longer than"));
	free(want);
	sb_release(&err);
	config_release(&cfg);

	expect_error(GOOD_KERNELS "[kernel other]\nfrom = baseline\nref = v6.12-\xe9t\xe9\n",
		     "9: the value is not valid UTF-8 (byte 0xe9 at offset 6)");
	expect_error("[lab]\nuri = qemu:///\xc0\xaf\n" GOOD_KERNELS,
		     "2: the value is not valid UTF-8 (byte 0xc0 at offset 8)");
	/* Paths that do not come from a line: the environment's cache folder. */
	const char *old = getenv("MGLRULAB_CACHE_DIR");
	char *saved = old ? xstrdup(old) : NULL;
	struct lab_config c2;
	int status;
	setenv("MGLRULAB_CACHE_DIR", "/var/cache/caf\xe9", 1);
	char *e = load(GOOD_KERNELS, &c2, &status);
	assert_int_equal(status, LAB_EUSER);
	assert_non_null(strstr(e, ": MGLRULAB_CACHE_DIR is not valid UTF-8 (byte 0xe9 at offset 14)"));
	free(e);
	config_release(&c2);
	if (saved)
		setenv("MGLRULAB_CACHE_DIR", saved, 1);
	else
		unsetenv("MGLRULAB_CACHE_DIR");
	free(saved);
	/* Comments may say anything. */
	expect_error("# caf\xe9\n[lab]\njobs = x\n" GOOD_KERNELS,
		     "3: [lab] jobs: expected an integer from 0 to 4096, not 'x'");
}

static void test_continuation_lines(void **state)
{
	struct lab_config cfg;
	int status;
	(void)state;
	char *err = load("[kernel baseline]\nsource = src.tar.xz\nseries = a.mbox\n  a.mbox\n",
			 &cfg, &status);

	assert_string_equal(err, "");
	assert_int_equal(config_kernel(&cfg, "baseline")->series.n, 2);
	free(err);
	config_release(&cfg);
}

/* NAME@K: a prefix kernel joins the configuration; bad names say why. */
static void test_prefix_kernels(void **state)
{
	struct lab_config cfg;
	struct strbuf why = STRBUF_INIT;
	int status;
	(void)state;
	char *err = load(GOOD_KERNELS "[run]\nkernels = baseline patched\n", &cfg, &status);

	assert_int_equal(status, LAB_OK);
	size_t before = cfg.nr_kernels;
	const struct kernel_cfg *k = config_kernel_resolve(&cfg, "patched@2", &why);
	assert_non_null(k);
	assert_string_equal(k->name, "patched@2");
	assert_string_equal(k->prefix_of, "patched");
	assert_int_equal(k->prefix, 2);
	assert_int_equal(k->series.n, 1);
	assert_int_equal(k->fragments.n, 1);
	assert_string_equal(k->source, config_kernel(&cfg, "patched")->source);
	assert_int_equal(cfg.nr_kernels, before + 1);
	/* Named again: the same kernel, not a second copy. */
	assert_ptr_equal(config_kernel_resolve(&cfg, "patched@2", &why), config_kernel(&cfg, "patched@2"));
	assert_int_equal(cfg.nr_kernels, before + 1);
	assert_null(config_kernel(&cfg, "patched")->prefix_of);

	static const struct { const char *name, *msg; } bad[] = {
		{ "nope", "no [kernel nope]" },
		{ "nope@1", "nope@1: no [kernel nope]" },
		/* a typo on the command line (run --ab, bisect) gets the lab.conf name */
		{ "pached", "/lab.conf (did you mean 'patched'?)" },
		{ "basline@1", "/lab.conf (did you mean 'baseline'?)" },
		{ "patched@x", "expected NAME@K, K a patch count from 0, got 'x'" },
		{ "patched@-1", "got '-1'" },
		{ "baseline@1", "[kernel baseline] has no series" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		sb_reset(&why);
		assert_null(config_kernel_resolve(&cfg, bad[i].name, &why));
		if (!strstr(sb_str(&why), bad[i].msg))
			fail_msg("%s: expected '%s' in '%s'", bad[i].name, bad[i].msg, sb_str(&why));
	}
	sb_release(&why);
	free(err);
	config_release(&cfg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid),
		cmocka_unit_test(test_kernel_with_series),
		cmocka_unit_test(test_prefix_kernels),
		cmocka_unit_test(test_stats_defaults_agree),
		cmocka_unit_test(test_unknown_key_suggests),
		cmocka_unit_test(test_unknown_section),
		cmocka_unit_test(test_report_section),
		cmocka_unit_test(test_claim_section),
		cmocka_unit_test(test_bad_values),
		cmocka_unit_test(test_watch_grace_days),
		cmocka_unit_test(test_watch_disk_budget),
		cmocka_unit_test(test_duplicate_key),
		cmocka_unit_test(test_workload_params),
		cmocka_unit_test(test_run_partners),
		cmocka_unit_test(test_workload_runs),
		cmocka_unit_test(test_workload_primary),
		cmocka_unit_test(test_cross_references),
		cmocka_unit_test(test_guest_values),
		cmocka_unit_test(test_missing_files),
		cmocka_unit_test(test_syntax_and_long_lines),
		cmocka_unit_test(test_continuation_lines),
		cmocka_unit_test(test_nul_and_utf8),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
