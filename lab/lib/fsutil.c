// SPDX-License-Identifier: GPL-2.0
#include "fsutil.h"
#include "util.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

char *path_join(const char *dir, const char *rel)
{
	if (rel[0] == '/' || !dir || !*dir)
		return xstrdup(rel);
	size_t l = strlen(dir);
	return xasprintf("%s%s%s", dir, dir[l - 1] == '/' ? "" : "/", rel);
}

char *path_dirname(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return xstrdup(".");
	if (slash == path)
		return xstrdup("/");
	return xstrndup(path, (size_t)(slash - path));
}

const char *path_basename(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* Lexically normalise: collapse "//", "/./" and "dir/../". */
static char *normalize(const char *abs)
{
	struct strvec parts = STRVEC_INIT, out = STRVEC_INIT;
	struct strbuf sb = STRBUF_INIT;

	strvec_split(&parts, abs, "/");
	for (size_t i = 0; i < parts.n; i++) {
		if (!strcmp(parts.v[i], "."))
			continue;
		if (!strcmp(parts.v[i], "..")) {
			if (out.n)
				free(out.v[--out.n]), out.v[out.n] = NULL;
			continue;
		}
		strvec_push(&out, parts.v[i]);
	}
	for (size_t i = 0; i < out.n; i++)
		sb_addf(&sb, "/%s", out.v[i]);
	if (!sb.len)
		sb_adds(&sb, "/");
	strvec_clear(&parts);
	strvec_clear(&out);
	return sb_detach(&sb);
}

char *path_absolute(const char *base, const char *path)
{
	char *joined, *res;

	if (path[0] == '/') {
		joined = xstrdup(path);
	} else if (base && base[0] == '/') {
		joined = path_join(base, path);
	} else {
		char *cwd = getcwd(NULL, 0);	/* no length limit */

		if (!cwd)
			return NULL;	/* errno says why: ENOENT when it was removed */
		char *b = base ? path_join(cwd, base) : cwd;
		joined = path_join(b, path);
		if (b != cwd)
			free(b);
		free(cwd);
	}
	res = normalize(joined);
	free(joined);
	return res;
}

int mkdir_p(const char *path, mode_t mode)
{
	char *p = xstrdup(path);

	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, mode) && errno != EEXIST) {
			free(p);
			return -1;
		}
		*s = '/';
	}
	int r = mkdir(p, mode);
	free(p);
	if (r && errno == EEXIST && is_dir(path))
		return 0;
	return r;
}

int mkdir_new(const char *path, mode_t mode)
{
	char *parent = path_dirname(path);
	int r = mkdir_p(parent, 0755);

	free(parent);
	return r ? r : mkdir(path, mode);
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st; (void)ftw;
	if (flag == FTW_DP)
		return rmdir(path) && errno != ENOENT ? -1 : 0;
	return unlink(path) && errno != ENOENT ? -1 : 0;
}

int rm_rf(const char *path)
{
	struct stat st;

	if (lstat(path, &st))
		return errno == ENOENT ? 0 : -1;
	if (!S_ISDIR(st.st_mode))
		return unlink(path);
	return nftw(path, rm_one, 32, FTW_DEPTH | FTW_PHYS);
}

int path_exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

int is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int is_regular_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

long long file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) ? -1 : (long long)st.st_size;
}

/* Read @fd to its end into @out, at most @max bytes (0: any; EFBIG past it); closes it. */
static int read_fd_all(int fd, struct strbuf *out, size_t max)
{
	char buf[8192];
	ssize_t n;
	int e;

	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		if (max && out->len + (size_t)n > max) {
			close(fd);
			errno = EFBIG;
			return -1;
		}
		sb_add(out, buf, (size_t)n);
	}
	e = errno;
	close(fd);
	errno = e;
	return n < 0 ? -1 : 0;
}

int read_file(const char *path, struct strbuf *out, size_t max)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	return fd < 0 ? -1 : read_fd_all(fd, out, max);
}

static int read_regular_fd(int fd, struct strbuf *out, size_t max);

int read_regular_file(const char *path, struct strbuf *out, size_t max)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);

	return fd < 0 ? -1 : read_regular_fd(fd, out, max);
}

