/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Thread-safe: no shared state but the umask, read once (pthread_once).
 *
 * File-system helpers: paths, atomic writes, recursive create and remove.
 */
#ifndef LAB_FSUTIL_H
#define LAB_FSUTIL_H

#include "util.h"

#include <stddef.h>
#include <dirent.h>
#include <sys/types.h>

#include "strbuf.h"

/* "a" + "b" -> "a/b"; an absolute @rel is returned as is. Caller frees. */
char *path_join(const char *dir, const char *rel);
/* Directory part of @path ("." when there is none). Caller frees. */
char *path_dirname(const char *path);
const char *path_basename(const char *path);
/*
 * Absolute form of @path (need not exist); relative paths resolve against
 * @base, and a relative or NULL @base against the current folder. Caller
 * frees. NULL with errno set only when the current folder was needed and
 * cannot be read (it was removed, or a parent is not searchable).
 */
LAB_MUST_CHECK
char *path_absolute(const char *base, const char *path);

LAB_MUST_CHECK
int mkdir_p(const char *path, mode_t mode);
/*
 * Create @path itself (its parents as needed); an existing @path, or a
 * symlink there, is an error (EEXIST): for temporary folders at a known
 * name, which must be ours and empty.
 */
LAB_MUST_CHECK
int mkdir_new(const char *path, mode_t mode);
/* Remove a file or a whole tree; a missing path is not an error. */
int rm_rf(const char *path);
int path_exists(const char *path);
int is_dir(const char *path);
int is_regular_file(const char *path);

/* Read a whole file; -1 with errno on failure. At most @max bytes (0: no limit). */
LAB_MUST_CHECK
int read_file(const char *path, struct strbuf *out, size_t max);
/*
 * read_file() for a file others may have planted: only a regular file, not
 * through a symbolic link (ELOOP), never a FIFO or a device (EINVAL: they
 * would block or never end), and no larger than @max (EFBIG) by its size
 * before a byte is read.
 */
LAB_MUST_CHECK
int read_regular_file(const char *path, struct strbuf *out, size_t max);
/* Write via a temporary file in the same directory, fsync, rename. */
/* write() all of @data, again after EINTR and short writes: 0, or -1 with errno. */
LAB_MUST_CHECK
int write_all(int fd, const void *data, size_t len);
LAB_MUST_CHECK
int write_file_atomic(const char *path, const void *data, size_t len);
/*
 * Remove what write_file_atomic() leaves in @dir when its process dies
 * between creating the temporary file and the rename (SIGKILL, power
 * loss): regular files named FILE.tmp.XXXXXX. Only for a folder no other
 * process writes meanwhile (a session's, under its lock). The number
 * removed, or -1 with errno when @dir cannot be read.
 */
int remove_atomic_leftovers(const char *dir);
/* opendir() of @path itself, never through a symbolic link there (ELOOP). */
LAB_MUST_CHECK
DIR *opendir_nofollow(const char *path);
/*
 * A file the user named (-o, --html, --junit): a regular file, new or
 * old, is written atomically (write_file_atomic()). Anything else at
 * @path is refused, -1 with errno: a folder (EISDIR), a symbolic link
 * whatever it points to (ELOOP: never written through, so a link to a
 * block device or a FIFO cannot receive the report), any other
 * non-regular file (EINVAL: a FIFO would block, a device would be
 * overwritten). The one exception is the null device (/dev/null),
 * written in place and never renamed over (as root, a rename made
 * /dev/null a regular file for the whole machine).
 */
LAB_MUST_CHECK
int write_user_file(const char *path, const void *data, size_t len);
/*
 * write_user_file() as the output is produced, for outputs too large to
 * hold whole (report --html of 200 MB): user_file_begin() gives the
 * descriptor to write to (a strbuf's sink), user_file_commit() puts the
 * file in place, user_file_abort() gives it up. Same rules and errors as
 * write_user_file(): a regular file, new or old, is written to a
 * temporary file beside it and renamed over it at commit, so a reader
 * never sees half a file, and a failure (ENOSPC on a write, in commit)
 * leaves neither the temporary nor a changed file; /dev/null is written
 * in place; anything else is refused by begin. USER_OUTPUT_STDOUT ("-")
 * and NULL are standard output (stdio flushed first, never closed). After
 * commit or abort, @uf holds nothing. Abort keeps errno.
 */
struct user_file {
	int fd;
	/* The user's path and the temporary renamed to it; NULL when written in place. */
	char *path;
	char *tmp;
};
LAB_MUST_CHECK
int user_file_begin(const char *path, struct user_file *uf);
LAB_MUST_CHECK
int user_file_commit(struct user_file *uf);
void user_file_abort(struct user_file *uf);
/* Why write_user_file() failed, in words: its refusals above, else strerror(). */
const char *user_file_strerror(int errnum);
/*
 * Every output option (-o, --html, --junit, --json): "-" is standard
 * output, as for cat and tar; any other @path is write_user_file()'s.
 * NULL is standard output too (the option was not given). On failure -1
 * with errno; user_output_name() names the target for the message.
 */
#define USER_OUTPUT_STDOUT "-"
static inline int user_output_is_stdout(const char *path)
{
	return !path || (path[0] == '-' && !path[1]);
}
LAB_MUST_CHECK
int write_user_output(const char *path, const void *data, size_t len);
/* "standard output" for "-" or NULL, else @path. */
const char *user_output_name(const char *path);
LAB_MUST_CHECK
int copy_file(const char *src, const char *dst, mode_t mode);
/*
 * For folders someone else writes (a sandboxed build's tree and output,
 * sandbox.h): open @rel below @root with no symbolic link anywhere on the
 * way and no ".." out of it (openat2() RESOLVE_BENEATH and
 * RESOLVE_NO_SYMLINKS; ELOOP or EXDEV when the path tries), @flags as
 * open()'s. A link there could point the lab, which may be root, at any
 * file of the host. The descriptor, or -1 with errno.
 */
LAB_MUST_CHECK
int open_beneath(const char *root, const char *rel, int flags);
/* copy_file() of @root/@rel, opened by open_beneath(), only a regular file (EINVAL). */
LAB_MUST_CHECK
int copy_file_beneath(const char *root, const char *rel, const char *dst, mode_t mode);
/* read_regular_file() of @root/@rel, opened by open_beneath(). */
LAB_MUST_CHECK
int read_file_beneath(const char *root, const char *rel, struct strbuf *out, size_t max);
/* Last @n lines of a file (for "the log's last lines" in error messages). */
void tail_lines(const char *path, int n, struct strbuf *out);
LAB_MUST_CHECK
long long file_size(const char *path);

#endif
