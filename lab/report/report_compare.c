// SPDX-License-Identifier: GPL-2.0
/*
 * Comparing two sessions (last night against tonight): the chosen kernel's
 * runs of session A become the baseline and those of session B the patched
 * sample of a synthetic session, which then goes through exactly the same
 * analysis and renderers as a single A/B session.
 */
#include "report.h"
#include "xjson.h"
#include "report_priv.h"
#include "run_record.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

/*
 * @kernel's runs of @src, renumbered after *@seq, into @dst. Read through
 * the decoder; written as JSON, a copy of each element with what compare
 * changes (the members the record does not type travel as they are).
 */
static int append_runs(json_t *dst, const json_t *src, const char *kernel, const char *label,
		       json_int_t *seq)
{
	struct run_records rs;
	int n = 0;

	/* @src passed report_validate(): every run decodes. */
	run_records_decode_valid(json_object_get(src, "runs"), &rs);
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
static const char *pick_kernel(const json_t *session, const char *k)
{
	if (!k)
		k = jget_str(json_object_get(session, "design"), "patched", NULL);
	/* A single-kernel session has only its baseline to offer. */
	if (!k)
		k = jget_str(json_object_get(session, "design"), "baseline", "");
	return k;
}

/* B's host, its accelerator "mixed" when A's differs. */
static json_t *compare_host(const json_t *ha, const json_t *hb)
{
	json_t *host = json_deep_copy(hb);

	if (strcmp(jget_str(ha, "accel", ""), jget_str(hb, "accel", ""))) {
		char *why = xasprintf("session A ran under %s, session B under %s",
				      jget_str(ha, "accel", "?"), jget_str(hb, "accel", "?"));
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
	json_t *k = json_array();

	json_array_append_new(k, json_deep_copy(kern_a));
	json_array_append_new(k, json_deep_copy(kern_b));
	json_object_set_new(json_array_get(k, 0), "name", json_string(la));
	json_object_set_new(json_array_get(k, 0), "role", json_string("baseline"));
	json_object_set_new(json_array_get(k, 1), "name", json_string(lb));
	json_object_set_new(json_array_get(k, 1), "role", json_string("patched"));
	return k;
}

/* Workloads of A, then any that only B has: the union, A's order. */
static json_t *union_workloads(const json_t *a, const json_t *b)
{
	json_t *wls = json_deep_copy(json_object_get(a, "workloads")), *names, *w;
	size_t i;

	if (!wls)
		wls = json_array();
	names = json_object();
	json_array_foreach(wls, i, w)
		json_object_set_new_nocheck(names, jget_str(w, "name", ""), json_true());
	json_array_foreach(json_object_get(b, "workloads"), i, w) {
		if (json_object_get(names, jget_str(w, "name", "")))
			continue;
		json_object_set_new_nocheck(names, jget_str(w, "name", ""), json_true());
		json_array_append(wls, w);
	}
	json_decref(names);
	return wls;
}

json_t *report_compare_session(const json_t *a, const json_t *b, const char *ka,
			       const char *kb, struct strbuf *err)
{
	const json_t *kern_a, *kern_b;
	const char *ida = jget_str(json_object_get(a, "session"), "id", "A");
	const char *idb = jget_str(json_object_get(b, "session"), "id", "B");
	char *la, *lb;
	json_t *s, *runs;
	json_int_t seq = 0;

	ka = pick_kernel(a, ka);
	kb = pick_kernel(b, kb);
	kern_a = report_find_named(a, "kernels", ka);
	kern_b = report_find_named(b, "kernels", kb);
	if (!kern_a || !kern_b) {
		sb_addf(err, "session %s has no kernel named \"%s\"", kern_a ? "B" : "A",
			kern_a ? kb : ka);
		return NULL;
	}
	la = xasprintf("A:%s", ka);
	lb = xasprintf("B:%s", kb);
	s = json_object();
	json_object_set_new(s, "schema", json_string(REPORT_SCHEMA));
	json_object_set_new(s, "generator", xjson_pack("{s:s, s:s}", "name", "mglrulab",
						      "version", MGLRULAB_VERSION));
	json_object_set_new(s, "session", xjson_pack("{s:s++, s:s, s:s}",
		"id", ida, " vs ", idb, "mode", "compare",
		"created", jget_str(json_object_get(b, "session"), "created", "")));
	json_object_set_new(s, "host", compare_host(json_object_get(a, "host"),
						    json_object_get(b, "host")));
	json_object_set_new(s, "kernels", compare_kernels(kern_a, kern_b, la, lb));
	if (json_object_get(b, "guest"))
		json_object_set(s, "guest", json_object_get(b, "guest"));
	json_object_set_new(s, "workloads", union_workloads(a, b));
	runs = json_array();
	append_runs(runs, a, ka, la, &seq);
	append_runs(runs, b, kb, lb, &seq);
	json_object_set_new(s, "design", xjson_pack("{s:s, s:s, s:O?, s:s, s:O?}",
		"baseline", la, "patched", lb,
		"runs_per_kernel", json_object_get(json_object_get(b, "design"), "runs_per_kernel"),
		"order", "two sessions: all of A, then all of B",
		"seed", json_object_get(json_object_get(b, "design"), "seed")));
	if (json_object_get(b, "statistics"))
		json_object_set(s, "statistics", json_object_get(b, "statistics"));
	json_object_set_new(s, "runs", runs);
	free(la);
	free(lb);
	return s;
}

