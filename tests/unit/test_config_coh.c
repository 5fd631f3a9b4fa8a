// SPDX-License-Identifier: GPL-2.0
/*
 * [run] coherence (issue 51): off, changed or all as before, or the names
 * of the workloads to run the coherence model for, so the demo can afford
 * it for its shared-mm workload and the control alone. A name that is not
 * one of [run] workloads is an error at its own line.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "fsutil.h"
#include "test_config_fixture.h"

#define LAB \
	"[kernel baseline]\nsource = src.tar.xz\n" \
	"[kernel patched]\nfrom = baseline\nseries = a.mbox\n" \
	"[workload ys]\ntype = yield_pingpong\nmm = shared\n" \
	"[workload yp]\ntype = yield_pingpong\nmm = private\n" \
	"[run]\nworkloads = ys yp mglru_aging\n"

static int setup(void **state)
{
	const char *files[] = { "src.tar.xz", "a.mbox", "guests/tiny.conf" };
	char *p;
	(void)state;

	strcpy(tmpdir, "/tmp/mglrulab-test-config-coh-XXXXXX");
	assert_non_null(mkdtemp(tmpdir));
	p = xasprintf("%s/guests", tmpdir);
	assert_int_equal(mkdir_p(p, 0755), 0);
	free(p);
	for (size_t i = 0; i < sizeof(files) / sizeof(*files); i++) {
		p = xasprintf("%s/%s", tmpdir, files[i]);
		assert_int_equal(write_file_atomic(p, "x", 1), 0);
		free(p);
	}
	return 0;
}

static void test_choices(void **state)
{
	struct lab_config cfg;
	int status;
	char *err;
	(void)state;

	err = load(LAB, &cfg, &status);
	assert_string_equal(err, "");
	assert_int_equal(cfg.run.coherence, RUN_ATTRIBUTE_OFF);	/* the default */
	assert_int_equal(cfg.run.coherence_workloads.n, 0);
	free(err);
	config_release(&cfg);
	err = load(LAB "coherence = changed\n", &cfg, &status);
	assert_string_equal(err, "");
	assert_int_equal(cfg.run.coherence, RUN_ATTRIBUTE_CHANGED);
	assert_int_equal(cfg.run.coherence_workloads.n, 0);
	free(err);
	config_release(&cfg);
}

/* Names: those workloads, whatever their verdicts; over lines as any list. */
static void test_workload_list(void **state)
{
	struct lab_config cfg;
	struct strbuf out = STRBUF_INIT;
	int status;
	char *err;
	(void)state;

	err = load(LAB "coherence = ys\n  yp\n", &cfg, &status);
	assert_string_equal(err, "");
	assert_int_equal(status, 0);
	assert_int_equal(cfg.run.coherence, RUN_ATTRIBUTE_ALL);
	assert_int_equal(cfg.run.coherence_workloads.n, 2);
	assert_string_equal(cfg.run.coherence_workloads.v[0], "ys");
	assert_string_equal(cfg.run.coherence_workloads.v[1], "yp");
	config_print(&cfg, &out);
	assert_non_null(strstr(out.buf, "  coherence  ys yp (50 ns per transfer"));
	sb_release(&out);
	free(err);
	config_release(&cfg);
}

static void test_errors(void **state)
{
	(void)state;
	/* the one word that is neither a choice nor a workload, with the closest name */
	expect_error(LAB "coherence = some\n", "14: [run] coherence: 'some' is not one of "
		     "[run] workloads (off, changed, all, or names of [run] workloads)");
	/* each name at its own line */
	expect_error(LAB "coherence = ys\n  yss\n", "15: [run] coherence: 'yss' is not one of "
		     "[run] workloads (off, changed, all, or names of [run] workloads) (did you "
		     "mean 'ys'?)");
	/* a [workload] section the session does not run is not one it can model */
	expect_error("[workload zz]\ntype = yield_pingpong\n" LAB "coherence = zz\n",
		     "16: [run] coherence: 'zz' is not one of [run] workloads (off, changed, "
		     "all, or names of [run] workloads)");
	expect_error(LAB "coherence = all ys\n", "14: [run] coherence: 'all' is a choice of "
		     "its own (off, changed or all), not one of a list of workloads");
}

/*
 * [workload] coherence_params: its coherence runs' own parameters, so the
 * demo's yield_shared models two CPUs only; checked as the section's own.
 */
static void test_coherence_params(void **state)
{
	struct lab_config cfg;
	int status;
	char *err;
	(void)state;

	err = load("[workload yc]\ntype = yield_pingpong\ncpus = 1,2\n"
		   "coherence_params = cpus=2 ref_ms=0\n" LAB, &cfg, &status);
	assert_string_equal(err, "");
	const struct workload_cfg *w = config_workload(&cfg, "yc");
	assert_non_null(w);
	assert_string_equal(workload_cfg_value(w, "cpus"), "1,2");	/* its own runs' */
	assert_string_equal(workload_cfg_coh_value(w, "cpus"), "2");
	assert_string_equal(workload_cfg_coh_value(w, "ref_ms"), "0");
	assert_null(workload_cfg_coh_value(w, "mm"));
	free(err);
	config_release(&cfg);

	expect_error("[workload yc]\ntype = yield_pingpong\ncoherence_params = cpu=2\n" LAB,
		     "3: [workload yc] coherence_params: 'cpu' is not a parameter of "
		     "yield_pingpong");
	expect_error("[workload yc]\ntype = yield_pingpong\ncoherence_params = cpus\n" LAB,
		     "3: [workload yc] coherence_params: expected KEY=VALUE, not 'cpus'");
	/* twice: the program would take the last, the report's window the first */
	expect_error("[workload yc]\ntype = yield_pingpong\ncoherence_params = cpus=1 cpus=2\n" LAB,
		     "3: [workload yc] coherence_params: cpus given twice");
	expect_error("[workload yc]\ntype = yield_pingpong\ncoherence_params = duration=x\n"
		     LAB, "3: [workload yc] coherence_params: duration: expected seconds from 0.1 "
		     "to 3600, to the millisecond (such as 0.5), not 'x'");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_choices),
		cmocka_unit_test(test_workload_list),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_coherence_params),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
