/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Sealed files: history's digest cache and state, which say what the
 * reports contain without anyone reading the reports. A checksum anyone
 * can recompute proves nothing (an edited cache reported a -30 %
 * regression that was in no report), so every line carries an
 * HMAC-SHA-256 under a key that only this user can read:
 *
 *   <schema> <key id>\n
 *   <MAC> <header JSON>\n		MAC over "<schema>\nheader\n<JSON>"
 *   <MAC> <entry JSON>\n		MAC over "<schema>\n<header's MAC>\n<JSON>"
 *   ...
 *
 * An entry is bound to its file's header (settings, and a random nonce:
 * entries cannot be moved from one file to another) and each line is
 * checked on its own, so one edited entry costs that entry, not the file.
 * The key id (a hash of the key, not the key) tells a file written with
 * another key (another user, another machine) from an edited one.
 *
 * The key: 32 random bytes in $XDG_STATE_HOME/mglrulab/history.key
 * (~/.local/state/mglrulab/history.key), mode 0600, made on first use. A
 * key that others can read or write, or of the wrong size, is not used:
 * then nothing sealed is trusted and nothing is written (history reads
 * every report and searches every series, which is slower, not wrong).
 */
#ifndef LAB_HISTORY_SEAL_H
#define LAB_HISTORY_SEAL_H

#include "util.h"

#include <jansson.h>
#include <stddef.h>

#include "sha256.h"
#include "strbuf.h"

#define HISTORY_KEY_LEN 32
/*
 * The largest cache or state read (a 1,000-session cache is 14 MB): a
 * damaged or planted file is refused by its size, not read into memory.
 */
#define HISTORY_SEALED_MAX ((size_t)1 << 30)

/*
 * The key, loaded (or made) once per process and key path; NULL when
 * there is none to use (said once, with the file and what was expected).
 */
const unsigned char *history_key(void);
/* Where the key is (or would be); caller frees. NULL when HOME is not set either. */
char *history_key_path(void);

struct seal_reader {
	const char *path, *schema;
	const unsigned char *key;
	struct strbuf sb;
	size_t off;
	size_t line;			/* number of the line seal_next() returns */
	char header_mac[SHA256_HEX_LEN + 1];
};

/*
 * Open a sealed file. 1 with its header in *@header (its MAC checked);
 * 0 when @path does not exist; -1 when the file is not used, with a
 * warning naming it, saying why and ending in @then (what is done
 * instead); a debug() note only when its first line starts with @old_schema, a
 * format written by an earlier mglrulab.
 */
LAB_MUST_CHECK
int seal_open(struct seal_reader *r, const char *path, const char *schema,
	      const char *old_schema, const char *then, json_t **header);
/*
 * The next entry: 1 with *@entry (new reference; NULL when the line is
 * not to be used) and, when it is not, *@why (what is wrong) and
 * *@unverified (its JSON when it parses, for naming it in a warning
 * only: nothing else may be taken from it); 0 at the end of the file.
 */
LAB_MUST_CHECK
int seal_next(struct seal_reader *r, json_t **entry, const char **why, json_t **unverified);
void seal_close(struct seal_reader *r);

struct seal_writer {
	const char *schema;
	const unsigned char *key;
	struct strbuf sb;
	char header_mac[SHA256_HEX_LEN + 1];
};

/* Start a file with @header (a random nonce is added to it): -1 when there is no key. */
LAB_MUST_CHECK
int seal_begin(struct seal_writer *w, const char *schema, json_t *header);
void seal_add(struct seal_writer *w, const json_t *entry);
/* Write it (atomically) and release @w: 0, or -1 with errno. */
LAB_MUST_CHECK
int seal_write(struct seal_writer *w, const char *path);
void seal_release(struct seal_writer *w);

#endif
