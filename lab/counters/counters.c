// SPDX-License-Identifier: GPL-2.0
#include "counters.h"
#include "counters_hist.h"
#include "lru_gen_parse.h"
#include "counters_vmstat.h"
#include "wis_parse.h"
#include "escape.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

/* The trigger the workloads install (workloads/lib/snap.c). */
#define OUR_TRIGGER "hist:keys=common_"

struct snapshot {
	char *label, *source, *tracepoint;
	json_t *text_json;	/* the guest line's string, shared rather than copied */
	const char *text;
	size_t len;
	int after;	/* phase: 0 before, 1 after */
	int truncated;
};

struct tp_info {
	char *label, *name, *reason;
	int absent;
};

struct overhead {
	char *label;
	double before, after, total;
};

struct counters {
	struct snapshot *snap;
	size_t nsnap, snap_alloc;
	struct tp_info *tp;
	size_t ntp, tp_alloc;
	struct overhead *oh;
	size_t noh, oh_alloc;
	json_t *wis_text;	/* will_it_scale's forwarded output, if any */
	json_t *problems;
	size_t problems_dropped;	/* past COUNTERS_MAX_PROBLEMS */
	int snap_limit_hit, info_limit_hit;
};

struct counters *counters_new(void)
{
	struct counters *c = xcalloc(1, sizeof(*c));

	c->problems = json_array();
	return c;
}

void counters_free(struct counters *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nsnap; i++) {
		free(c->snap[i].label);
		free(c->snap[i].source);
		free(c->snap[i].tracepoint);
		json_decref(c->snap[i].text_json);
	}
	for (size_t i = 0; i < c->ntp; i++) {
		free(c->tp[i].label);
		free(c->tp[i].name);
		free(c->tp[i].reason);
	}
	for (size_t i = 0; i < c->noh; i++)
		free(c->oh[i].label);
	free(c->snap);
	free(c->tp);
	free(c->oh);
	json_decref(c->wis_text);
	json_decref(c->problems);
	free(c);
}

/*
 * Every problem goes through here, those found while reading the lines and
 * those found while pairing them: a hostile guest must not grow the report
 * without limit. The last slot is kept for saying how many were left out.
 */
