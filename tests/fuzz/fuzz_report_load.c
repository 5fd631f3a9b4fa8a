// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the report reader. Whatever the bytes, loading must
 * either fail with a message or succeed; when it succeeds, the analysis and
 * every renderer must also run cleanly on the result (they rely on the
 * loader's checks, so this is where a gap in the checks would show). As
 * `mglrulab report` does: analysed once into a view, every document from
 * it; and the report's tree decoded again, as the mail reads it.
 *
 * Build and run: tests/integration/71-fuzz-report.sh
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "report.h"
#include "report_view.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The view's documents, then its tree decoded again (report_analyze()'s output decodes). */
static void render_all(const struct report_view *v, struct strbuf *out)
{
	struct report_view again;
	json_t *tree;

	report_render_html_view(v, out);
	report_render_text_view(v, out);
	report_render_benchfmt_view(v, &(struct report_benchfmt_opts){ .counters = 1 }, out);
	report_view_dump(v, out);
	tree = report_view_tree(v);
	sb_reset(out);
	if (report_view_decode(tree, &again, out))
		abort();
	report_render_text_view(&again, out);
	report_view_release(&again);
	json_decref(tree);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strbuf err = STRBUF_INIT, out = STRBUF_INIT;
	struct report_view v;
	json_t *session = NULL;

	if (report_load_buffer((const char *)data, size, &session, &err) == 0) {
		json_t *st = json_object_get(session, "statistics");

		/* The reader is under test, not the bootstrap's speed: cap the work. */
		if (json_is_object(st)) {
			json_object_set_new(st, "resamples", json_integer(200));
			json_object_set_new(st, "counter_resamples", json_integer(200));
		}
		if (report_analyze_view(session, &v, &err) == 0)
			render_all(&v, &out);
		report_view_release(&v);
		json_decref(session);
	}
	sb_release(&out);
	sb_release(&err);
	return 0;
}
