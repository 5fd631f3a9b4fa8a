/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Split a patch series as saved from a mailing list (mbox, several messages)
 * or as produced by git format-patch (.patch, one message) into patches.
 */
#ifndef LAB_MBOX_H
#define LAB_MBOX_H

#include "util.h"

#include <jansson.h>
#include <stddef.h>

#include "strbuf.h"

struct patch {
	char *file;		/* the file it came from */
	int index;		/* 1-based position of the message in that file */
	char *subject;		/* unfolded, RFC 2047-decoded Subject: (raw: filter
				   it before printing), NULL when there is none */
	char *message_id;	/* Message-Id: as written ("<...>"; raw), NULL when none */
	char *text;		/* the whole message as its author wrote it: LF line
				   ends, mboxrd quoting undone (unusable if nul_line);
				   git am gets mbox_quote_rd() of it */
	int has_headers;	/* a mail (From:/Subject:), not a bare diff */
	int has_diff;
	int is_cover;		/* "[PATCH 0/N]" or another message without a diff */
	int nul_line;		/* line of the file with a NUL byte in this message, or 0 */
};

struct patch_list {
	struct patch *v;
	size_t n, alloc;
};

/*
 * Append the messages of @path to @out (cover letters included, marked).
 * Returns 0, or -1 with a message in @err (unreadable, empty, no patch,
 * a NUL byte in a message).
 */
LAB_MUST_CHECK
int mbox_split(const char *path, struct patch_list *out, struct strbuf *err);
/* Split an in-memory buffer (used by mbox_split and the tests). */
void mbox_split_buffer(const char *file, const char *buf, size_t len, struct patch_list *out);
void patch_list_release(struct patch_list *pl);
/*
 * Append @text (one message, a patch's text) to @out as `git am
 * --patch-format=mboxrd` must read it: every line after the first that
 * starts with ">*From " gains one '>', which git mailsplit --mboxrd takes
 * off again. No line but the first then starts with "From ", so git cannot
 * cut the message in two, and each line reaches git as it is in @text.
 */
void mbox_quote_rd(struct strbuf *out, const char *text);
/*
 * Where the series of @pl was posted, into @kernel (a session's kernels[]
 * element) and @series (its "series" array, the applied patches in order,
 * handed over by the kernel's writer rather than looked up in @kernel):
 * series[i].message_id of the i-th message that is not a cover letter, and
 * "cover": {subject, message_id} of the first cover letter, so that a reply
 * mail (`mglrulab report --mail`) threads under the series; "posted_to",
 * the To and Cc it was posted with (its Cc), and "series_author",
 * {name, address} of its From (its To), of the cover letter, else the
 * first patch. Strings as in the mail (raw: filtered where printed) but
 * the author, salvaged (mail_addr_salvage()); absent ones are left out.
 */
void mbox_thread_json(const struct patch_list *pl, json_t *kernel, json_t *series);
/*
 * The value of header @name in the message @msg (its headers end at the
 * first empty line; a leading mbox "From " line is skipped): unfolded,
 * RFC 2047-decoded, control characters made spaces. NULL when absent.
 * The first of several. Raw: filter it before printing.
 */
char *mbox_header(const char *msg, size_t len, const char *name);
/* Whether @msg has a diff ("diff --git " or a "--- "/"+++ " pair). */
int mbox_contains_diff(const char *msg, size_t len);
/*
 * "[PATCH 2/3] mm: foo" (file.mbox, message 3)" — how errors name a patch;
 * subject and file name pass sb_add_text_safe(), so it is safe to print.
 */
char *patch_label(const struct patch *p);

#endif
