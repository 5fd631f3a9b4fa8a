// SPDX-License-Identifier: GPL-2.0
#include "kcache.h"
#include "fsutil.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * Only the CONFIG_ assignments and "# CONFIG_X is not set" lines decide
 * what gets built; section comments and blank lines do not, so they stay
 * out of the key.
 */
static void hash_config_lines(struct sha256 *c, const char *text)
{
	const char *s = text;

	while (s && *s) {
		const char *nl = strchr(s, '\n');
		size_t len = nl ? (size_t)(nl - s) : strlen(s);
		if ((len > 7 && !strncmp(s, "CONFIG_", 7)) ||
		    (len > 9 && !strncmp(s, "# CONFIG_", 9) && len > 11 &&
		     !strncmp(s + len - 11, " is not set", 11)))
			sha256_field(c, "config-line", s, len);
		s = nl ? nl + 1 : NULL;
	}
}

static void hash_common(struct sha256 *c, const struct kcache_inputs *in, const char *kind)
{
	sha256_init(c);
	sha256_field_str(c, "version", KCACHE_VERSION);
	sha256_field_str(c, "kind", kind);
	sha256_field_str(c, "source", in->source_id);
	for (size_t i = 0; i < in->nr_series; i++)
		sha256_field_str(c, "series", in->series[i]);
	/* Absent for a whole series: the keys of existing entries stay. */
	if (in->series_cut) {
		char k[32];

		snprintf(k, sizeof(k), "%ld", in->series_prefix);
		sha256_field_str(c, "series-prefix", k);
	}
	sha256_field_str(c, "compiler", in->compiler);
}

void kcache_key(const struct kcache_inputs *in, char key[SHA256_HEX_LEN + 1])
{
	struct sha256 c;

	hash_common(&c, in, "entry");
	hash_config_lines(&c, in->config_text);
	sha256_final_hex(&c, key);
}

void kcache_input_key(const struct kcache_inputs *in, char key[SHA256_HEX_LEN + 1])
{
	struct sha256 c;

	hash_common(&c, in, "input");
	sha256_field_str(&c, "config-base", in->config_base);
	for (size_t i = 0; i < in->nr_fragments; i++)
		sha256_field_str(&c, "fragment", in->fragments[i]);
	sha256_final_hex(&c, key);
}

char *kcache_entry_dir(const char *cache_dir, const char *key)
{
	return xasprintf("%s/entries/%s", cache_dir, key);
}

int kcache_entry_exists(const char *cache_dir, const char *key)
{
	char *meta = xasprintf("%s/entries/%s/meta.json", cache_dir, key);
	char *img = xasprintf("%s/entries/%s/bzImage", cache_dir, key);
	int ok = is_regular_file(meta) && is_regular_file(img);

	free(meta);
	free(img);
	return ok;
}

int kcache_entry_hold(const char *entry_dir)
{
	char *meta = xasprintf("%s/meta.json", entry_dir);
	char *img = xasprintf("%s/bzImage", entry_dir);
	int fd = open(meta, O_RDONLY | O_CLOEXEC | O_NOFOLLOW), r;
	struct stat held, now;

	if (fd >= 0) {
		/* gc holds its lock for a rename: never long */
		while ((r = flock(fd, LOCK_SH)) && errno == EINTR)
			;
		/* What gc removed while this waited is not the entry at the path any more. */
		if (r || fstat(fd, &held) || stat(meta, &now) || held.st_ino != now.st_ino ||
		    held.st_dev != now.st_dev || !is_regular_file(img)) {
			close(fd);
			fd = -1;
		}
	}
	free(meta);
	free(img);
	return fd;
}

int kcache_entry_remove(const char *entry_dir, int dry_run)
{
	char *meta = xasprintf("%s/meta.json", entry_dir);
	/* Without a meta.json (an entry never completed) there is nothing to hold. */
	int fd = open(meta, O_RDONLY | O_CLOEXEC | O_NOFOLLOW), r = 0, e = 0;

	if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB)) {
		e = errno;
		r = e == EWOULDBLOCK ? 1 : -1;
	} else if (!dry_run) {
		char *gone = xasprintf("%s.gc.%ld", entry_dir, (long)getpid());

		rm_rf(gone);
		if (rename(entry_dir, gone)) {
			e = errno;
			r = -1;
		}
		/* Out of entries/: the lock has done its work (a holder waiting for it finds no entry). */
		if (fd >= 0)
			close(fd);
		fd = -1;
		if (!r && rm_rf(gone)) {
			e = errno;
			r = -1;
		}
		free(gone);
	}
	if (fd >= 0)
		close(fd);
	free(meta);
	errno = e;
	return r;
}

/* "<64 hex>.tmp.<digits>" or "<64 hex>.gc.<digits>": a leftover of a killed store or gc. */
static int is_leftover(const char *name)
{
	const char *p = name + SHA256_HEX_LEN;

	if (strlen(name) <= SHA256_HEX_LEN || strspn(name, "0123456789abcdef") != SHA256_HEX_LEN)
		return 0;
	if (!strncmp(p, ".tmp.", 5))
		p += 5;
	else if (!strncmp(p, ".gc.", 4))
		p += 4;
	else
		return 0;
	return *p && strspn(p, "0123456789") == strlen(p);
}

int kcache_sweep(const char *cache_dir)
{
	char *dir = xasprintf("%s/entries", cache_dir);
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	while (d && (de = readdir(d))) {
		if (!is_leftover(de->d_name))
			continue;
		char *path = xasprintf("%s/%s", dir, de->d_name);
		if (!rm_rf(path))
			n++;
		free(path);
	}
	if (d)
		closedir(d);
	free(dir);
	return n;
}

int kcache_index_put(const char *cache_dir, const char *ikey, const char *key)
{
	char *dir = xasprintf("%s/index", cache_dir);
	char *path = xasprintf("%s/%s", dir, ikey);
	char *line = xasprintf("%s\n", key);
	int r = mkdir_p(dir, 0755) ? -1 : write_file_atomic(path, line, strlen(line));

	free(dir);
	free(path);
	free(line);
	return r;
}

int kcache_index_get(const char *cache_dir, const char *ikey, char key[SHA256_HEX_LEN + 1])
{
	char *path = xasprintf("%s/index/%s", cache_dir, ikey);
	struct strbuf sb = STRBUF_INIT;
	int r = -1;

	if (!read_file(path, &sb, 4096)) {
		sb_trim_trailing_newlines(&sb);
		if (sb.len == SHA256_HEX_LEN) {
			memcpy(key, sb.buf, SHA256_HEX_LEN + 1);
			r = 0;
		}
	}
	sb_release(&sb);
	free(path);
	return r;
}
