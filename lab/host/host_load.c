// SPDX-License-Identifier: GPL-2.0
#include "host_load.h"
#include "xjson.h"
#include "fsutil.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

int host_parse_proc_stat(const char *text, unsigned long long *busy, unsigned long long *steal)
{
	/* user nice system idle iowait irq softirq steal guest guest_nice */
	unsigned long long v[10] = { 0 };
	int n;

	if (!text || strncmp(text, "cpu ", 4))
		return -1;
	n = sscanf(text + 4, "%llu %llu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1],
		   &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9]);
	if (n < 4)
		return -1;
	/* guest and guest_nice are already counted in user and nice. */
	*busy = v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
	*steal = v[7];
	return 0;
}

static double tv_s(struct timeval tv)
{
	return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

void host_sample_take(struct host_sample *s)
{
	struct strbuf sb = STRBUF_INIT;
	unsigned long long busy, steal;
	struct rusage ru;
	long hz = sysconf(_SC_CLK_TCK);

	memset(s, 0, sizeof(*s));
	s->wall = now_monotonic();
	if (!read_file("/proc/stat", &sb, 1 << 20) && hz > 0 &&
	    !host_parse_proc_stat(sb_str(&sb), &busy, &steal)) {
		s->busy_s = (double)busy / (double)hz;
		s->steal_s = (double)steal / (double)hz;
		s->ok = 1;
	}
	sb_reset(&sb);
	if (!read_file("/proc/loadavg", &sb, 4096))
		s->load1 = strtod(sb_str(&sb), NULL);
	sb_release(&sb);
	if (!getrusage(RUSAGE_SELF, &ru))
		s->self_s = tv_s(ru.ru_utime) + tv_s(ru.ru_stime);
	if (!getrusage(RUSAGE_CHILDREN, &ru))
		s->children_s = tv_s(ru.ru_utime) + tv_s(ru.ru_stime);
}

json_t *host_load_json(const struct host_sample *a, const struct host_sample *b,
		       double qemu_cpu_s)
{
	double wall = b->wall - a->wall, run, other, steal;
	int busy;

	if (!a->ok || !b->ok || !(wall > 0))
		return NULL;
	/* The guest's QEMU, this process, and children it reaped (qemu-img). */
	run = (qemu_cpu_s > 0 ? qemu_cpu_s : 0) + (b->children_s - a->children_s) +
	      (b->self_s - a->self_s);
	steal = b->steal_s - a->steal_s;
	other = (b->busy_s - a->busy_s) - steal - run;
	if (other < 0)
		other = 0;	/* tick granularity against rusage's microseconds */
	busy = other / wall > HOST_OTHER_CPU_LIMIT ||
	       (run > 0 && steal / (run + steal) > HOST_STEAL_LIMIT);
	return xjson_pack("{s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:b}", "wall_s", wall,
			 "qemu_cpu_s", qemu_cpu_s, "run_cpu_s", run,
			 "other_cpu_s", other, "other_cpus", other / wall, "steal_s", steal,
			 "load1", b->load1, "busy", busy);
}
