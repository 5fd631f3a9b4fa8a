// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the report reader. Whatever the bytes, loading must
 * either fail with a message or succeed; when it succeeds, the analysis and
 * every renderer must also run cleanly on the result (they rely on the
 * loader's checks, so this is where a gap in the checks would show).
 *
 * Build and run: tests/integration/71-fuzz-report.sh
 */
#include <stddef.h>
#include <stdint.h>

#include "report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strbuf err = STRBUF_INIT, out = STRBUF_INIT;
	json_t *session = NULL, *report;

	if (report_load_buffer((const char *)data, size, &session, &err) == 0) {
		json_t *st = json_object_get(session, "statistics");

		/* The reader is under test, not the bootstrap's speed: cap the work. */
		if (json_is_object(st)) {
			json_object_set_new(st, "resamples", json_integer(200));
			json_object_set_new(st, "counter_resamples", json_integer(200));
		}
		report = report_analyze(session, &err);
		if (report) {
			report_render_html(report, &out);
			report_render_text(report, &out);
			report_render_benchfmt(report, &out);
			json_decref(report);
		}
		json_decref(session);
	}
	sb_release(&out);
	sb_release(&err);
	return 0;
}