static void add_problem(json_t *problems, size_t *dropped, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void add_problem(json_t *problems, size_t *dropped, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	if (json_array_size(problems) >= COUNTERS_MAX_PROBLEMS - 1) {
		(*dropped)++;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	/* Guest text, and vsnprintf may cut a UTF-8 sequence short. */
	json_array_append_new(problems, json_string_lossy(buf));
}

static void close_problems(json_t *problems, size_t dropped)
{
	if (dropped)
		json_array_append_new(problems, json_sprintf("%zu more problem%s not listed "
							     "(COUNTERS_MAX_PROBLEMS = %d)", dropped,
							     dropped == 1 ? "" : "s",
							     COUNTERS_MAX_PROBLEMS));
}

#define problem(c, ...) add_problem((c)->problems, &(c)->problems_dropped, __VA_ARGS__)

/* A "snapshot" line: one source's text before or after the run. */
static int add_snapshot(struct counters *c, const struct counters_line *line)
{
	const char *phase = line->phase, *source = line->source, *tp = line->tracepoint;
	const json_t *text = line->text;
	struct snapshot *s;

	if (!phase || !source || !text ||
	    (strcmp(phase, "before") && strcmp(phase, "after"))) {
		problem(c, "malformed snapshot line (phase, source or text missing)");
		return -1;
	}
	if (strlen(source) > COUNTERS_MAX_NAME || strlen(line->label) > COUNTERS_MAX_NAME ||
	    (tp && strlen(tp) > COUNTERS_MAX_NAME)) {
		problem(c, "snapshot line with a label, source or tracepoint longer than %d bytes "
			"(COUNTERS_MAX_NAME): ignored", COUNTERS_MAX_NAME);
		return -1;
	}
	if (c->nsnap >= COUNTERS_MAX_SNAPSHOTS) {
		if (!c->snap_limit_hit++)
			problem(c, "more than %d snapshot lines (COUNTERS_MAX_SNAPSHOTS): "
				"the rest are ignored", COUNTERS_MAX_SNAPSHOTS);
		return -1;
	}
	ALLOC_GROW(c->snap, c->nsnap + 1, c->snap_alloc);
	s = &c->snap[c->nsnap++];
	s->label = xstrdup(line->label);
	s->source = xstrdup(source);
	s->tracepoint = tp ? xstrdup(tp) : NULL;
	s->text_json = json_incref((json_t *)text);
	s->text = json_string_value(text);
	s->len = json_string_length(text);
	s->after = !strcmp(phase, "after");
	s->truncated = line->truncated;
	return 0;
}

/* An "info" line about a tracepoint: whether it was there, and why not. */
static int add_tracepoint(struct counters *c, const struct counters_line *line)
{
	struct tp_info *t;

	if (strlen(line->tracepoint) > COUNTERS_MAX_NAME ||
	    strlen(line->label) > COUNTERS_MAX_NAME) {
		problem(c, "tracepoint line with a label or name longer than %d bytes "
			"(COUNTERS_MAX_NAME): ignored", COUNTERS_MAX_NAME);
		return -1;
	}
	ALLOC_GROW(c->tp, c->ntp + 1, c->tp_alloc);
	t = &c->tp[c->ntp++];
	t->label = xstrdup(line->label);
	t->name = xstrdup(line->tracepoint);
	t->reason = xstrdup(line->reason ? line->reason : "");
	t->absent = line->absent;
	return 0;
}

/* The "counter_overhead" info line: what reading the counters cost. */
static int add_overhead(struct counters *c, const struct counters_line *line)
{
	struct overhead *o;

	if (strlen(line->label) > COUNTERS_MAX_NAME) {
		problem(c, "counter_overhead line with a label longer than %d bytes "
			"(COUNTERS_MAX_NAME): ignored", COUNTERS_MAX_NAME);
		return -1;
	}
	ALLOC_GROW(c->oh, c->noh + 1, c->oh_alloc);
	o = &c->oh[c->noh++];
	o->label = xstrdup(line->label);
	o->before = line->before_ms;
	o->after = line->after_ms;
	o->total = line->total_ms;
	return 0;
}

/* Whether @line is an "info" line named @name. */
static int is_info_named(const struct counters_line *line, const char *name)
{
	return line->name && !strcmp(line->name, name);
}

int counters_add_line(struct counters *c, const json_t *json)
{
	struct counters_line line;

	counters_line_decode(json, &line);
	if (line.kind == COUNTERS_LINE_SNAPSHOT)
		return add_snapshot(c, &line);
	if (line.kind != COUNTERS_LINE_INFO)
		return 0;
	if ((line.tracepoint || is_info_named(&line, "counter_overhead")) &&
	    c->ntp + c->noh >= COUNTERS_MAX_INFOS) {
		if (!c->info_limit_hit++)
			problem(c, "more than %d tracepoint and overhead lines (COUNTERS_MAX_INFOS): "
				"the rest are ignored", COUNTERS_MAX_INFOS);
		return -1;
	}
	if (line.tracepoint)
		return add_tracepoint(c, &line);
	if (is_info_named(&line, "will_it_scale_output") && line.text && !c->wis_text) {
		c->wis_text = json_incref((json_t *)line.text);
		return 0;
	}
	if (is_info_named(&line, "counter_overhead"))
		return add_overhead(c, &line);
	return 0;
}

void counters_add_text(struct counters *c, const char *text, size_t len)
{
	size_t i = 0, lineno = 0;

	while (i < len) {
		const char *nl = memchr(text + i, '\n', len - i);
		size_t n = nl ? (size_t)(nl - (text + i)) : len - i;
		json_error_t err;
		json_t *o;

		lineno++;
		if (n) {
			o = json_loadb(text + i, n, JSON_REJECT_DUPLICATES, &err);
			if (!json_is_object(o))
				problem(c, "line %zu is not a JSON object: %s", lineno, err.text);
			else
				counters_add_line(c, o);
			json_decref(o);
		}
		i += n + 1;
	}
}

static json_t *jint(uint64_t v)
{
	/* json_int_t is signed 64-bit; clamp instead of wrapping. */
	return json_integer(v > (uint64_t)INT64_MAX ? INT64_MAX : (json_int_t)v);
}

static const char *state_name(enum vmstat_delta_state s)
{
	switch (s) {
	case VMSTAT_DELTA_BACKWARDS: return "backwards";
	case VMSTAT_DELTA_MISSING_BEFORE: return "missing_before";
	case VMSTAT_DELTA_MISSING_AFTER: return "missing_after";
	default: return "ok";
	}
}

/*
 * The names of @names (@b, then @a) into events, gauges and flags, each
 * once: a snapshot's names are unique (vmstat_parse()), so a name of @a
 * was listed already when @b has it.
 */
static void vmstat_side(json_t *events, json_t *gauges, json_t *flags,
			const struct vmstat *b, const struct vmstat *a, const struct vmstat *names)
{
	for (size_t i = 0; i < names->n; i++) {
		const char *name = names->e[i].name;
		const int64_t *bv = vmstat_get(b, name), *av = vmstat_get(a, name);

		if (names != b && bv)
			continue;
		if (vmstat_classify(name) == VMSTAT_GAUGE) {
			json_t *g = json_object();

			json_object_set_new(g, "before", bv ? json_integer(*bv) : json_null());
			json_object_set_new(g, "after", av ? json_integer(*av) : json_null());
			json_object_set_new(gauges, name, g);
		} else {
			uint64_t d = 0;
			enum vmstat_delta_state st = vmstat_delta(b, a, name, &d);
			json_t *f;

			if (st == VMSTAT_DELTA_OK) {
				json_object_set_new(events, name, jint(d));
				continue;
			}
			f = json_object();
			json_object_set_new(f, "name", json_string(name));
			json_object_set_new(f, "state", json_string(state_name(st)));
			json_object_set_new(f, "before", bv ? json_integer(*bv) : json_null());
			json_object_set_new(f, "after", av ? json_integer(*av) : json_null());
			json_array_append_new(flags, f);
		}
	}
}

json_t *counters_vmstat_json(const char *before, size_t blen, const char *after, size_t alen)
{
	struct vmstat b, a;
	json_t *o, *events, *gauges, *flags;

	if (vmstat_parse(before, blen, &b))
		die("out of memory");
	if (vmstat_parse(after, alen, &a))
		die("out of memory");
	o = json_object();
	events = json_object();
	gauges = json_object();
	flags = json_array();
	vmstat_side(events, gauges, flags, &b, &a, &b);
	vmstat_side(events, gauges, flags, &b, &a, &a);
	json_object_set_new(o, "events", events);
	json_object_set_new(o, "gauges", gauges);
	json_object_set_new(o, "flags", flags);
	json_object_set_new(o, "bad_lines", jint(b.bad_lines + a.bad_lines));
	json_object_set_new(o, "truncated", json_boolean(b.truncated || a.truncated));
	vmstat_release(&b);
	vmstat_release(&a);
	return o;
}

static json_t *gen_json(const struct lru_gen_gen *g)
{
	json_t *o = json_object(), *mm;

	json_object_set_new(o, "seq", jint(g->seq));
	json_object_set_new(o, "age_ms", jint(g->age_ms));
	json_object_set_new(o, "anon", jint(g->pages[0]));
	json_object_set_new(o, "file", jint(g->pages[1]));
	if (lru_gen_mm_valid(g)) {
		mm = json_array();
		for (int i = 0; i < g->nmm; i++)
			json_array_append_new(mm, jint(g->mm[i]));
		json_object_set_new(o, "mm", mm);
	}
	return o;
}

static json_t *lru_node_json(const struct lru_gen_node *bn, const struct lru_gen_node *an, int nid)
{
	json_t *o = json_object(), *gens = json_array(), *walk = json_object();
	uint64_t bmax = lru_gen_max_seq(bn), amax = lru_gen_max_seq(an);
	uint64_t sum[LRU_GEN_MAX_MM_STATS] = { 0 };
	int ncols = 0;

	json_object_set_new(o, "node", json_integer(nid));
	if (bn) {
		json_object_set_new(o, "min_seq_before", jint(lru_gen_min_seq(bn)));
		json_object_set_new(o, "max_seq_before", jint(bmax));
	}
	if (an) {
		json_object_set_new(o, "min_seq_after", jint(lru_gen_min_seq(an)));
		json_object_set_new(o, "max_seq_after", jint(amax));
	}
	if (bn && an)
		json_object_set_new(o, "generations_added", amax >= bmax ? jint(amax - bmax) : json_null());
	for (size_t i = 0; an && i < an->ngens; i++) {
		const struct lru_gen_gen *g = &an->gens[i];

		json_array_append_new(gens, gen_json(g));
		/*
		 * Walk stats of generations closed during the phase: those from
		 * the max_seq before up to (not including) the max_seq after.
		 */
		if (bn && g->seq >= bmax && g->seq < amax && lru_gen_mm_valid(g)) {
			for (int k = 0; k < g->nmm; k++)
				sum[k] += g->mm[k];
			if (g->nmm > ncols)
				ncols = g->nmm;
		}
	}
	for (int k = 0; k < ncols; k++) {
		char name[32];

		if (k < 4)
			snprintf(name, sizeof(name), "%s", lru_gen_mm_stat_names[k]);
		else
			snprintf(name, sizeof(name), "mm_stat%d", k);
		json_object_set_new(walk, name, jint(sum[k]));
	}
	json_object_set_new(o, "mm_walk", walk);
	json_object_set_new(o, "generations", gens);
	return o;
}

static json_t *lru_gen_json(const struct snapshot *b, const struct snapshot *a)
{
	struct lru_gen_snapshot sb, sa;
	json_t *o = json_object(), *memcgs = json_array();

	if (lru_gen_parse(b->text, b->len, &sb) || lru_gen_parse(a->text, a->len, &sa))
		die("out of memory");
	for (size_t i = 0; i < sa.nmemcgs; i++) {
		const struct lru_gen_memcg *am = &sa.memcgs[i];
		/* Ids are reused after a memcg dies: match by id and path. */
		const struct lru_gen_memcg *bm = lru_gen_find_id(&sb, am->id);
		json_t *m = json_object(), *nodes = json_array();

		if (bm && strcmp(bm->path, am->path))
			bm = NULL;
		json_object_set_new(m, "id", json_integer(am->id));
		json_object_set_new(m, "path", json_string_lossy(am->path));
		json_object_set_new(m, "new", json_boolean(!bm));
		for (size_t k = 0; k < am->nnodes; k++)
			json_array_append_new(nodes, lru_node_json(lru_gen_find_node(bm, am->nodes[k].nid),
								   &am->nodes[k], am->nodes[k].nid));
		json_object_set_new(m, "nodes", nodes);
		json_array_append_new(memcgs, m);
	}
	json_object_set_new(o, "memcgs", memcgs);
	json_object_set_new(o, "bad_lines", jint(sb.bad_lines + sa.bad_lines));
	json_object_set_new(o, "truncated", json_boolean(sb.truncated || sa.truncated ||
							 b->truncated || a->truncated));
	lru_gen_release(&sb);
	lru_gen_release(&sa);
	return o;
}

#define NO_SNAPSHOT ((size_t)-1)

/* qsort_r: label, source, then index (so a group's first "after" comes first). */
static int cmp_snap_ix(const void *a, const void *b, void *arg)
{
	const struct snapshot *snap = arg;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	const struct snapshot *sx = &snap[x], *sy = &snap[y];
	int c = strcmp(sx->label, sy->label);

	if (!c)
		c = strcmp(sx->source, sy->source);
	return c ? c : (x > y) - (x < y);
}

/*
 * Pair "before" and "after" snapshots of one label and source: @pair[i] is,
 * for a "before", the first "after" of its kind (NO_SNAPSHOT if none), and
 * for an "after", 1 when some "before" exists. Sorted once instead of a
 * scan per snapshot, which was quadratic in the guest's line count.
 */
static size_t *pair_snapshots(const struct counters *c)
{
	size_t n = c->nsnap, *ix = xcalloc(n + 1, sizeof(*ix)), *pair = xcalloc(n + 1, sizeof(*pair));

	for (size_t i = 0; i < n; i++)
		ix[i] = i;
	qsort_r(ix, n, sizeof(*ix), cmp_snap_ix, c->snap);
	for (size_t g = 0, end; g < n; g = end) {
		size_t first_after = NO_SNAPSHOT;
		int any_before = 0;

		for (end = g; end < n && !strcmp(c->snap[ix[end]].label, c->snap[ix[g]].label) &&
		     !strcmp(c->snap[ix[end]].source, c->snap[ix[g]].source); end++) {
			/* In index order within the group: the first "after" comes first. */
			if (c->snap[ix[end]].after && first_after == NO_SNAPSHOT)
				first_after = ix[end];
			any_before |= !c->snap[ix[end]].after;
		}
		for (size_t k = g; k < end; k++)
			pair[ix[k]] = c->snap[ix[k]].after ? (size_t)any_before : first_after;
	}
	free(ix);
	return pair;
}

static int node_of(const char *source)
{
	const char *p = "/sys/devices/system/node/node";
	long nid;
	char *end;

	if (strncmp(source, p, strlen(p)))
		return -1;
	nid = strtol(source + strlen(p), &end, 10);
	if (end == source + strlen(p) || strcmp(end, "/vmstat") || nid < 0 || nid > 65535)
		return -1;
	return (int)nid;
}

static void add_tracepoint_counts(const struct counters *c, json_t *phases, json_t *problems,
				  size_t *dropped)
{
	for (size_t i = 0; i < c->nsnap; i++) {
		const struct snapshot *s = &c->snap[i];
		struct hist_file hf;
		uint64_t n = 0;
		int r;
		json_t *t;

		if (!s->tracepoint)
			continue;
		hist_parse(s->text, s->len, &hf);
		r = hist_count(&hf, OUR_TRIGGER, &n);
		t = json_object();
		if (r < 0) {
			json_object_set_new(t, "absent", json_false());
			json_object_set_new(t, "error", json_string("no histogram of ours in the hist file"));
			add_problem(problems, dropped, "tracepoint %s: no histogram", s->tracepoint);
		} else {
			json_object_set_new(t, "count", jint(n));
			json_object_set_new(t, "partial", json_boolean(r == 1 || s->truncated));
			json_object_set_new(t, "dropped", jint(hf.h[0].dropped));
		}
		json_object_set_new(counters_doc_member(counters_doc_member(phases, s->label), "tracepoints"),
				    s->tracepoint, t);
	}
	for (size_t i = 0; i < c->ntp; i++) {
		const struct tp_info *tp = &c->tp[i];
		json_t *t = json_object();

		json_object_set_new(t, "absent", json_boolean(tp->absent));
		json_object_set_new(t, "reason", json_string_lossy(tp->reason));
		json_object_set_new(counters_doc_member(counters_doc_member(phases, tp->label), "tracepoints"), tp->name, t);
	}
}

/*
 * will-it-scale's own text, re-parsed: the samples behind the metric, and
 * whether its "average" agrees with the measured samples.
 */
static json_t *wis_json(const char *text, size_t len)
{
	struct wis_result r;
	json_t *o = json_object(), *w = json_array(), *m = json_array();
	double mean;

	if (wis_parse(text, len, &r))
		die("out of memory");
	mean = wis_mean(&r);
	for (size_t i = 0; i < r.nwarmup; i++)
		json_array_append_new(w, jint(r.warmup[i].total));
	for (size_t i = 0; i < r.nmeasured; i++)
		json_array_append_new(m, jint(r.measured[i].total));
	json_object_set_new(o, "testcase", json_string_lossy(r.testcase));
	json_object_set_new(o, "warmup_totals", w);
	json_object_set_new(o, "measured_totals", m);
	json_object_set_new(o, "average", r.has_average ? jint(r.average) : json_null());
	/* Integer division in will-it-scale: the mean rounds down to it. */
	json_object_set_new(o, "consistent", json_boolean(r.has_average && mean >= 0 &&
							  (uint64_t)mean == r.average));
	json_object_set_new(o, "bad_lines", jint(r.bad_lines));
	json_object_set_new(o, "truncated", json_boolean(r.truncated));
	wis_release(&r);
	return o;
}

json_t *counters_delta_json(const struct counters *c)
{
	json_t *root = json_object(), *phases = json_object(), *problems = json_deep_copy(c->problems);
	size_t dropped = c->problems_dropped, *pair = pair_snapshots(c);

	for (size_t i = 0; i < c->nsnap; i++) {
		const struct snapshot *b = &c->snap[i], *a;
		json_t *phase;
		int nid;

		if (b->tracepoint)
			continue;
		if (b->after) {
			/* An "after" without its "before" cannot give deltas. */
			if (!pair[i])
				add_problem(problems, &dropped, "%s (%s): no \"before\" snapshot",
					    b->source, b->label);
			continue;
		}
		if (pair[i] == NO_SNAPSHOT) {
			add_problem(problems, &dropped, "%s (%s): no \"after\" snapshot", b->source,
				    b->label);
			continue;
		}
		a = &c->snap[pair[i]];
		phase = counters_doc_member(phases, b->label);
		if (!strcmp(b->source, "/proc/vmstat")) {
			json_object_set_new(phase, "vmstat",
					    counters_vmstat_json(b->text, b->len, a->text, a->len));
		} else if ((nid = node_of(b->source)) >= 0) {
			char key[16];

			snprintf(key, sizeof(key), "%d", nid);
			json_object_set_new(counters_doc_member(phase, "nodes"), key,
					    counters_vmstat_json(b->text, b->len, a->text, a->len));
		} else if (str_ends_with(b->source, "/lru_gen_full")) {
			json_object_set_new(phase, "lru_gen", lru_gen_json(b, a));
		} else {
			add_problem(problems, &dropped, "unknown snapshot source %s", b->source);
		}
	}
	free(pair);
	add_tracepoint_counts(c, phases, problems, &dropped);
	for (size_t i = 0; i < c->noh; i++) {
		json_t *o = json_object();

		json_object_set_new(o, "before", json_real(c->oh[i].before));
		json_object_set_new(o, "after", json_real(c->oh[i].after));
		json_object_set_new(o, "total", json_real(c->oh[i].total));
		json_object_set_new(counters_doc_member(phases, c->oh[i].label), "overhead_ms", o);
	}
	json_object_set_new(root, "phases", phases);
	if (c->wis_text)
		json_object_set_new(root, "will_it_scale", wis_json(json_string_value(c->wis_text),
								    json_string_length(c->wis_text)));
	close_problems(problems, dropped);
	json_object_set_new(root, "problems", problems);
	return root;
}