int write_all(int fd, const void *data, size_t len)
{
	const char *p = data;

	while (len) {
		ssize_t n = write(fd, p, len);
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

/* The process's umask, read from /proc by read_umask() (022 if it cannot be). */
static long umask_read = 022;

static void read_umask(void)
{
	struct strbuf sb = STRBUF_INIT;
	const char *u;

	if (!read_file("/proc/self/status", &sb, 1 << 16) &&
	    (u = strstr(sb_str(&sb), "\nUmask:")))
		umask_read = strtol(u + 7, NULL, 8) & 0777;
	sb_release(&sb);
}

/*
 * The permissions open(..., @mode) would give (mkostemp() creates 0600).
 * The umask is read from /proc rather than by umask(0) and back: libvirt's
 * threads may create files meanwhile.
 */
static mode_t umasked(mode_t mode)
{
	/* Once, and never half-read by another thread. */
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, read_umask);
	return mode & ~(mode_t)umask_read;
}

#define TMP_SUFFIX ".tmp.XXXXXX"

/*
 * The mkostemp() template for @path: "FILE.tmp.XXXXXX" in FILE's folder.
 * A name near NAME_MAX leaves no room for the suffix (the rename target
 * may be long, the temporary file may not): then FILE is cut short, at a
 * character boundary so the name stays UTF-8 when FILE was.
 */
static char *tmp_template(const char *path)
{
	const char *base = path_basename(path);
	size_t keep = strlen(base), room = NAME_MAX - (sizeof(TMP_SUFFIX) - 1);

	if (keep > room) {
		keep = room;
		while (keep && ((unsigned char)base[keep] & 0xc0) == 0x80)
			keep--;
	}
	return xasprintf("%.*s%.*s" TMP_SUFFIX, (int)(base - path), path, (int)keep, base);
}

/*
 * Start writing @path atomically: a new temporary file beside it, whose
 * name goes to *@tmp. Its descriptor, or -1 with errno.
 */
static int atomic_begin(const char *path, char **tmp)
{
	/*
	 * A unique name, created with O_EXCL: the folder may be shared
	 * (report --html /tmp/out.html), and a predictable name there lets
	 * anyone plant a symlink that we would follow and truncate. Same
	 * folder as @path, so the rename is atomic.
	 */
	int fd, e;

	*tmp = tmp_template(path);
	fd = mkostemp(*tmp, O_CLOEXEC);
	if (fd >= 0 && !fchmod(fd, umasked(0644)))
		return fd;
	e = errno;
	if (fd >= 0) {
		close(fd);
		unlink(*tmp);
	}
	free(*tmp);
	*tmp = NULL;
	errno = e;
	return -1;
}

/* Give up atomic_begin()'s file: nothing appears at its path. Keeps errno. */
static void atomic_abort(int fd, char *tmp)
{
	int e = errno;

	close(fd);
	unlink(tmp);
	free(tmp);
	errno = e;
}

/* Put atomic_begin()'s file, written whole, at @path; else as atomic_abort(). */
static int atomic_commit(const char *path, int fd, char *tmp)
{
	if (fsync(fd)) {
		atomic_abort(fd, tmp);
		return -1;
	}
	if (close(fd) || rename(tmp, path)) {
		int e = errno;

		unlink(tmp);
		free(tmp);
		errno = e;
		return -1;
	}
	/* Make the rename itself durable: a run record must survive SIGKILL and power loss. */
	char *dir = path_dirname(path);
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		fsync(dfd);
		close(dfd);
	}
	free(dir);
	free(tmp);
	return 0;
}

int write_file_atomic(const char *path, const void *data, size_t len)
{
	char *tmp;
	int fd = atomic_begin(path, &tmp);

	if (fd < 0)
		return -1;
	if (write_all(fd, data, len)) {
		atomic_abort(fd, tmp);
		return -1;
	}
	return atomic_commit(path, fd, tmp);
}

/* A name tmp_template() made: something, then ".tmp." and mkostemp()'s six characters. */
static int is_atomic_tmp_name(const char *name)
{
	size_t len = strlen(name), suffix = sizeof(TMP_SUFFIX) - 1;
	const char *x = name + len - 6;

	if (len <= suffix || strncmp(name + len - suffix, TMP_SUFFIX, suffix - 6))
		return 0;
	for (int i = 0; i < 6; i++)
		if (!isalnum((unsigned char)x[i]))
			return 0;
	return 1;
}

DIR *opendir_nofollow(const char *path)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *d;

	if (fd < 0)
		return NULL;
	d = fdopendir(fd);
	if (!d) {
		int saved = errno;

		close(fd);
		errno = saved;
	}
	return d;
}

int remove_atomic_leftovers(const char *dir)
{
	/* Not through a link: a planted logs/x -> /elsewhere must not be swept. */
	DIR *d = opendir_nofollow(dir);
	struct dirent *de;
	int n = 0;

	if (!d)
		return -1;
	while ((de = readdir(d))) {
		struct stat st;

		if (!is_atomic_tmp_name(de->d_name) ||
		    fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode))
			continue;
		if (!unlinkat(dirfd(d), de->d_name, 0))
			n++;
	}
	closedir(d);
	return n;
}

