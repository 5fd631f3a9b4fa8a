/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A mail's body as text, for the tests that read it (is there a diff,
 * which paths, base-commit:) and for git am. Mail clients (and some
 * corporate relays) send a patch as Content-Transfer-Encoding: base64 or
 * quoted-printable, or as a multipart mail whose text/plain or
 * text/x-patch part is so encoded: the diff is then not in the raw text,
 * and the series looked like a cover letter without one.
 *
 * Thread-safe: no state.
 */
#ifndef LAB_MAIL_DECODE_H
#define LAB_MAIL_DECODE_H

#include <stddef.h>

#include "strbuf.h"

/*
 * @msg (@len bytes, LF line ends: an optional From_ line, headers, an
 * empty line, the body) with its body decoded, into @out: a single-part
 * base64 or quoted-printable text (or untyped) body, or the text/plain,
 * text/x-patch and text/x-diff parts of a multipart mail (nested up to
 * MAIL_DECODE_MAX_DEPTH), each decoded, joined in order; other parts
 * (HTML, signatures, binaries) are left out. The headers are kept but
 * Content-Type and Content-Transfer-Encoding, which become "text/plain"
 * (with the first text part's charset, if a short token) and "8bit".
 * The result is never longer than @msg plus 100 bytes (decoding shrinks,
 * the two new header lines replace at least one): the size limits of the
 * raw mail bound it.
 *
 * Returns 1 with the mail in @out, or 0 when it needs no decoding
 * (nothing is added to @out).
 */
#define MAIL_DECODE_MAX_DEPTH	4
int mail_decode(const char *msg, size_t len, struct strbuf *out);

/*
 * @buf (*@len bytes) with every CRLF made LF, a new string (nul-ended;
 * a lone CR is kept); *@len becomes its length. For a file whose first
 * line ends in CRLF: a Windows mail client's mbox, a mail kept as sent.
 */
char *mail_crlf_to_lf(const char *buf, size_t *len);

/* A hex digit's value, or -1 (quoted-printable, RFC 2047's Q encoding). */
int mail_hexval(int c);
/* A base64 digit's value (RFC 4648), or -1: '=' and everything else. */
int mail_b64val(int c);

#endif
