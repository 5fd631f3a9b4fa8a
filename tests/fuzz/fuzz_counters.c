// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the counters of one run (lab/counters/counters.c): the
 * guest's JSON lines, paired into before/after deltas. Whatever the bytes,
 * the deltas must come out as encodable JSON and the problem list must
 * stay within COUNTERS_MAX_PROBLEMS; a crash, a leak or a sanitizer report
 * is a bug. The line count is what made pairing quadratic, so the seeds
 * are many short lines.
 *
 * Build and run: tests/integration/72-fuzz-counters.sh
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "counters.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct counters *c = counters_new();
	json_t *j;
	char *text;

	counters_add_text(c, (const char *)data, size);
	j = counters_delta_json(c);
	if (json_array_size(json_object_get(j, "problems")) > COUNTERS_MAX_PROBLEMS)
		abort();
	text = json_dumps(j, JSON_COMPACT);
	if (!text)
		abort();
	free(text);
	json_decref(j);
	counters_free(c);
	return 0;
}
