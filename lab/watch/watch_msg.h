/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One mail of a list archive, as `mglrulab watch` files it: its ids and
 * threading, what its subject says ("[RFC PATCH v2 3/5] title", "Re: ..."),
 * the paths its diff touches and the base commit it names. Everything in
 * it came from the list: untrusted, made valid UTF-8, bounded.
 */
#ifndef LAB_WATCH_MSG_H
#define LAB_WATCH_MSG_H

#include "strbuf.h"
#include "util.h"

#include <stddef.h>

/* A message larger than this is refused (its record says so). */
#define WATCH_MSG_MAX_BYTES	(16u << 20)
/*
 * The encoded text of a mail's "GIT binary patch" hunks (base85, from the
 * marker to the next "diff --git"): a mail with more is refused. A list
 * patch is text to review; 1 MiB of base85 is a 800 KiB binary, past any
 * firmware blob or test image a kernel patch carries on the list, and
 * git apply would inflate a delta past it to any size.
 */
#define WATCH_MSG_MAX_BINARY_BYTES	(1u << 20)
/*
 * A subject's n (and k) above the limit the parser is given, [watch]
 * max_patches, is filed as that limit + 1: the series is skipped as too
 * large without a cost per n. Without a limit (0), this one, the most
 * max_patches may be (lab/config/config.c).
 */
#define WATCH_MSG_MAX_N		10000
/* At most this many References are kept (the nearest ones), and paths. */
#define WATCH_MSG_MAX_REFS	64
#define WATCH_MSG_MAX_PATHS	1000

/* What a subject's tag says. */
struct watch_tag {
	int is_patch;		/* "[... PATCH ...]" and not a reply */
	int is_reply;		/* "Re:", "Aw:", "Fwd:" first: never a patch */
	int version;		/* vN, 1 when not given */
	int k, n;		/* "k/n"; a lone "[PATCH]" is 1/1; the cover letter is 0/n */
	int rfc;		/* "RFC" in the tag */
	char *title;		/* the subject after the tag */
};

struct watch_msg {
	char *message_id;	/* without the angle brackets */
	char *in_reply_to;	/* the same, NULL when none */
	struct strvec references; /* oldest first, the last WATCH_MSG_MAX_REFS */
	char *subject, *from;
	struct watch_tag tag;
	int has_diff;
	struct strvec paths;	/* files the diff touches (both sides of a rename) */
	char *base_commit;	/* "base-commit: HEX" in the body, NULL when none */
	char *change_id;	/* "change-id: ID" (b4's) in the body, NULL when none */
	struct strvec trailers;	/* Reviewed-by:, Acked-by:, Tested-by: lines of the body */
};

/*
 * Parse @subject (decoded, one line) into @t, n and k above @max_n (0:
 * WATCH_MSG_MAX_N) as @max_n + 1. Returns 1 when it is a patch or a
 * cover letter, 0 otherwise (t->title is set either way).
 */
int watch_subject_parse(const char *subject, long max_n, struct watch_tag *t);
void watch_tag_release(struct watch_tag *t);

/*
 * Parse the raw message @buf (@len bytes, CRLF or LF), its subject's n
 * bounded by @max_n (watch_subject_parse()). Returns 0, or -1 with the
 * reason in @err: larger than WATCH_MSG_MAX_BYTES, a NUL byte, no
 * headers, no Message-ID, binary hunks over WATCH_MSG_MAX_BINARY_BYTES.
 */
LAB_MUST_CHECK
int watch_msg_parse(const char *buf, size_t len, long max_n, struct watch_msg *m,
		    struct strbuf *err);
void watch_msg_release(struct watch_msg *m);

/*
 * The text of mail @raw (@len bytes) after its headers, CRLF made LF, into
 * @out: what says whether two mails are the same (an identical resend, or
 * one mail delivered twice with other Received: headers) or not.
 */
void watch_msg_body(const void *raw, size_t len, struct strbuf *out);

/*
 * Append mail @raw (@len bytes, as filed) to @mbox for git am: its own
 * From_ line (or ours), LF line ends, a base64 or quoted-printable body
 * decoded (mail_decode()), mboxrd-quoted (mbox_quote_rd()).
 */
void watch_msg_for_am(struct strbuf *mbox, const void *raw, size_t len);

/* @s with every byte of an invalid UTF-8 sequence replaced by '?', in place. */
void watch_utf8_scrub(char *s);

/* Whether @path matches one of @patterns ("dir/" is a prefix, else fnmatch). */
int watch_path_matches(const char *path, const char *const *patterns, size_t n);

#endif
