// SPDX-License-Identifier: GPL-2.0
#include "snap.h"
#include "attr_mark.h"
#include "fileio.h"
#include "jsonl.h"
#include "topo.h"
#include "workload_params.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*
 * Leave room for the JSON around the text and for escaping ("\n" is two
 * bytes); text that escapes to more than a line is cut further below.
 */
#define SNAP_MAX_TEXT (WL_LINE_MAX - 64 * 1024)

static void find_tracing(struct wl_snap *s)
{
	static const char *const roots[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };

	s->tracing[0] = '\0';
	for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]); i++) {
		char p[96];

		snprintf(p, sizeof(p), "%s/events", roots[i]);
		if (!access(p, F_OK)) {
			snprintf(s->tracing, sizeof(s->tracing), "%s", roots[i]);
			return;
		}
	}
}

void wl_snap_init(struct wl_snap *s, const struct wl_args *args)
{
	const char *list = wl_arg(args, "tracepoints");
	char *copy, *tok, *save = NULL;

	memset(s, 0, sizeof(*s));
	s->enabled = wl_arg_long(args, "counters");
	copy = strdup(list);
	s->tps = calloc(strlen(list) / 2 + 1, sizeof(*s->tps));
	if (!copy || !s->tps)
		wl_fail("out of memory");
	for (tok = strtok_r(copy, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save)) {
		char *colon = strchr(tok, ':');
		struct wl_tp *tp = &s->tps[s->ntp];

		/* the host's check (common/), which wl_args_parse() already ran */
		if (!colon || param_tracepoint(tok, strlen(tok)) < 0)
			wl_fail("--tracepoints: '%s' is not subsystem:event", tok);
		snprintf(tp->sys, sizeof(tp->sys), "%.*s", (int)(colon - tok), tok);
		snprintf(tp->evt, sizeof(tp->evt), "%s", colon + 1);
		s->ntp++;
	}
	free(copy);
}

int wl_snap_file(const char *phase, const char *label, const char *path, const char *tracepoint)
{
	size_t len, keep;
	int truncated;
	char *text = wl_read_file(path, SNAP_MAX_TEXT, &len, &truncated);
	struct jl j;

	if (!text)
		return -errno;
	keep = len;
	for (;;) {
		jl_begin(&j, WL_REC_SNAPSHOT);
		jl_str(&j, "phase", phase);
		if (label && *label)
			jl_str(&j, "label", label);
		jl_str(&j, "source", path);
		if (tracepoint)
			jl_str(&j, "tracepoint", tracepoint);
		if (truncated || keep < len)
			jl_bool(&j, "truncated", 1);
		jl_strn(&j, "text", text, keep);
		/* Escaping can grow text (control bytes become \u00xx). */
		if (j.len + 2 <= WL_LINE_MAX || keep == 0)
			break;
		jl_abort(&j);
		keep /= 2;
	}
	jl_end(&j);
	free(text);
	return 0;
}

/*
 * Count every hit in one bucket: common_type is the same for all events of
 * one tracepoint, so the histogram has one entry and "Hits" is the total.
 */
static const char *const trigger_specs[] = { "hist:keys=common_type", "hist:keys=common_pid" };

/*
 * A paused histogram: it never fires, and it keeps the event in the
 * kernel's "soft mode" (kernel/trace/trace_events.c), where a disabled event
 * keeps its probe registered.
 */
static const char hold_spec[] = "hist:keys=common_cpu:size=128:pause";

/*
 * The host enabled the event at boot (trace_event=, lab/guest/guest_job.h)
 * so that its probe was registered before the other CPUs started: doing it
 * now would rewrite kernel text under them, which multi-threaded TCG
 * mishandles now and then (an int3 panic). Keep it registered from here on
 * and stop recording it into the ring buffer: the hold trigger first, then
 * "0" to enable (soft mode: only marks it disabled). Installing and removing
 * the counting trigger then never registers or unregisters a probe.
 */
static void tp_hold(struct wl_tp *tp)
{
	char path[400], *text;
	size_t len;
	int truncated;

	if (tp->held)
		return;
	tp->held = 1;
	snprintf(path, sizeof(path), "%s/enable", tp->dir);
	text = wl_read_file(path, 64, &len, &truncated);
	/* "1": enabled, and not in soft mode (that reads "1*" or "0*") */
	if (text && len >= 1 && text[0] == '1' && (len == 1 || text[1] == '\n')) {
		char trigger[400];

		snprintf(trigger, sizeof(trigger), "%s/trigger", tp->dir);
		/* without the hold, "0" unregisters: still better than recording every event */
		wl_write_file(trigger, hold_spec);
		wl_write_file(path, "0");
	}
	free(text);
}

