// SPDX-License-Identifier: GPL-2.0
/*
 * Times series assembly (watch_assemble(), lab/watch/watch_series.c) on
 * one deep thread of N mails: "[PATCH k/N]", each in reply to the one
 * before (git send-email --chain-reply-to), all from one address, the
 * worst shape for assembly, whose walk up In-Reply-To and whose "has this
 * series a patch k" lookups grow with the thread. The mails are made
 * here and filed into a fresh queue in /tmp first (one transaction, not
 * timed); then one assembly is timed. [watch] max_patches is 10000 (the
 * highest lab.conf allows), so the thread is one series. Built and run
 * by bench/watch-assembly.
 *
 *   watch_assembly N...
 */
#include "fsutil.h"
#include "strbuf.h"
#include "util.h"
#include "watch_archive.h"
#include "watch_db.h"
#include "watch_series.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int file_thread(struct watch_db *w, long n, struct watch_scan_stats *st,
		       struct strbuf *err)
{
	if (watch_db_exec(w, "BEGIN", err))
		return -1;
	for (long k = 1; k <= n; k++) {
		struct strbuf m = STRBUF_INIT;
		char *origin = xasprintf("bench-%ld", k);
		int r;

		sb_addf(&m, "From: Ann Author <ann@example.org>\nMessage-ID: <deep-%ld@bench>\n", k);
		if (k > 1)
			sb_addf(&m, "In-Reply-To: <deep-%ld@bench>\nReferences: <deep-1@bench>"
				" <deep-%ld@bench>\n", k - 1, k - 1);
		sb_addf(&m, "Subject: [PATCH %ld/%ld] mm: deep thread, patch %ld\n\n"
			"Patch %ld.\n---\ndiff --git a/mm/x.c b/mm/x.c\n--- a/mm/x.c\n"
			"+++ b/mm/x.c\n@@ -1 +1 @@\n-a\n+b%ld\n", k, n, k, k, k);
		r = watch_file_mail(w, "bench", origin, m.buf, m.len, 10000, 1700000000, st, err);
		sb_release(&m);
		free(origin);
		if (r != 1) {
			if (!err->len)
				sb_addf(err, "mail %ld not filed (%d)", k, r);
			return -1;
		}
	}
	return watch_db_exec(w, "COMMIT", err);
}

static int one(long n)
{
	static const char *const paths[] = { "mm/" };
	struct watch_rules rules = { .paths = paths, .npaths = 1, .grace_s = 2 * 86400.0,
				     .max_patches = 10000, .history_measure = 1 };
	char dir[] = "/tmp/watch-assembly.XXXXXX";
	struct strbuf err = STRBUF_INIT;
	struct watch_scan_stats st = { 0 };
	struct watch_assembly as;
	struct watch_db w;
	double t0, t1;
	char *path;
	int r = -1;

	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return -1;
	}
	path = xasprintf("%s/watch.sqlite", dir);
	if (watch_db_open(path, &w, &err))
		goto out;
	t0 = now_s();
	if (file_thread(&w, n, &st, &err))
		goto close;
	t1 = now_s();
	if (watch_assemble(&w, &rules, 1700000000, &as, &err))
		goto close;
	printf("%6ld mails: filing %.2f s, assembly %.2f s (%ld filed, %ld strays)\n", n, t1 - t0,
	       now_s() - t1, as.filed, as.strays);
	fflush(stdout);
	r = 0;
close:
	watch_db_close(&w);
out:
	if (r)
		fprintf(stderr, "watch_assembly: %ld mails: %s\n", n, sb_str(&err));
	sb_release(&err);
	rm_rf(dir);
	free(path);
	return r;
}

int main(int argc, char **argv)
{
	static const char *const sizes[] = { "1000", "2000", "10000" };
	int r = 0;

	for (int i = 1; i < (argc > 1 ? argc : 4); i++) {
		long n = strtol(argc > 1 ? argv[i] : sizes[i - 1], NULL, 10);

		if (n < 1 || n > 10000) {
			fprintf(stderr, "watch_assembly: %s: expected 1 to 10000 mails\n", argv[i]);
			return 2;
		}
		r |= one(n) ? 1 : 0;
	}
	return r;
}
