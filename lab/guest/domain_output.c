// SPDX-License-Identifier: GPL-2.0
/*
 * What a guest may write: the caps on its console and results files
 * (GUEST_CONSOLE_LOG_MAX, GUEST_RESULT_FILE_MAX, lowered by the tests'
 * knobs) and the run folder's free space.
 */
#include "domain_run_priv.h"
#include "fsutil.h"
#include "guest_protocol.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

long long guest_output_cap(const char *name, long long def)
{
	const char *v = getenv(name);
	long n;

	if (!v || !*v || parse_long(v, 1, def, &n))
		return def;
	return n;
}

static int file_over(const char *path, long long max, const char *limit, long long def,
		     const char *knob, struct strbuf *why)
{
	long long size = file_size(path);

	if (size <= max)
		return 0;
	sb_addf(why, "%s grew to %lld bytes, over %s (%lld bytes", path, size, limit, max);
	if (max != def)
		sb_addf(why, ", lowered by $%s from %lld", knob, def);
	sb_adds(why, ")");
	return 1;
}

int guest_output_over(const char *console, long long console_max, const char *channel,
		      long long channel_max, struct strbuf *why)
{
	return file_over(console, console_max, "GUEST_CONSOLE_LOG_MAX", GUEST_CONSOLE_LOG_MAX,
			 "MGLRULAB_TEST_CONSOLE_MAX", why) ||
	       file_over(channel, channel_max, "GUEST_RESULT_FILE_MAX", GUEST_RESULT_FILE_MAX,
			 "MGLRULAB_TEST_CHANNEL_MAX", why);
}

/* Over a cap: the run fails and the guest goes. 1 when that happened. */
int domain_check_output(virDomainPtr dom, struct guest_run *run, const char *console,
			const char *channel)
{
	struct strbuf why = STRBUF_INIT;

	if (!guest_output_over(console, run->console_max, channel, run->channel_max, &why)) {
		sb_release(&why);
		return 0;
	}
	if (dom)
		virDomainDestroy(dom);
	domain_set_failure(run, GUEST_RUN_FAILED, NULL, "%s: the guest was destroyed", sb_str(&why));
	sb_release(&why);
	return 1;
}

/*
 * What QEMU wrote between the last check and the guest's end goes: the
 * file keeps its first @max bytes (the boot, for the console), and the
 * console says where it was cut.
 */
void domain_cut_to_cap(const char *path, long long max, const char *limit)
{
	char note[160];
	int n, fd;

	if (file_size(path) <= max)
		return;
	n = snprintf(note, sizeof(note), "\n[mglrulab: cut here, at %s (%lld bytes)]\n", limit, max);
	if (!limit || n >= max) {
		if (truncate(path, max))
			warning("cannot cut %s to %lld bytes: %s", path, max, strerror(errno));
		return;
	}
	fd = open(path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || ftruncate(fd, max - n) || pwrite(fd, note, (size_t)n, max - n) != n)
		warning("cannot cut %s to %lld bytes: %s", path, max, strerror(errno));
	if (fd >= 0)
		close(fd);
}

/* Has @dir's file system under GUEST_SPACE_LOW free? Its free bytes in *@avail. */
static int folder_full(const char *dir, long long *avail)
{
	struct statvfs v;

	if (statvfs(dir, &v))
		return 0;
	*avail = (long long)v.f_bavail * (long long)v.f_frsize;
	return *avail < GUEST_SPACE_LOW;
}

/* The run folder filled while the guest ran: 1 when the guest was destroyed for it. */
int domain_check_space(virDomainPtr dom, struct guest_run *run)
{
	long long avail;

	if (!folder_full(run->run_dir, &avail))
		return 0;
	virDomainDestroy(dom);
	domain_set_failure(run, GUEST_RUN_FAILED, NULL, "%s: %s (%lld KiB free): the guest was destroyed, "
			   "its disk, console and results could no longer be written", run->run_dir,
			   strerror(ENOSPC), avail / 1024);
	run->out_of_space = 1;
	return 1;
}

/*
 * A run that failed: was the run folder full (or did a write of ours
 * fail with @err ENOSPC or EDQUOT)? Then this machine failed it, not the
 * guest: say so in its failure.
 */
void domain_note_space(struct guest_run *run, int err)
{
	long long avail = -1;

	if (run->out_of_space)
		return;
	if (!folder_full(run->run_dir, &avail) && err != ENOSPC && err != EDQUOT)
		return;
	run->out_of_space = 1;
	if (avail < 0)
		return;	/* the failure names the folder and errno already */
	char *f = xasprintf("%s (%s: %lld KiB free: %s)", run->failure ? run->failure : "failed",
			    run->run_dir, avail / 1024, strerror(ENOSPC));
	free(run->failure);
	run->failure = f;
}
