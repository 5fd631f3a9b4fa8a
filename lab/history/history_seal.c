// SPDX-License-Identifier: GPL-2.0
/*
 * Sealed files and their key (history_seal.h): what lets history trust
 * its own digest cache and state, and nothing that someone else wrote.
 */
#include "history_seal.h"
#include "fsutil.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#define KEY_ID_LEN 16

char *history_key_path(void)
{
	const char *xdg = getenv("XDG_STATE_HOME"), *home = getenv("HOME");

	/* The XDG base directory rules: a relative XDG_STATE_HOME is ignored. */
	if (xdg && *xdg == '/')
		return path_join(xdg, "mglrulab/history.key");
	if (home && *home)
		return path_join(home, ".local/state/mglrulab/history.key");
	return NULL;
}

static int random_bytes(void *buf, size_t len)
{
	unsigned char *p = buf;

	while (len) {
		ssize_t n = getrandom(p, len, 0);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * What makes @st unusable as the key or its folder (someone else could
 * read the key, or replace it with one they know), or NULL.
 */
static const char *not_private(const struct stat *st, int dir)
{
	if (dir ? !S_ISDIR(st->st_mode) : !S_ISREG(st->st_mode))
		return dir ? "its folder is not a folder" : "not a regular file";
	if (st->st_uid != geteuid())
		return dir ? "its folder is owned by another user" : "owned by another user";
	if (dir ? (st->st_mode & 022) : (st->st_mode & 077))
		return dir ? "its folder is writable by other users" :
			     "readable or writable by other users";
	if (!dir && st->st_size != HISTORY_KEY_LEN)
		return "not 32 bytes long";
	return NULL;
}

/* 0 read, 1 absent, -1 not usable (@why says why). */
static int key_read(const char *path, unsigned char *key, const char **why)
{
	char *dir = path_dirname(path);
	struct stat st;
	ssize_t n;
	int fd;

	/* A folder others can write: they could have put their own key there. */
	*why = lstat(dir, &st) ? (errno == ENOENT ? NULL : strerror(errno)) : not_private(&st, 1);
	free(dir);
	if (*why)
		return -1;
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		*why = errno == ELOOP ? "a symbolic link" : strerror(errno);
		return errno == ENOENT ? 1 : -1;
	}
	/* fstat: the file read is the file checked */
	*why = fstat(fd, &st) ? strerror(errno) : not_private(&st, 0);
	if (!*why) {
		n = read(fd, key, HISTORY_KEY_LEN);
		if (n != HISTORY_KEY_LEN)
			*why = n < 0 ? strerror(errno) : "shorter than 32 bytes";
	}
	close(fd);
	return *why ? -1 : 0;
}

/*
 * A new key, linked into place: when two histories start at once, the
 * first link wins and the other reads it. 0 made, 1 one was there, -1.
 */
static int key_make(const char *path, const char **why)
{
	unsigned char key[HISTORY_KEY_LEN];
	char *dir = path_dirname(path), *tmp = xasprintf("%s.XXXXXX", path);
	struct stat st;
	int fd = -1, r = -1;

	if (mkdir_p(dir, 0700) || lstat(dir, &st)) {
		*why = strerror(errno);
		goto out;
	}
	*why = not_private(&st, 1);
	if (*why)
		goto out;
	if (random_bytes(key, sizeof(key))) {
		*why = strerror(errno);
		goto out;
	}
	fd = mkostemp(tmp, O_CLOEXEC);		/* mode 0600 */
	if (fd < 0 || write_all(fd, key, sizeof(key)) || fsync(fd)) {
		*why = strerror(errno);
		goto out;
	}
	if (link(tmp, path)) {
		*why = strerror(errno);
		r = errno == EEXIST ? 1 : -1;
		goto out;
	}
	r = 0;
out:
	if (fd >= 0) {
		close(fd);
		unlink(tmp);
	}
	explicit_bzero(key, sizeof(key));
	free(dir);
	free(tmp);
	return r;
}

static struct {
	char *path;			/* the key path it was loaded for */
	int ok;
	unsigned char key[HISTORY_KEY_LEN];
	char id[KEY_ID_LEN + 1];
} K;

static void key_id(void)
{
	char hex[SHA256_HEX_LEN + 1];
	struct sha256 c;

	sha256_init(&c);
	sha256_update(&c, "mglrulab history key id\n", 24);
	sha256_update(&c, K.key, sizeof(K.key));
	sha256_final_hex(&c, hex);
	memcpy(K.id, hex, KEY_ID_LEN);
	K.id[KEY_ID_LEN] = '\0';
}

const unsigned char *history_key(void)
{
	char *path = history_key_path();
	const char *why = "neither XDG_STATE_HOME nor HOME is set";
	int r = 1;

	if (K.path && path && !strcmp(K.path, path)) {
		free(path);
		return K.ok ? K.key : NULL;
	}
	free(K.path);
	K.path = path;
	K.ok = 0;
	if (path) {
		r = key_read(path, K.key, &why);
		if (r == 1) {
			r = key_make(path, &why);
			if (r >= 0)
				r = key_read(path, K.key, &why);
		}
	}
	if (r) {
		warning("%s: %s (expected this user's file of 32 bytes, mode 0600, in a folder "
			"only this user can write); history uses no digest cache and no state",
			path ? path : "the history key", why);
		return NULL;
	}
	K.ok = 1;
	key_id();
	return K.key;
}

static void mac_of(const unsigned char *key, const char *schema, const char *bind,
		   const char *text, size_t len, char out[SHA256_HEX_LEN + 1])
{
	struct hmac_sha256 c;

	hmac_sha256_init(&c, key, HISTORY_KEY_LEN);
	hmac_sha256_update(&c, schema, strlen(schema));
	hmac_sha256_update(&c, "\n", 1);
	hmac_sha256_update(&c, bind, strlen(bind));
	hmac_sha256_update(&c, "\n", 1);
	hmac_sha256_update(&c, text, len);
	hmac_sha256_final_hex(&c, out);
}

/* In constant time: how long a guess matched must not show. */
static int mac_equal(const char *a, const char *b)
{
	unsigned d = 0;

	for (size_t i = 0; i < SHA256_HEX_LEN; i++)
		d |= (unsigned char)a[i] ^ (unsigned char)b[i];
	return !d;
}

/* The next line, without its '\n': NULL at the end; *@whole 0 when the file ends inside it. */
static const char *next_line(struct seal_reader *r, size_t *len, int *whole)
{
	const char *s = r->sb.buf + r->off, *nl;
	size_t left = r->sb.len - r->off;

	if (!left)
		return NULL;
	nl = memchr(s, '\n', left);
	*whole = nl != NULL;
	*len = nl ? (size_t)(nl - s) : left;
	r->off += *len + (nl != NULL);
	r->line++;
	return s;
}

/* "<MAC> <JSON>": the JSON, its MAC checked against what @bind gives. */
static const char *line_check(const struct seal_reader *r, const char *s, size_t len,
			      const char *bind, const char **text, size_t *tlen)
{
	char mac[SHA256_HEX_LEN + 1];

	if (len < SHA256_HEX_LEN + 2 || s[SHA256_HEX_LEN] != ' ')
		return "expected a MAC and JSON";
	*text = s + SHA256_HEX_LEN + 1;
	*tlen = len - SHA256_HEX_LEN - 1;
	mac_of(r->key, r->schema, bind, *text, *tlen, mac);
	if (!mac_equal(mac, s))
		return "does not match its MAC (edited, damaged, or written with another key)";
	return NULL;
}

int seal_open(struct seal_reader *r, const char *path, const char *schema,
	      const char *old_schema, const char *then, json_t **header)
{
	size_t len, tlen, n = strlen(schema);
	const char *s, *text, *why;
	struct stat st;
	json_error_t e;
	int whole;

	memset(r, 0, sizeof(*r));
	r->path = path;
	r->schema = schema;
	*header = NULL;
	if (stat(path, &st))
		return errno == ENOENT ? 0 : (warning("%s: %s; %s", path, strerror(errno), then), -1);
	/* stat first: a sparse file of any size is refused without reading it */
	if ((uint64_t)st.st_size > HISTORY_SEALED_MAX) {
		warning("%s: larger than the lab ever writes; %s", path, then);
		return -1;
	}
	r->key = history_key();
	if (!r->key)
		return -1;	/* said once, by history_key() */
	/* Not through a link, never a FIFO (it would hang a nightly job) or a device. */
	if (read_regular_file(path, &r->sb, HISTORY_SEALED_MAX)) {
		warning("%s: %s; %s", path, strerror(errno), then);
		return -1;
	}
	s = next_line(r, &len, &whole);
	if (s && old_schema && len >= strlen(old_schema) &&
	    !memcmp(s, old_schema, strlen(old_schema))) {
		debug("%s: written by an earlier mglrulab, before the seal; %s", path, then);
		return -1;
	}
	if (!s || !whole || len != n + 1 + KEY_ID_LEN || memcmp(s, schema, n) || s[n] != ' ') {
		warning("%s: line 1: expected '%s' and a key id; %s", path, schema, then);
		return -1;
	}
	if (memcmp(s + n + 1, K.id, KEY_ID_LEN)) {
		warning("%s: written with another key than %s (another user's, or on another "
			"machine); %s", path, K.path, then);
		return -1;
	}
	s = next_line(r, &len, &whole);
	why = !s || !whole ? "truncated" : line_check(r, s, len, "header", &text, &tlen);
	if (why) {
		warning("%s: line 2: %s; %s", path, why, then);
		return -1;
	}
	memcpy(r->header_mac, s, SHA256_HEX_LEN);
	*header = json_loadb(text, tlen, JSON_REJECT_DUPLICATES, &e);
	if (!json_is_object(*header)) {
		warning("%s: line 2: %s; %s", path, *header ? "expected an object" : e.text, then);
		json_decref(*header);
		*header = NULL;
		return -1;
	}
	return 1;
}

int seal_next(struct seal_reader *r, json_t **entry, const char **why, json_t **unverified)
{
	const char *s, *text = NULL;
	size_t len, tlen = 0;
	json_error_t e;
	int whole;

	*entry = *unverified = NULL;
	*why = NULL;
	s = next_line(r, &len, &whole);
	if (!s)
		return 0;
	*why = whole ? line_check(r, s, len, r->header_mac, &text, &tlen) :
		"truncated (the file ends inside it)";
	if (!*why) {
		*entry = json_loadb(text, tlen, JSON_REJECT_DUPLICATES, &e);
		if (!json_is_object(*entry)) {
			*why = "not a JSON object";
			json_decref(*entry);
			*entry = NULL;
		}
	} else if (text) {
		*unverified = json_loadb(text, tlen, JSON_REJECT_DUPLICATES, &e);
	}
	return 1;
}

void seal_close(struct seal_reader *r)
{
	sb_release(&r->sb);
}

static char *dump(const json_t *j)
{
	/*
	 * Compact JSON has no newline: one entry, one line. Any value, not
	 * only an object or array: without JSON_ENCODE_ANY jansson returns
	 * NULL for a number, and that was taken for "out of memory" (the
	 * history fuzzer's state line "202" ended the process).
	 */
	char *t = json_dumps(j, JSON_COMPACT | JSON_ENCODE_ANY);

	if (!t)
		die("out of memory");
	return t;
}

int seal_begin(struct seal_writer *w, const char *schema, json_t *header)
{
	unsigned char nonce[16];
	char mac[SHA256_HEX_LEN + 1], hex[2 * sizeof(nonce) + 1], *text;

	memset(w, 0, sizeof(*w));
	w->schema = schema;
	w->key = history_key();
	if (!w->key || random_bytes(nonce, sizeof(nonce)))
		return -1;
	for (size_t i = 0; i < sizeof(nonce); i++)
		snprintf(hex + 2 * i, 3, "%02x", nonce[i]);
	json_object_set_new(header, "nonce", json_string(hex));
	text = dump(header);
	mac_of(w->key, schema, "header", text, strlen(text), mac);
	memcpy(w->header_mac, mac, sizeof(mac));
	sb_addf(&w->sb, "%s %s\n%s %s\n", schema, K.id, mac, text);
	free(text);
	return 0;
}

void seal_add(struct seal_writer *w, const json_t *entry)
{
	char mac[SHA256_HEX_LEN + 1], *text = dump(entry);

	mac_of(w->key, w->schema, w->header_mac, text, strlen(text), mac);
	sb_addf(&w->sb, "%s ", mac);
	sb_adds(&w->sb, text);
	sb_adds(&w->sb, "\n");
	free(text);
}

int seal_write(struct seal_writer *w, const char *path)
{
	int r = write_file_atomic(path, w->sb.buf, w->sb.len);

	seal_release(w);
	return r;
}

void seal_release(struct seal_writer *w)
{
	sb_release(&w->sb);
}
