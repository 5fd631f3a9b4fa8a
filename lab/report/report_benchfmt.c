// SPDX-License-Identifier: GPL-2.0
/*
 * Go benchmark format (https://go.dev/design/14313-benchmark-format), so
 * that `benchstat -col /kernel FILE` and the rest of the x/perf tooling can
 * read the raw runs. One line per measured run and workload:
 *
 *   BenchmarkKbuild/kernel=base 1 181.2 elapsed_s-sec/op 2.5e+09 rss-B ...
 *
 * Each value's unit is "METRIC-UNIT": the metric's name says what is
 * measured (the format's "L1-miss-ns/op"), and UNIT is a unit benchstat
 * knows how to scale: seconds become sec/op (ms and us converted), KiB
 * and MiB become B (bytes, scaled in powers of 1024); rates such as ops/s
 * and counts keep their unit. "Unit METRIC-UNIT better=higher|lower"
 * lines carry each metric's direction, which benchstat knows by itself
 * only for plain sec/op and B/s. With counters (--benchfmt-counters) each
 * run's counters follow as "GROUP.NAME" values (their change over the
 * measured phase; counters have no unit and no better). Warm-up and
 * failed runs are left out, exactly as in the statistics.
 */
#include "report.h"
#include "escape.h"
#include "report_priv.h"
#include "report_view.h"
#include "workload_def.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * A flush point (strbuf.h): a streamed output may be written out here,
 * where no caller holds a position in @sb. A failed write is reported by
 * the sink's owner (sb_sink_finish()), so the renderer carries on.
 */
static void flush_point(struct strbuf *sb)
{
	LAB_IGNORE(sb_flush_point(sb));
}

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

/*
 * A metric's unit as written in workload_def.h, the Go unit it becomes and
 * how its values convert: times @mul (a power of two, exact), then the
 * decimal point moved by @exp10 in the text (exact too: 2.3884 ms is
 * written 2.3884e-3 s, where 2.3884 / 1000 in doubles prints as
 * 0.0023883999999999997).
 */
struct go_scale {
	double mul;
	int exp10;
};

static const struct go_unit {
	const char *from, *to;
	struct go_scale scale;
} go_units[] = {
	{ "s", "sec/op", { 1, 0 } },
	{ "ms", "sec/op", { 1, -3 } },
	{ "us", "sec/op", { 1, -6 } },
	{ "ns", "sec/op", { 1, -9 } },
	{ "B", "B", { 1, 0 } },
	{ "KiB", "B", { 1024, 0 } },
	{ "MiB", "B", { 1024.0 * 1024, 0 } },
	{ "GiB", "B", { 1024.0 * 1024 * 1024, 0 } },
};

/* The Go unit of @unit (NULL or ""), and in *@scale how values convert; units not listed stay. */
static const char *go_unit(const char *unit, struct go_scale *scale)
{
	*scale = (struct go_scale){ 1, 0 };
	if (!unit || !*unit)
		return NULL;
	for (size_t i = 0; i < ARRAY_SIZE(go_units); i++) {
		if (!strcmp(go_units[i].from, unit)) {
			*scale = go_units[i].scale;
			return go_units[i].to;
		}
	}
	return unit;
}

/*
 * A unit is one word: no blank. Within it '-' separates what is measured
 * from the unit and '/' and '*' build the unit, so the metric's name keeps
 * neither; the unit keeps '/' ("ops/s"). Anything else outside letters,
 * digits and "_.+,:%" becomes '_'.
 */
static void unit_part(struct strbuf *out, const char *s, int is_unit)
{
	const unsigned char *p = (const unsigned char *)s;

	for (; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || strchr("_.+,:%", *p) || (is_unit && *p == '/'))
			sb_addc(out, (char)*p);
		else
			sb_addc(out, '_');
	}
}

/* "METRIC-UNIT", or "METRIC" for a metric without a unit. */
static void unit_token(struct strbuf *out, const char *metric, const char *unit)
{
	unit_part(out, *metric ? metric : "_", 0);
	if (unit) {
		sb_addc(out, '-');
		unit_part(out, unit, 1);
	}
}

/* The unit @workload declares for @metric (a name or an instance of a pattern); NULL: none. */
static const char *declared_unit(const struct report_view *v, const char *workload,
				 const char *metric)
{
	const struct sdoc_workload *w = workload ? report_view_workload(v, workload) : NULL;

	for (size_t i = 0; w && i < w->metrics.n; i++)
		if (metric_pattern_match(sdoc_metric_at(w, i)->name, metric))
			return sdoc_metric_at(w, i)->unit;
	return NULL;
}

/*
 * A benchmark name's last "-N" is GOMAXPROCS to x/perf: a kernel called
 * "v6-2" would read as kernel "v6" at 2 procs. Its last '-' before only
 * digits becomes '_' (the exact name is in the configuration lines).
 */
