/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Thread-safe: messages (one whole line each), allocation, time, parsing;
 * lab_verbose and lab_quiet are set by main() before threads start; a
 * strvec is one thread's at a time; die() exits the process.
 *
 * Small helpers every stage uses: error reporting that returns instead of
 * exiting (only main() decides the exit status), and allocation that
 * aborts on OOM because there is nothing sensible a lab tool can do then.
 *
 * Errors, the convention lab/ follows:
 * - A function that can fail returns 0 on success and -1 on failure (a
 *   pointer result: NULL). It says why in one of two ways, named in its
 *   header comment:
 *   - errno, for thin wrappers of system calls whose errno is the whole
 *     story (fsutil.h, lockfile.h, run_command.h, sha256_file_hex());
 *   - a message appended to the caller's `struct strbuf *err`, when there
 *     is more to say: the file, the line, what was expected (config.h,
 *     guest_conf.h, ini_lines.h, guest_image.h, mbox.h, report.h).
 *   The caller adds its context and passes the failure up.
 * - Its declaration carries LAB_MUST_CHECK (must_check.h, shared with
 *   common/): the compiler rejects a call that drops the result. Where
 *   dropping it is right, the call is wrapped in LAB_IGNORE() with a
 *   comment saying why.
 *   Functions whose result is optional do not carry it: predicates,
 *   lookups that return NULL for "not there", names of enum values, and
 *   allocators that cannot fail (they die on OOM).
 * - A function with several kinds of failure the caller must tell apart
 *   returns an enum that names them (lockfile_take()), not -1 and -2.
 * - A stage's entry point called from lab/cmd/ (kbuild_*, session_*) may
 *   instead print the message itself with user_error() or lab_error() and
 *   return the enum lab_status that main() will exit with.
 * - Only lab/cmd/ decides to exit. die() is for command code, for out of
 *   memory (xmalloc() and friends, a jansson allocation) and for a bug
 *   (a format vsnprintf() refuses), which no caller can handle; library
 *   code never calls it for anything input or the system can cause.
 */
#ifndef LAB_UTIL_H
#define LAB_UTIL_H

#include "must_check.h"
#include "parse_num.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

/* Documented exit statuses (README, "Exit status"). */
enum lab_status {
	LAB_OK = 0,
	LAB_EUSER = 1,		/* bad config, bad input, series that does not apply */
	LAB_ELAB = 2,		/* build, boot or host failure */
	LAB_REGRESSION = 3,	/* a run found a regression (--fail-on) */
};

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

extern const char *lab_progname;
extern int lab_verbose;		/* -v count */
extern int lab_quiet;		/* -q */

/* Print "mglrulab: error: ..." and return @status (so callers can `return error(...)`). */
int error_status(int status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#define user_error(...) error_status(LAB_EUSER, __VA_ARGS__)
/*
 * Also append every message of error_status() in this thread, unfiltered
 * and one per line, to @sink (NULL: stop). Returns the sink before, to put
 * back. For a caller that must say what failed elsewhere (a watch's reply
 * mail quotes why a series did not build).
 */
struct strbuf;
struct strbuf *error_capture(struct strbuf *sink);
#define lab_error(...) error_status(LAB_ELAB, __VA_ARGS__)
void warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
_Noreturn void die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Grow *arr so that it holds at least @need elements of @size bytes. */
void *grow_array(void *arr, size_t need, size_t *alloc, size_t size);
#define ALLOC_GROW(arr, need, alloc) \
	((arr) = grow_array((arr), (need), &(alloc), sizeof(*(arr))))

/* A NULL-terminated, owned list of strings. */
struct strvec {
	char **v;
	size_t n, alloc;
};
#define STRVEC_INIT { NULL, 0, 0 }
void strvec_push(struct strvec *sv, const char *s);
void strvec_pushf(struct strvec *sv, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void strvec_pushv(struct strvec *sv, const char *const *v);
void strvec_clear(struct strvec *sv);
/* Whether @s is one of @sv's strings. */
int strvec_has(const struct strvec *sv, const char *s);
/* Split @s on any of @seps, skipping empty fields, and push each field. */
void strvec_split(struct strvec *sv, const char *s, const char *seps);
/* Sort into strcmp() (byte) order, which no locale changes. */
void strvec_sort(struct strvec *sv);

/* Monotonic seconds, for durations. */
double now_monotonic(void);
/* A duration for people: "45s", "3m07s", "1h02m". */
void format_duration(char *buf, size_t len, double seconds);
/* Wall-clock time as an ISO 8601 UTC string ("2026-11-29T18:46:28Z"). */
void iso8601_now(char buf[32]);

int str_starts_with(const char *s, const char *prefix);
int str_ends_with(const char *s, const char *suffix);
/* parse_long(): common/parse_num.h, shared with the guest programs. */
/*
 * A duration: plain seconds ("900") or numbers with units d, h, m, s in
 * that order ("90s", "15m", "1h30m", "2d": a watch's grace is days). 0 and
 * *@seconds > 0, or -1.
 */
LAB_MUST_CHECK
int parse_duration(const char *s, double *seconds);
LAB_MUST_CHECK
int parse_u64(const char *s, uint64_t *out);
LAB_MUST_CHECK
int parse_double(const char *s, double *out);

#endif
