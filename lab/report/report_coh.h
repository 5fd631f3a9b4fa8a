/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The report's "coherence" member (run --coherence, reports/SCHEMA.md):
 * its text section, "Cache-line transfers (model)", and its HTML section.
 * Nothing when the report has none. The member is read as untrusted: a
 * member of the wrong type reads as absent, every string is escaped.
 */
#ifndef MGLRULAB_REPORT_COH_H
#define MGLRULAB_REPORT_COH_H

#include "strbuf.h"

#include <jansson.h>

void report_coh_text(const json_t *report, struct strbuf *sb);
/*
 * The reply mail's: per window, the transfers per unit of each kernel, the
 * change and whether it is beyond the runs' spread, and the (at most 3)
 * functions whose transfers moved most; no latency model, no lines.
 */
void report_coh_brief(const json_t *report, struct strbuf *sb);
void report_coh_html(const json_t *report, struct strbuf *sb);

#endif