/* The null device (char 1:3), wherever its node is: writing there has no effect. */
static int is_null_device(const struct stat *st)
{
	return S_ISCHR(st->st_mode) && major(st->st_rdev) == 1 && minor(st->st_rdev) == 3;
}

/* /dev/null at @path, opened to be written in place; -1 with errno when it is not that. */
static int open_null_device(const char *path)
{
	struct stat st;
	/*
	 * A rename would replace it (run as root, `-o /dev/null` once made it
	 * a regular file for the whole machine). O_NOFOLLOW and O_NONBLOCK,
	 * then fstat: whatever was put there since the lstat is neither
	 * followed nor waited on.
	 */
	int fd = open(path, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC), e;

	if (fd < 0)
		return -1;
	if (fstat(fd, &st))
		e = errno;
	else if (is_null_device(&st))
		return fd;
	else
		e = EINVAL;
	close(fd);
	errno = e;
	return -1;
}

/* A new or regular file at @path: written to a temporary, renamed over at commit. */
/*
 * A user's file is written while it is rendered, which for a 200 MB page
 * takes seconds: a Ctrl-C then must not leave FILE.tmp.XXXXXX behind. One
 * temporary at a time (the commands write their outputs one after the
 * other, from the main thread): its name is kept where a signal handler
 * may read it, and a SIGINT or SIGTERM whose action is still the default
 * (the lab's own handler, interrupt.h, is left alone) removes it and then
 * ends the process as the default would.
 */
static char pending_tmp[PATH_MAX];
static volatile sig_atomic_t pending_set;
static struct sigaction pending_old[2];
static int pending_installed[2];		/* ours replaced the default */

static void unlink_pending(int sig)
{
	if (pending_set)
		unlink(pending_tmp);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void pending_begin(const char *tmp)
{
	static const int sigs[] = { SIGINT, SIGTERM };
	struct sigaction sa = { .sa_handler = unlink_pending };

	if (strlen(tmp) >= sizeof(pending_tmp))
		return;
	memcpy(pending_tmp, tmp, strlen(tmp) + 1);
	pending_set = 1;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < ARRAY_SIZE(sigs); i++) {
		struct sigaction cur;

		/* Only over the default action: a handler already there wins. */
		pending_installed[i] = !sigaction(sigs[i], NULL, &cur) &&
				       !(cur.sa_flags & SA_SIGINFO) && cur.sa_handler == SIG_DFL &&
				       !sigaction(sigs[i], &sa, &pending_old[i]);
	}
}

static void pending_end(void)
{
	static const int sigs[] = { SIGINT, SIGTERM };

	if (!pending_set)
		return;
	pending_set = 0;
	for (size_t i = 0; i < ARRAY_SIZE(sigs); i++)
		if (pending_installed[i])
			sigaction(sigs[i], &pending_old[i], NULL);
}

static int user_file_begin_atomic(const char *path, struct user_file *uf)
{
	uf->fd = atomic_begin(path, &uf->tmp);
	if (uf->fd < 0)
		return -1;
	uf->path = xstrdup(path);
	pending_begin(uf->tmp);
	return 0;
}

int user_file_begin(const char *path, struct user_file *uf)
{
	struct stat st;

	*uf = (struct user_file){ .fd = -1 };
	if (user_output_is_stdout(path)) {
		/* What stdio holds goes first: the output is written past it. */
		if (fflush(stdout))
			return -1;
		uf->fd = STDOUT_FILENO;
		return 0;
	}
	/*
	 * lstat, never stat: a link at @path is refused whatever it points
	 * to. A plain open() would follow `out.html -> /dev/loop0` onto the
	 * device, and block forever on a FIFO with no reader.
	 */
	if (lstat(path, &st))
		return errno == ENOENT ? user_file_begin_atomic(path, uf) : -1;
	if (S_ISREG(st.st_mode))
		return user_file_begin_atomic(path, uf);
	if (!is_null_device(&st)) {
		errno = S_ISDIR(st.st_mode) ? EISDIR : S_ISLNK(st.st_mode) ? ELOOP : EINVAL;
		return -1;
	}
	uf->fd = open_null_device(path);
	return uf->fd < 0 ? -1 : 0;
}

int user_file_commit(struct user_file *uf)
{
	int r = 0;

	if (uf->tmp) {
		r = atomic_commit(uf->path, uf->fd, uf->tmp);
		pending_end();
	}
	else if (uf->fd != STDOUT_FILENO && uf->fd >= 0)
		r = close(uf->fd);
	free(uf->path);
	*uf = (struct user_file){ .fd = -1 };
	return r ? -1 : 0;
}

