/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Counter snapshots around a workload's measured phase: /proc/vmstat,
 * every node's vmstat and /sys/kernel/debug/lru_gen_full as raw text
 * ("snapshot" lines, parsed on the host), and tracepoint hit counts
 * through hist triggers (counted in the kernel, never streamed). An event
 * a kernel does not have is reported as absent; it is not an error,
 * because the baseline of an A/B pair usually lacks the patch's new
 * tracepoints. The time spent collecting is reported as well, so that its
 * cost can be compared with the effect being measured.
 */
#ifndef WL_SNAP_H
#define WL_SNAP_H

#include "args.h"

struct wl_tp {
	char sys[PARAM_TP_SYS_LEN], evt[PARAM_TP_EVT_LEN];	/* param_tracepoint() limits */
	char dir[320];		/* <tracefs>/events/sys/evt */
	const char *spec;	/* the trigger we installed, NULL if none */
	int held;		/* tp_hold() ran */
	char state[160];	/* why it is not counted, if it is not */
};

struct wl_snap {
	int enabled;
	struct wl_tp *tps;
	int ntp;
	char tracing[64];	/* tracefs root, "" if not mounted */
	double t_before, t_after;
	char label[64];
};

/*
 * Read --counters and --tracepoints (every program's table has them,
 * common/workload_params.c); exits 1 on a malformed tracepoint name.
 */
void wl_snap_init(struct wl_snap *s, const struct wl_args *args);
/*
 * Install triggers, then snapshot "before", then open the attribution
 * plugin's window (one NOP without the plugin). @label tells several
 * measured phases apart.
 */
void wl_snap_before(struct wl_snap *s, const char *label);
/*
 * wl_snap_before() without the opening mark: for a workload that must do
 * something at the very instruction before it (coh_calib), then calls
 * wl_mark_open() itself.
 */
void wl_snap_prepare(struct wl_snap *s, const char *label);
/* Close the plugin's window, snapshot "after", read and remove the triggers, report the overhead. */
void wl_snap_after(struct wl_snap *s);
/* Remove any trigger still installed (error paths). */
void wl_snap_cleanup(struct wl_snap *s);

/* Emit one snapshot line of file @path (silently nothing if unreadable). */
int wl_snap_file(const char *phase, const char *label, const char *path,
		 const char *tracepoint);

#endif