static void tp_install(struct wl_snap *s, struct wl_tp *tp)
{
	char path[400];
	int err = 0;

	tp->spec = NULL;
	if (!s->tracing[0]) {
		snprintf(tp->state, sizeof(tp->state), "absent: tracefs is not mounted");
		return;
	}
	snprintf(tp->dir, sizeof(tp->dir), "%s/events/%s/%s", s->tracing, tp->sys, tp->evt);
	if (access(tp->dir, F_OK)) {
		snprintf(tp->state, sizeof(tp->state), "absent: no such event in this kernel");
		return;
	}
	tp_hold(tp);
	snprintf(path, sizeof(path), "%s/trigger", tp->dir);
	for (size_t i = 0; i < sizeof(trigger_specs) / sizeof(trigger_specs[0]); i++) {
		err = wl_write_file(path, trigger_specs[i]);
		if (!err) {
			tp->spec = trigger_specs[i];
			tp->state[0] = '\0';
			return;
		}
	}
	snprintf(tp->state, sizeof(tp->state), "unavailable: cannot install a hist trigger: %s",
		 strerror(-err));
}

static void tp_remove(struct wl_tp *tp)
{
	char path[400], spec[64];

	if (!tp->spec)
		return;
	snprintf(path, sizeof(path), "%s/trigger", tp->dir);
	snprintf(spec, sizeof(spec), "!%s", tp->spec);
	wl_write_file(path, spec);
	tp->spec = NULL;
}

static void snap_files(const char *phase, const char *label)
{
	int nodes[WL_MAX_NODES], n = wl_online_nodes(nodes, WL_MAX_NODES);

	wl_snap_file(phase, label, "/proc/vmstat", NULL);
	for (int i = 0; i < n; i++) {
		char path[96];

		snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/vmstat", nodes[i]);
		wl_snap_file(phase, label, path, NULL);
	}
	/* Absent without CONFIG_LRU_GEN or debugfs: the host records it as missing. */
	wl_snap_file(phase, label, "/sys/kernel/debug/lru_gen_full", NULL);
}

void wl_snap_prepare(struct wl_snap *s, const char *label)
{
	double t0;

	snprintf(s->label, sizeof(s->label), "%s", label ? label : "");
	if (s->enabled) {
		t0 = wl_now();
		if (s->ntp)
			find_tracing(s);
		for (int i = 0; i < s->ntp; i++)
			tp_install(s, &s->tps[i]);
		snap_files("before", s->label);
		s->t_before = wl_now() - t0;
	}
}

void wl_snap_before(struct wl_snap *s, const char *label)
{
	wl_snap_prepare(s, label);
	wl_mark_open();	/* last: the window is the measured phase alone */
}

void wl_snap_after(struct wl_snap *s)
{
	double t0;
	struct jl j;

	wl_mark_close();	/* first, for the same reason */
	if (!s->enabled)
		return;
	t0 = wl_now();
	snap_files("after", s->label);
	for (int i = 0; i < s->ntp; i++) {
		struct wl_tp *tp = &s->tps[i];
		char name[200], path[400];

		snprintf(name, sizeof(name), "%s:%s", tp->sys, tp->evt);
		if (tp->spec) {
			snprintf(path, sizeof(path), "%s/hist", tp->dir);
			if (wl_snap_file("after", s->label, path, name))
				snprintf(tp->state, sizeof(tp->state), "unavailable: cannot read %.100s",
					 path);
			tp_remove(tp);
		}
		if (tp->state[0]) {
			jl_begin(&j, WL_REC_INFO);
			jl_str(&j, "tracepoint", name);
			if (s->label[0])
				jl_str(&j, "label", s->label);
			jl_bool(&j, "absent", !strncmp(tp->state, "absent", 6));
			jl_str(&j, "reason", tp->state);
			jl_end(&j);
		}
	}
	s->t_after = wl_now() - t0;
	jl_begin(&j, WL_REC_INFO);
	jl_str(&j, "name", "counter_overhead");
	if (s->label[0])
		jl_str(&j, "label", s->label);
	jl_dbl(&j, "before_ms", s->t_before * 1e3);
	jl_dbl(&j, "after_ms", s->t_after * 1e3);
	jl_dbl(&j, "total_ms", (s->t_before + s->t_after) * 1e3);
	jl_end(&j);
}

void wl_snap_cleanup(struct wl_snap *s)
{
	for (int i = 0; i < s->ntp; i++)
		tp_remove(&s->tps[i]);
}