static void name_last_part(struct strbuf *out, const char *s)
{
	size_t start = out->len, i;

	sb_add_bench_token(out, s);
	for (i = out->len; i > start && out->buf[i - 1] >= '0' && out->buf[i - 1] <= '9'; i--)
		;
	if (i > start && i < out->len && out->buf[i - 1] == '-')
		out->buf[i - 1] = '_';
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

/*
 * " VALUE ": the shortest text that reads back as the same double, its
 * decimal point moved by @exp10 (Go's ParseFloat reads "2.3884e-3").
 */
static void add_value_exp(struct strbuf *out, double v, int exp10)
{
	char num[40];
	char *e;

	for (int prec = 6; prec <= 17; prec++) {
		snprintf(num, sizeof(num), "%.*g", prec, v);
		if (strtod(num, NULL) == v)
			break;
	}
	sb_addc(out, ' ');
	e = strchr(num, 'e');
	if (exp10 && isfinite(v) && v != 0) {
		sb_add(out, num, e ? (size_t)(e - num) : strlen(num));
		sb_addf(out, "e%d", (e ? atoi(e + 1) : 0) + exp10);
	} else {
		sb_adds(out, num);
	}
	sb_addc(out, ' ');
}

static void add_value(struct strbuf *out, double v)
{
	add_value_exp(out, v, 0);
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
	config_line(out, "mglrulab-guest", or(v->guest.doc.name, "-"));
	for (size_t i = 0; i < v->nkernels; i++) {
		const struct sdoc_kernel *k = &v->kernels[i];
		struct strbuf key = STRBUF_INIT, val = STRBUF_INIT;

		config_key(&key, "mglrulab-kernel-", or(k->name, "?"));
		sb_addf(&val, "%s %s %s %zu patches %s", or(k->name, "?"), or(k->ref, "-"),
			or(k->version, "-"), k->series.n, or(k->cache_key, "-"));
		config_line(out, key.buf, val.buf);
		sb_release(&key);
		sb_release(&val);
	}
}

struct unit_seen {
	char *unit;		/* the unit token */
	size_t i;		/* of the result */
};

static int unit_cmp(const void *a, const void *b)
{
	const struct unit_seen *x = a, *y = b;
	int c = strcmp(x->unit, y->unit);

	return c ? c : (x->i > y->i) - (x->i < y->i);
}

/* The unit token of result @r. */
static char *result_unit(const struct report_view *v, const struct result_record *r)
{
	struct strbuf sb = STRBUF_INIT;
	struct go_scale scale;

	unit_token(&sb, r->metric ? r->metric : "",
		   go_unit(declared_unit(v, r->workload, r->metric ? r->metric : ""), &scale));
	return sb_detach(&sb);
}

/*
 * One Unit line per unit token, in the order of its first result: metrics
 * of the same name in several workloads share it. Sorted once to find the
 * first of each (a scan per result was quadratic).
 */
static void unit_lines(const struct report_view *v, struct strbuf *out)
{
	struct unit_seen *by_unit = v->nresults ? xcalloc(v->nresults, sizeof(*by_unit)) : NULL;
	char *first = v->nresults ? xcalloc(v->nresults, 1) : NULL;
	char **units = v->nresults ? xcalloc(v->nresults, sizeof(*units)) : NULL;

	for (size_t i = 0; i < v->nresults; i++) {
		units[i] = result_unit(v, &v->results[i]);
		by_unit[i] = (struct unit_seen){ units[i], i };
	}
	if (v->nresults)
		qsort(by_unit, v->nresults, sizeof(*by_unit), unit_cmp);
	for (size_t i = 0; i < v->nresults; i++)
		first[by_unit[i].i] = !i || strcmp(by_unit[i - 1].unit, by_unit[i].unit);
	for (size_t i = 0; i < v->nresults; i++) {
		if (first[i])
			sb_addf(out, "Unit %s better=%s\n", units[i],
				or(v->results[i].better, "higher"));
		free(units[i]);
	}
	free(units);
	free(by_unit);
	free(first);
}

/* " 1" after the name: the run is one iteration of its workload. */
static void run_start(const struct run_record *run, struct strbuf *out)
{
	bench_name(out, run->workload);
	sb_adds(out, "/kernel=");
	name_last_part(out, run->kernel);
	sb_adds(out, " 1");
}

/* The run's counters as "GROUP.NAME" values, those with a number. */
static void counter_values(const struct run_record *run, struct strbuf *out, int *any)
{
	const char *gname, *name;
	json_t *group, *val;

	json_object_foreach((json_t *)run->counters, gname, group) {
		json_object_foreach(group, name, val) {
			if (!json_is_number(val))
				continue;
			if (!*any)
				run_start(run, out);
			*any = 1;
			add_value(out, json_number_value(val));
			unit_part(out, gname, 0);
			sb_addc(out, '.');
			unit_part(out, name, 0);
		}
	}
}

/* One line per measured run: its metrics that have a value (and counters when asked). */
static void run_line(const struct report_view *v, const struct run_record *run,
		     const struct report_benchfmt_opts *opts, struct strbuf *out)
{
	int any = 0;

	for (size_t m = 0; m < run->nr_metrics; m++) {
		struct go_scale scale;
		const char *unit;

		/* NaN: null in the report, no value. */
		if (isnan(run->metrics[m].value))
			continue;
		if (!any)
			run_start(run, out);
		any = 1;
		unit = go_unit(declared_unit(v, run->workload, run->metrics[m].name), &scale);
		add_value_exp(out, run->metrics[m].value * scale.mul, scale.exp10);
		unit_token(out, run->metrics[m].name, unit);
	}
	if (opts && opts->counters && run->counters)
		counter_values(run, out, &any);
	if (any)
		sb_addc(out, '\n');
}

void report_render_benchfmt_view(const struct report_view *v,
				 const struct report_benchfmt_opts *opts, struct strbuf *out)
{
	config_lines(v, out);
	sb_addc(out, '\n');
	unit_lines(v, out);
	sb_addc(out, '\n');
	/*
	 * The baseline's runs first: benchstat's first column is the first
	 * configuration it reads, and "vs base" is against it. Runs are
	 * otherwise in report order (the order statistics ignore).
	 */
	for (int base = 1; base >= 0; base--) {
		for (size_t i = 0; i < v->runs.n; i++) {
			const struct run_record *run = &v->runs.v[i];
			int is_base = v->design.baseline && run->kernel &&
				      !strcmp(run->kernel, v->design.baseline);

			if (!run->warmup && run->ok && is_base == base)
				run_line(v, run, opts, out);
			flush_point(out);
		}
	}
}
