/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What history.c (the scan) and history_build.c (the change points)
 * share, and nothing outside lab/history/ includes.
 */
#ifndef LAB_HISTORY_PRIV_H
#define LAB_HISTORY_PRIV_H

#include "report_view.h"

/*
 * "[RFC PATCH v2 1/3] mm: foo" -> "mm: foo": what stays the same when a
 * series is re-posted or grows a patch.
 */
const char *history_subject_core(const char *s);

/* The first kernel of the report named @name; NULL: none. */
const struct sdoc_kernel *history_kernel_named(const struct report_view *v, const char *name);

#endif
