// SPDX-License-Identifier: GPL-2.0
/*
 * Go benchmark format (https://go.dev/design/14313-benchmark-format), so
 * that `benchstat -col /kernel FILE` and the rest of the x/perf tooling can
 * read the raw runs. One line per measured run and workload:
 *
 *   BenchmarkYp_shared/kernel=base 1 181200 cs_per_sec_per_cpu_1cpu ...
 *
 * The metric name is the unit (benchstat keys its tables by unit), and
 * "Unit NAME better=higher|lower" lines carry the direction. Warm-up and
 * failed runs are left out, exactly as in the statistics.
 */
#include "report.h"
#include "escape.h"
#include "report_priv.h"
#include "report_view.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void config_line(struct strbuf *out, const char *key, const char *val)
{
	/* Config values run to the end of the line: only control characters matter. */
	sb_adds(out, key);
	sb_adds(out, ": ");
	sb_add_text_safe(out, val);
	sb_addc(out, '\n');
}

/*
 * A configuration key: the format wants a lower-case letter first and no
 * space, upper-case letter or colon (x/perf reads "Kernel:" or "a b:" as
 * an ordinary line). Names are folded to lower case, anything else that is
 * not a letter, digit, '-' or '.' becomes '_'; the exact name goes into
 * the value.
 */
static void config_key(struct strbuf *out, const char *prefix, const char *name)
{
	const unsigned char *s = (const unsigned char *)name;

	sb_adds(out, prefix);
	for (; *s; s++) {
		if (*s >= 'A' && *s <= 'Z')
			sb_addc(out, (char)(*s - 'A' + 'a'));
		else if ((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '-' || *s == '.')
			sb_addc(out, (char)*s);
		else
			sb_addc(out, '_');
	}
}

static void unit_token(struct strbuf *out, const char *metric)
{
	sb_add_bench_token(out, metric);
}

/*
 * x/perf's reader takes "Benchmark" + a lower-case letter as an ordinary
 * word, not a benchmark name: start the name with an upper-case letter.
 */
static void bench_name(struct strbuf *out, const char *workload)
{
	size_t start;

	sb_adds(out, "Benchmark");
	start = out->len;
	sb_add_bench_token(out, workload);
	if (out->buf[start] >= 'a' && out->buf[start] <= 'z')
		out->buf[start] = (char)(out->buf[start] - 'a' + 'A');
}

/* The shortest text that reads back as the same double. */
static void add_value(struct strbuf *out, double v)
{
	char num[40];

	for (int prec = 6; prec <= 17; prec++) {
		snprintf(num, sizeof(num), "%.*g", prec, v);
		if (strtod(num, NULL) == v)
			break;
	}
	sb_addc(out, ' ');
	sb_adds(out, num);
	sb_addc(out, ' ');
}

/* @s, or @def when the report has none. */
static const char *or(const char *s, const char *def)
{
	return s ? s : def;
}

static void config_lines(const struct report_view *v, struct strbuf *out)
{
	config_line(out, "goos", "linux");
	config_line(out, "goarch", "amd64");
	config_line(out, "pkg", "mglrulab");
	config_line(out, "cpu", or(v->host.cpu, "unknown"));
	config_line(out, "mglrulab-session", or(v->session.id, "-"));
	config_line(out, "mglrulab-accel", or(v->host.accel, "-"));
	config_line(out, "mglrulab-host-kernel", or(v->host.kernel, "-"));
	config_line(out, "mglrulab-guest", or(v->guest.name, "-"));
	for (size_t i = 0; i < v->nkernels; i++) {
		const struct view_kernel *k = &v->kernels[i];
		struct strbuf key = STRBUF_INIT, val = STRBUF_INIT;

		config_key(&key, "mglrulab-kernel-", or(k->name, "?"));
		sb_addf(&val, "%s %s %s %zu patches %s", or(k->name, "?"), or(k->ref, "-"),
			or(k->version, "-"), k->nseries, or(k->cache_key, "-"));
		config_line(out, key.buf, val.buf);
		sb_release(&key);
		sb_release(&val);
	}
}

struct unit_seen {
	const char *metric;
	size_t i;
};

static int unit_cmp(const void *a, const void *b)
{
	const struct unit_seen *x = a, *y = b;
	int c = strcmp(x->metric, y->metric);

	return c ? c : (x->i > y->i) - (x->i < y->i);
}

/*
 * One Unit line per metric name, in the order of the name's first result:
 * metrics of the same name in several workloads share it. Sorted once to
 * find the first of each name (a scan per result was quadratic).
 */
static void unit_lines(const struct report_view *v, struct strbuf *out)
{
	struct unit_seen *by_name = v->nresults ? xcalloc(v->nresults, sizeof(*by_name)) : NULL;
	char *first = v->nresults ? xcalloc(v->nresults, 1) : NULL;

	for (size_t i = 0; i < v->nresults; i++)
		by_name[i] = (struct unit_seen){ v->results[i].metric, i };
	if (v->nresults)
		qsort(by_name, v->nresults, sizeof(*by_name), unit_cmp);
	for (size_t i = 0; i < v->nresults; i++)
		first[by_name[i].i] = !i || strcmp(by_name[i - 1].metric, by_name[i].metric);
	for (size_t i = 0; i < v->nresults; i++) {
		if (!first[i])
			continue;
		sb_adds(out, "Unit ");
		unit_token(out, v->results[i].metric);
		sb_addf(out, " better=%s\n", or(v->results[i].better, "higher"));
	}
	free(by_name);
	free(first);
}

/* One line per measured run: its metrics that have a value. */
static void run_line(const struct run_record *run, struct strbuf *out)
{
	int any = 0;

	for (size_t m = 0; m < run->nr_metrics; m++) {
		/* NaN: null in the report, no value. */
		if (isnan(run->metrics[m].value))
			continue;
		if (!any) {
			bench_name(out, run->workload);
			sb_adds(out, "/kernel=");
			sb_add_bench_token(out, run->kernel);
			sb_adds(out, " 1");
			any = 1;
		}
		add_value(out, run->metrics[m].value);
		unit_token(out, run->metrics[m].name);
	}
	if (any)
		sb_addc(out, '\n');
}

void report_render_benchfmt(const json_t *r, struct strbuf *out)
{
	struct report_view v;
	struct strbuf err = STRBUF_INIT;

	if (report_view_decode(r, &v, &err)) {
		/* report_analyze()'s output decodes: this is a bug, said where it is seen. */
		sb_addf(out, "mglrulab report: the report does not decode: %s\n", err.buf);
		report_view_release(&v);
		sb_release(&err);
		return;
	}
	config_lines(&v, out);
	sb_addc(out, '\n');
	unit_lines(&v, out);
	sb_addc(out, '\n');
	for (size_t i = 0; i < v.runs.n; i++)
		if (!v.runs.v[i].warmup && v.runs.v[i].ok)
			run_line(&v.runs.v[i], out);
	report_view_release(&v);
	sb_release(&err);
}
