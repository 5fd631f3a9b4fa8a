// SPDX-License-Identifier: GPL-2.0
/*
 * The reply mail carries the evidence of the mechanism when the session
 * gathered it (issue 50), as LKP's mails add perf's: the functions the
 * instructions per unit moved to (report.json's "attribution", at most 3
 * per phase) and the modelled cache-line transfers per unit before and
 * after with the (at most 3) functions whose transfers moved most
 * ("coherence"). A report without them mails as before.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "report_coh.h"
#include "report_headline.h"

#define FIXTURE "tests/fixtures/reports/session-ab.json"

/* "coherence" as run --coherence wrote it for the demo's kernels (2026-12-06). */
static json_t *coherence(void)
{
	json_t *fns = json_pack("[{s:s, s:f, s:f, s:f}, {s:s, s:f, s:f, s:f},"
				" {s:s, s:f, s:f, s:f}, {s:s, s:f, s:f, s:f}]",
		"function", "__schedule", "baseline", 0.8954, "patched", 0.0003, "change", -0.8950,
		"function", "rcu_sched_clock_irq", "baseline", 0.0001, "patched", 0.0003,
		"change", 0.0002,
		"function", "do_raw_spin_lock", "baseline", 0.0001, "patched", 0.0003, "change", 0.0002,
		"function", "fourth_function", "baseline", 0.0001, "patched", 0.0002, "change", 0.0001);
	json_t *win = json_pack("{s:i, s:{s:f, s:[f, f], s:f}, s:{s:f, s:[f, f], s:f}, s:f, s:b,"
				" s:o}", "window", 1,
		"baseline", "per_unit", 0.9149, "runs", 0.9766, 0.8531, "spread", 0.1235,
		"patched", "per_unit", 0.0231, "runs", 0.0280, 0.0182, "spread", 0.0099,
		"change", -0.8918, "beyond_spread", 1, "functions", fns);

	return json_pack("{s:s, s:i, s:s, s:{s:f, s:f}, s:[s, s], s:[{s:s, s:[o]}]}",
		"method", "QEMU TCG plugin", "runs_per_kernel", 2, "model_note", "a model",
		"latency", "node_ns", 50.0, "remote_ns", 130.0, "kernels", "base", "patched",
		"workloads", "workload", "yp_shared", "windows", win);
}

/* "attribution" as run --attribute writes it: one phase, one function past the noise. */
static json_t *attribution(void)
{
	json_t *fns = json_pack("[{s:s, s:f, s:f, s:f, s:f, s:f}]",
		"function", "__x64_sys_sched_yield", "base", 19.0, "patched", 120.0, "delta", 101.0,
		"share_of_change", 0.97, "spread", 0.0);
	json_t *win = json_pack("{s:i, s:f, s:f, s:f, s:f, s:f, s:f, s:i, s:i, s:i, s:o}",
		"window", 1, "base_per_unit", 2600.0, "patched_per_unit", 2704.0,
		"base_kernel_per_unit", 2100.0, "patched_kernel_per_unit", 2203.0, "noise", 4.5,
		"threshold", 6.75, "beyond_noise", 1, "nfunctions", 900, "more", 899,
		"functions", fns);

	return json_pack("{s:s, s:s, s:i, s:s, s:[s, s], s:[{s:s, s:[], s:{s:f, s:f}, s:[o]}]}",
		"method", "QEMU TCG plugin", "which", "changed", "runs_per_kernel", 2,
		"cannot_see", "instructions only", "kernels", "base", "patched",
		"workloads", "workload", "yp_shared", "primaries", "seconds", "baseline", 24.0,
		"patched", 25.0, "windows", win);
}

