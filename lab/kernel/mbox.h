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
 * Where a series was posted, as its mails say, so that a reply mail
 * (`mglrulab report --mail`) threads under it and reaches its people: the
 * To and Cc it was posted with (the reply's Cc) and the From (its To), of
 * the cover letter, else the first patch; the Message-Id of each message
 * that is not a cover letter, in order, and the first [PATCH 0/N] cover
 * letter's. Strings as in the mail (raw: filtered where printed) but the
 * author, salvaged (mail_addr_salvage()). A plain value of the kernel
 * layer: the session makes its kernels[] rows of it (session_kernels.c).
 */
struct mbox_thread {
	char *posted_to;		/* "To, Cc"; NULL: neither */
	int has_author;			/* a From that salvaged */
	char *author_name;		/* NULL: an address alone */
	char *author_address;
	/* the message ids, @n of them; NULL elements: none. Point into the patch_list */
	const char **message_ids;
	size_t n;
	int has_cover;
	const char *cover_subject, *cover_message_id;	/* the patch_list's; NULL: none */
};

/* @t (its old contents not read) of @pl; @pl must outlive it. Release it with mbox_thread_release(). */
void mbox_thread(const struct patch_list *pl, struct mbox_thread *t);
void mbox_thread_release(struct mbox_thread *t);
/*
 * mbox_thread() of @pl as session.json's members, into @kernel (a
 * kernels[] element) and @series (its "series" array, handed over rather
 * than looked up): series[i].message_id, "cover": {subject, message_id},
 * "posted_to" and "series_author": {name, address}; absent ones are left
 * out. How the report tests build a kernel of a series; the session fills
 * its rows from struct mbox_thread itself.
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
