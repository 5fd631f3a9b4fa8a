// SPDX-License-Identifier: GPL-2.0
/*
 * Comparing two sessions (last night against tonight): the chosen kernel's
 * runs of session A become the baseline and those of session B the patched
 * sample of a synthetic session, which then goes through exactly the same
 * analysis and renderers as a single A/B session. The sessions are read
 * through struct session_input (report_view.h); the members the synthetic
 * session takes over unchanged (host, kernels, guest, workloads,
 * statistics) are copied as they are.
 */
#include "report.h"
#include "xjson.h"
#include "report_priv.h"
#include "report_view.h"
#include "run_record.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

/*
 * @kernel's runs of @src, renumbered after *@seq, into @dst. Read through
 * the decoder; written as JSON, a copy of each element with what compare
 * changes (the members the record does not type travel as they are).
 */
static int append_runs(json_t *dst, const struct session_input *src, const char *kernel,
		       const char *label, json_int_t *seq)
{
	struct run_records rs;
	int n = 0;

	/* @src passed report_validate(): every run decodes. */
	run_records_decode_valid(src->runs_json, &rs);
	for (size_t i = 0; i < rs.n; i++) {
		const struct run_record *run = &rs.v[i];
		json_t *copy;

		if (strcmp(run->kernel, kernel))
			continue;
		copy = json_deep_copy(run->json);
		/* Blocks pair kernels within one session; across sessions they mean nothing. */
		json_object_del(copy, "block");
		json_object_set_new(copy, "source_seq", json_integer(run->seq));
		json_object_set_new(copy, "seq", json_integer(++*seq));
		json_object_set_new(copy, "kernel", json_string(label));
		json_array_append_new(dst, copy);
		n++;
	}
	run_records_release(&rs);
	return n;
}

/* @k, else the session's patched kernel, else (one kernel) its baseline. */
static const char *pick_kernel(const struct session_input *session, const char *k)
{
	if (!k)
		k = session->patched;
	/* A single-kernel session has only its baseline to offer. */
	if (!k)
		k = session->baseline;
	return k;
}

/* B's host, its accelerator "mixed" when A's differs. */
static json_t *compare_host(const struct session_input *a, const struct session_input *b)
{
	json_t *host = json_deep_copy(b->host_json);

	if (strcmp(a->accel ? a->accel : "", b->accel ? b->accel : "")) {
		char *why = xasprintf("session A ran under %s, session B under %s",
				      a->accel ? a->accel : "?", b->accel ? b->accel : "?");
		json_object_set_new(host, "accel", json_string("mixed"));
		json_object_set_new(host, "accel_reason", json_string(why));
		free(why);
	}
	return host;
}

/* The two kernels, renamed @la (the baseline) and @lb (the patched). */
static json_t *compare_kernels(const json_t *kern_a, const json_t *kern_b, const char *la,
			       const char *lb)
{
	json_t *k = json_array(), *ca = json_deep_copy(kern_a), *cb = json_deep_copy(kern_b);

	json_object_set_new(ca, "name", json_string(la));
	json_object_set_new(ca, "role", json_string("baseline"));
	json_object_set_new(cb, "name", json_string(lb));
	json_object_set_new(cb, "role", json_string("patched"));
	json_array_append_new(k, ca);
	json_array_append_new(k, cb);
	return k;
}

/* Whether one of @ws[0..@n) is named @name. */
static int has_workload(const struct input_workload *ws, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(ws[i].name, name))
			return 1;
	return 0;
}

/* Workloads of A, then any that only B has: the union, A's order. */
static json_t *union_workloads(const struct session_input *a, const struct session_input *b)
{
	json_t *wls = json_array();
	size_t i;

	for (i = 0; i < a->nworkloads; i++)
		json_array_append_new(wls, json_deep_copy(a->workloads[i].json));
	for (i = 0; i < b->nworkloads; i++) {
		const struct input_workload *w = &b->workloads[i];

		/* a few names each: a scan, not a map built to be read here */
		if (has_workload(a->workloads, a->nworkloads, w->name) ||
		    has_workload(b->workloads, i, w->name))
			continue;
		json_array_append(wls, (json_t *)w->json);
	}
	return wls;
}

/* The synthetic session of @a's kernel @ka against @b's @kb (found in both). */
static json_t *compare_session(const struct session_input *a, const struct session_input *b,
			       const char *ka, const char *kb, const json_t *kern_a,
			       const json_t *kern_b)
{
	char *la = xasprintf("A:%s", ka), *lb = xasprintf("B:%s", kb);
	json_t *s = json_object(), *runs = json_array();
	json_int_t seq = 0;

	json_object_set_new(s, "schema", json_string(REPORT_SCHEMA));
	json_object_set_new(s, "generator", xjson_pack("{s:s, s:s}", "name", "mglrulab",
						      "version", MGLRULAB_VERSION));
	json_object_set_new(s, "session", xjson_pack("{s:s++, s:s, s:s}",
		"id", a->id ? a->id : "A", " vs ", b->id ? b->id : "B", "mode", "compare",
		"created", b->created ? b->created : ""));
	json_object_set_new(s, "host", compare_host(a, b));
	json_object_set_new(s, "kernels", compare_kernels(kern_a, kern_b, la, lb));
	if (b->guest_json)
		json_object_set(s, "guest", (json_t *)b->guest_json);
	json_object_set_new(s, "workloads", union_workloads(a, b));
	append_runs(runs, a, ka, la, &seq);
	append_runs(runs, b, kb, lb, &seq);
	json_object_set_new(s, "design", xjson_pack("{s:s, s:s, s:O?, s:s, s:O?}",
		"baseline", la, "patched", lb, "runs_per_kernel", b->runs_per_kernel,
		"order", "two sessions: all of A, then all of B", "seed", b->seed));
	if (b->statistics_json)
		json_object_set(s, "statistics", (json_t *)b->statistics_json);
	json_object_set_new(s, "runs", runs);
	free(la);
	free(lb);
	return s;
}

json_t *report_compare_session(const json_t *a, const json_t *b, const char *ka,
			       const char *kb, struct strbuf *err)
{
	struct session_input ia, ib;
	const json_t *kern_a, *kern_b;
	json_t *s = NULL;

	session_input_decode(a, &ia);
	session_input_decode(b, &ib);
	ka = pick_kernel(&ia, ka);
	kb = pick_kernel(&ib, kb);
	kern_a = report_find_named(a, "kernels", ka);
	kern_b = report_find_named(b, "kernels", kb);
	if (!kern_a || !kern_b)
		sb_addf(err, "session %s has no kernel named \"%s\"", kern_a ? "B" : "A",
			kern_a ? kb : ka);
	else
		s = compare_session(&ia, &ib, ka, kb, kern_a, kern_b);
	/*
	 * The same runs on both sides can only say "no change": a
	 * mistyped path, not a finding. Said, not refused: an A/A of the
	 * comparator itself is a fair use.
	 */
	if (s && ia.id && ib.id && !strcmp(ia.id, ib.id) && !strcmp(ka, kb))
		warning("compare: A and B are the same session (%s) and kernel (%s): its runs "
			"against themselves, so no change by construction", ia.id, ka);
	session_input_release(&ia);
	session_input_release(&ib);
	return s;
}