static char *mail_with(json_t *coh, json_t *attr)
{
	struct strbuf err = STRBUF_INIT, out = STRBUF_INIT, why = STRBUF_INIT;
	struct report_mail_opts o = { .from = "Lab <lab@example.org>" };
	json_t *s, *r;

	if (report_load(FIXTURE, &s, &err))
		fail_msg("%s", err.buf);
	if (coh)
		json_object_set_new(s, "coherence", coh);
	if (attr)
		json_object_set_new(s, "attribution", attr);
	r = report_analyze(s, &err);
	if (!r)
		fail_msg("%s", err.buf);
	report_render_mail(r, &o, &out, &why);
	json_decref(r);
	json_decref(s);
	sb_release(&err);
	sb_release(&why);
	return sb_detach(&out);
}

static void test_evidence_in_the_mail(void **state)
{
	char *mail = mail_with(coherence(), attribution());
	const char *coh, *attr, *setup;
	(void)state;

	coh = strstr(mail, "\nCache-line transfers (model; 2 runs per kernel");
	attr = strstr(mail, "\nAttribution (instructions per unit, 2 runs per kernel");
	setup = strstr(mail, "\nSetup\n");
	assert_non_null(coh);
	assert_non_null(attr);
	/* after the rows, before the setup */
	assert_true(attr > strstr(mail, "\nPer metric") && coh > attr && setup > coh);
	/* transfers per unit before and after, and the change against the runs' spread */
	assert_non_null(strstr(coh, "\n    baseline 0.9149 (runs 0.9766, 0.8531; spread 0.1235)\n"));
	assert_non_null(strstr(coh, "\n    patched  0.0231 (runs 0.0280, 0.0182; spread 0.0099)\n"));
	assert_non_null(strstr(coh, "\n    change   -0.8918 (beyond the runs' spread)\n"));
	/* the three functions that moved most, not the fourth, no latency model */
	assert_non_null(strstr(coh, "    -0.8950  __schedule\n"));
	assert_non_null(strstr(coh, "  do_raw_spin_lock\n"));
	assert_null(strstr(mail, "fourth_function"));
	assert_null(strstr(mail, "Latency model"));
	/* the function the instructions moved to */
	assert_non_null(strstr(attr, "__x64_sys_sched_yield +101.0 instructions per unit"));
	free(mail);

	/* without them, nothing of the kind */
	mail = mail_with(NULL, NULL);
	assert_null(strstr(mail, "Cache-line transfers"));
	assert_null(strstr(mail, "\nAttribution"));
	free(mail);
}

/*
 * A workload the model did not measure: the mail leaves it out (the
 * demo's mail carried "numa: its program marks no operations for the
 * plugin, ..." in 113 columns), the report wraps it to 78.
 */
static void test_unmeasured_workload(void **state)
{
	json_t *coh = coherence(), *sr;
	struct strbuf err = STRBUF_INIT, text = STRBUF_INIT;
	const char *why = "its program marks no operations for the plugin, so it has no "
			  "transfers per operation (workloads/README.md)";
	char *mail;
	(void)state;

	json_array_append_new(json_object_get(coh, "workloads"),
			      json_pack("{s:s, s:s}", "workload", "numa", "skipped", why));
	mail = mail_with(json_deep_copy(coh), NULL);
	assert_non_null(strstr(mail, "-0.8950  __schedule"));
	assert_null(strstr(mail, "marks no operations"));
	for (const char *p = mail, *nl; *p; p = nl + 1) {
		nl = strchr(p, '\n');
		if (!nl)
			break;
		if (nl - p > 78)
			fail_msg("a mail line of %td columns: %.*s", nl - p, (int)(nl - p), p);
	}
	free(mail);

	if (report_load(FIXTURE, &sr, &err))
		fail_msg("%s", err.buf);
	json_object_set_new(sr, "coherence", coh);
	report_coh_text(sr, &text);
	assert_non_null(strstr(text.buf, "  numa: its program marks no operations for the plugin, so it"));
	for (const char *p = text.buf, *nl; (nl = strchr(p, '\n')); p = nl + 1)
		if (nl - p > 78)
			fail_msg("a report line of %td columns: %.*s", nl - p, (int)(nl - p), p);
	json_decref(sr);
	sb_release(&text);
	sb_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_evidence_in_the_mail),
		cmocka_unit_test(test_unmeasured_workload),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