void user_file_abort(struct user_file *uf)
{
	int e = errno;

	if (uf->tmp) {
		atomic_abort(uf->fd, uf->tmp);
		pending_end();
	}
	else if (uf->fd != STDOUT_FILENO && uf->fd >= 0)
		close(uf->fd);
	free(uf->path);
	*uf = (struct user_file){ .fd = -1 };
	errno = e;
}

int write_user_file(const char *path, const void *data, size_t len)
{
	struct user_file uf;

	if (user_file_begin(path, &uf))
		return -1;
	if (write_all(uf.fd, data, len)) {
		user_file_abort(&uf);
		return -1;
	}
	return user_file_commit(&uf);
}

int write_user_output(const char *path, const void *data, size_t len)
{
	if (!user_output_is_stdout(path))
		return write_user_file(path, data, len);
	if ((len && fwrite(data, 1, len, stdout) != len) || fflush(stdout))
		return -1;
	return 0;
}

const char *user_output_name(const char *path)
{
	return user_output_is_stdout(path) ? "standard output" : path;
}

const char *user_file_strerror(int errnum)
{
	switch (errnum) {
	case ELOOP:
		return "it is a symbolic link, and outputs are never written through one "
		       "(remove it, or name the file it points to)";
	case EINVAL:
		return "it is not a regular file (a FIFO, a socket or a device); "
		       "outputs go to regular files or /dev/null";
	case EISDIR:
		return "it is a folder";
	default:
		return strerror(errnum);
	}
}

int open_beneath(const char *root, const char *rel, int flags)
{
	struct open_how how = { .flags = (uint64_t)(flags | O_CLOEXEC),
				.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
					   RESOLVE_NO_MAGICLINKS };
	int dirfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC), fd, e;

	if (dirfd < 0)
		return -1;
	fd = (int)syscall(SYS_openat2, dirfd, rel, &how, sizeof(how));
	e = errno;
	close(dirfd);
	errno = e;
	return fd;
}

/* Read all of @fd, a regular file of at most @max bytes (0: any), into @out; closes it. */
static int read_regular_fd(int fd, struct strbuf *out, size_t max)
{
	struct stat st;
	int e;

	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || (max && (uint64_t)st.st_size > max)) {
		e = errno;
		if (!fstat(fd, &st))
			e = !S_ISREG(st.st_mode) ? EINVAL : EFBIG;
		close(fd);
		errno = e;
		return -1;
	}
	return read_fd_all(fd, out, max);
}

int read_file_beneath(const char *root, const char *rel, struct strbuf *out, size_t max)
{
	int fd = open_beneath(root, rel, O_RDONLY | O_NONBLOCK | O_NOCTTY);

	return fd < 0 ? -1 : read_regular_fd(fd, out, max);
}

/* Copy the open @in to a new @dst (never through a link there); closes @in. */
static int copy_fd(int in, const char *dst, mode_t mode)
{
	char buf[65536];
	ssize_t n;
	int out;

	/* Never through a symlink someone left at @dst. */
	out = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, mode);
	if (out < 0) {
		close(in);
		return -1;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0) {
		if (write_all(out, buf, (size_t)n)) {
			n = -1;
			break;
		}
	}
	close(in);
	if (close(out) || n < 0)
		return -1;
	return 0;
}

int copy_file_beneath(const char *root, const char *rel, const char *dst, mode_t mode)
{
	int in = open_beneath(root, rel, O_RDONLY | O_NONBLOCK | O_NOCTTY);
	struct stat st;

	if (in < 0)
		return -1;
	if (fstat(in, &st) || !S_ISREG(st.st_mode)) {
		close(in);
		errno = EINVAL;
		return -1;
	}
	return copy_fd(in, dst, mode);
}

int copy_file(const char *src, const char *dst, mode_t mode)
{
	int in = open(src, O_RDONLY | O_CLOEXEC);

	if (in < 0)
		return -1;
	return copy_fd(in, dst, mode);
}

void tail_lines(const char *path, int n, struct strbuf *out)
{
	struct strbuf sb = STRBUF_INIT;
	long long size = file_size(path);
	int fd;

	if (size < 0)
		return;
	/* Only the end of a (possibly huge) build log matters. */
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	off_t start = size > 65536 ? size - 65536 : 0;
	char buf[8192];
	ssize_t r;
	lseek(fd, start, SEEK_SET);
	while ((r = read(fd, buf, sizeof(buf))) > 0)
		sb_add(&sb, buf, (size_t)r);
	close(fd);
	sb_trim_trailing_newlines(&sb);
	size_t i = sb.len;
	int lines = 0;
	while (i > 0) {
		if (sb.buf[i - 1] == '\n' && ++lines == n)
			break;
		i--;
	}
	sb_add(out, sb.buf ? sb.buf + i : "", sb.len - i);
	if (sb.len)
		sb_addc(out, '\n');
	sb_release(&sb);
}
