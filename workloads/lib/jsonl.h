/* SPDX-License-Identifier: GPL-2.0 */
/*
 * JSON-line output, the only thing a workload writes on stdout. The guest
 * runner forwards these lines to the host, so every line must be one
 * complete, valid JSON object: strings are escaped here (control bytes,
 * quotes, invalid UTF-8), numbers that JSON cannot represent are refused,
 * and a line is handed to the kernel in one write() so that forked
 * children and the parent never interleave halves of lines. The record
 * types, the line limit and the exit statuses are the workload contract,
 * common/workload_contract.h.
 */
#ifndef WL_JSONL_H
#define WL_JSONL_H

#include <stddef.h>
#include <stdint.h>

#include "workload_contract.h"

struct jl {
	char *buf;
	size_t len, alloc;
	int nfields;
};

/*
 * Start an object {"type":TYPE ... (a WL_REC_*). A line over WL_LINE_MAX
 * is refused; snapshot text is truncated to fit.
 */
void jl_begin(struct jl *j, const char *type);
void jl_str(struct jl *j, const char *key, const char *val);
/* A string of @n bytes that may contain anything (file text). */
void jl_strn(struct jl *j, const char *key, const char *val, size_t n);
void jl_int(struct jl *j, const char *key, long long val);
void jl_u64(struct jl *j, const char *key, uint64_t val);
/* NaN and infinities are written as null: JSON has no spelling for them. */
void jl_dbl(struct jl *j, const char *key, double val);
void jl_bool(struct jl *j, const char *key, int val);
void jl_dbl_array(struct jl *j, const char *key, const double *v, size_t n);
void jl_int_array(struct jl *j, const char *key, const long long *v, size_t n);
/* Close the object and write it as one line to stdout; frees the buffer. */
void jl_end(struct jl *j);
/* Drop a line being built (nothing is written). */
void jl_abort(struct jl *j);

/* Append @s (@n bytes) as a JSON string literal with quotes to @j. */
void jl_escape(struct jl *j, const char *s, size_t n);

/* Convenience wrappers for the common line types. */
void jl_metric(const char *name, double value, const char *unit);
void jl_series(const char *name, const char *unit, const double *v, size_t n);
void jl_info_str(const char *key, const char *val);
void jl_errorf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Print an error line and exit. wl_precond() is for an unmet precondition
 * (WL_EXIT_PRECOND): @what names it (common/workload_contract.h) so the
 * host and tests can tell
 * "this guest cannot run this" from "this workload broke".
 */
_Noreturn void wl_precond(const char *what, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
_Noreturn void wl_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
