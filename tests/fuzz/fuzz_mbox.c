// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the mbox splitter (lab/kernel/mbox.c). Whatever the bytes,
 * splitting must not read or write out of bounds, every message must come
 * back as text ending in a newline no longer than the input (quoting and
 * CRLF are only ever removed), indexes must count up from 1, and the label
 * that errors print must hold no control character.
 *
 * Build and run: tests/integration/73-fuzz-mbox.sh
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mbox.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int ok)
{
	if (!ok)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct patch_list pl = { 0 };
	int has_nul = memchr(data, '\0', size) != NULL;

	mbox_split_buffer("fuzz.mbox", (const char *)data, size, &pl);
	for (size_t i = 0; i < pl.n; i++) {
		const struct patch *p = &pl.v[i];
		size_t len = strlen(p->text);

		check(p->index == (int)i + 1);
		check(p->nul_line ? has_nul : len > 0 && p->text[len - 1] == '\n');
		check(len <= size + 1);
		check(!p->is_cover || !p->has_diff || p->subject);
		char *label = patch_label(p);
		for (const unsigned char *c = (const unsigned char *)label; *c; c++)
			check(*c >= 0x20 && *c != 0x7f);
		free(label);
	}
	patch_list_release(&pl);
	return 0;
}
