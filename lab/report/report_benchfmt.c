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

void report_render_benchfmt(const json_t *r, struct strbuf *out)
{
	const json_t *host = json_object_get(r, "host");
	json_t *run, *res, *k, *units = json_object();
	size_t i;

	config_line(out, "goos", "linux");
	config_line(out, "goarch", "amd64");
	config_line(out, "pkg", "mglrulab");
	config_line(out, "cpu", jget_str(host, "cpu", "unknown"));
	config_line(out, "mglrulab-session", jget_str(jpath(r, "session"), "id", "-"));
	config_line(out, "mglrulab-accel", jget_str(host, "accel", "-"));
	config_line(out, "mglrulab-host-kernel", jget_str(host, "kernel", "-"));
	config_line(out, "mglrulab-guest", jget_str(jpath(r, "guest"), "name", "-"));
	json_array_foreach(json_object_get(r, "kernels"), i, k) {
		struct strbuf key = STRBUF_INIT, val = STRBUF_INIT;

		config_key(&key, "mglrulab-kernel-", jget_str(k, "name", "?"));
		sb_addf(&val, "%s %s %s %zu patches %s", jget_str(k, "name", "?"), jget_str(k, "ref", "-"),
			jget_str(k, "version", "-"), json_array_size(json_object_get(k, "series")),
			jget_str(k, "cache_key", "-"));
		config_line(out, key.buf, val.buf);
		sb_release(&key);
		sb_release(&val);
	}
	sb_addc(out, '\n');
	json_array_foreach(json_object_get(r, "results"), i, res) {
		const char *metric = jget_str(res, "metric", "");

		/* Metrics of the same name in several workloads share one Unit line. */
		if (json_object_get(units, metric))
			continue;
		json_object_set_new_nocheck(units, metric, json_true());
		sb_adds(out, "Unit ");
		unit_token(out, jget_str(res, "metric", ""));
		sb_addf(out, " better=%s\n", jget_str(res, "better", "higher"));
	}
	json_decref(units);
	sb_addc(out, '\n');
	json_array_foreach(json_object_get(r, "runs"), i, run) {
		const char *key;
		json_t *v;
		int any = 0;

		if (json_is_true(json_object_get(run, "warmup")) ||
		    strcmp(jget_str(run, "status", ""), "ok"))
			continue;
		json_object_foreach(json_object_get(run, "metrics"), key, v) {
			if (!json_is_number(v))
				continue;
			if (!any) {
				bench_name(out, jget_str(run, "workload", ""));
				sb_adds(out, "/kernel=");
				sb_add_bench_token(out, jget_str(run, "kernel", ""));
				sb_adds(out, " 1");
				any = 1;
			}
			add_value(out, json_number_value(v));
			unit_token(out, key);
		}
		if (any)
			sb_addc(out, '\n');
	}
}
