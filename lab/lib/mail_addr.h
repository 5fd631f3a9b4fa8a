/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Mail address lists as lab.conf's [report] mail_from, mail_to and mail_cc
 * hold them: "Name <user@example.org>, other@example.org". The names may
 * be UTF-8 (a maintainer called Jörg); the addresses themselves are
 * printable ASCII, as mail without SMTPUTF8 needs. lab.conf checks a list
 * with mail_addr_parse() at its line, and the reply mail writes it with
 * mail_addr_header(), which encodes only the names (RFC 2047 forbids an
 * encoded word around the address: a reader would lose the address).
 *
 * Thread-safe: no state.
 */
#ifndef LAB_MAIL_ADDR_H
#define LAB_MAIL_ADDR_H

#include <stddef.h>

#include "strbuf.h"
#include "util.h"

struct mail_addr {
	char *name;		/* the display name, unquoted; NULL: none */
	char *spec;		/* user@domain */
};

struct mail_addrs {
	struct mail_addr *v;
	size_t n;
};

/*
 * Split @list at the commas outside double quotes into @out (release it
 * afterwards, whatever is returned). Each element is "user@domain" or
 * "Name <user@domain>", the name bare or in double quotes. 0, or -1 with
 * what is wrong in @err ("the 2nd address: ...").
 */
LAB_MUST_CHECK
int mail_addr_parse(const char *list, struct mail_addrs *out, struct strbuf *err);
void mail_addrs_release(struct mail_addrs *a);

/*
 * One mailbox of a header that came from outside (a series' From, read
 * from its mbox or from a report.json anyone may edit), salvaged for a
 * header of ours: the first element of @value (commas inside quotes kept
 * in the name), its address checked as mail_addr_parse() checks one, its
 * name made safe text without quotes, backslashes, angle brackets or
 * control characters (so a forged From adds no header and no recipient).
 * 0 with @out filled (release it with mail_addr_release()), or -1: no
 * usable address, @out empty.
 */
int mail_addr_salvage(const char *value, struct mail_addr *out);
void mail_addr_release(struct mail_addr *a);
/* Whether @spec is one user@domain as mail_addr_parse() takes it. */
int mail_addr_spec_ok(const char *spec);
/*
 * A list from outside (the To and Cc a series was posted with):
 * mail_addr_salvage() of each element, the unusable ones left out.
 */
void mail_addrs_salvage(const char *list, struct mail_addrs *out);

/*
 * "@hname: " and @a, folded at @width columns between addresses: ASCII
 * names as they are (quoted when they hold a character RFC 5322 reserves),
 * other names as RFC 2047 encoded words of whole UTF-8 characters.
 */
void mail_addr_header(struct strbuf *sb, const char *hname, const struct mail_addrs *a,
		      size_t width);

/*
 * @s as RFC 2047 "B" encoded words of whole UTF-8 characters, each as long
 * as the line allows from column *@col up to @width (at most 45 bytes, 75
 * characters encoded), the words separated by "\n " (a folded line; a
 * word that would not fit starts one). *@col is the column before the
 * first word and after the last. A name of up to 45 bytes on a line of
 * its own is one word: Python's address parser (3.11) keeps the folding
 * white space between two encoded words of a name, which RFC 2047 says a
 * reader drops, so a longer name reads with a space there.
 */
void mail_encoded_words(struct strbuf *sb, const char *s, size_t *col, size_t width);

#endif
