// SPDX-License-Identifier: GPL-2.0
#include "kbuild_prep.h"
#include "fsutil.h"
#include "kbuild.h"
#include "ksource.h"
#include "lab_paths.h"
#include "run_command.h"
#include "sandbox.h"
#include "sha256.h"
#include "strbuf.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PREP_STAMP ".mglrulab-prepared"

/*
 * @c in the sandbox (sandbox.h): the work tree, and @exe (the recorder)
 * when given, read-only; the folder @dir writable. The tree holds a
 * series' code as much as a kernel build's does.
 */
static int run_in_sandbox(const struct lab_config *cfg, const char *tree, const char *dir,
			  const char *exe, struct child *c)
{
	struct strbuf err = STRBUF_INIT;
	const struct sandbox_bind recorder = { .path = exe, .writable = 0 };
	int timed_out, r;

	r = ksource_build_run(&cfg->sandbox, tree, dir, exe ? &recorder : NULL, c, &timed_out,
			      &err);
	if (r < 0)
		lab_error("kernel_build: %s", sb_str(&err));
	else if (timed_out)
		lab_error("kernel_build: make in %s ran past [lab] build_timeout and was stopped",
			  dir);
	sb_release(&err);
	return r;
}

static int run_make(const struct lab_config *cfg, const char *tree, const char *dir,
		    const char *log, const char *const *targets)
{
	struct strvec argv = STRVEC_INIT;
	struct child c = { .log_path = log, .null_stdout = 1 };
	int r;

	strvec_pushv(&argv, (const char *const[]){ "make", "-C", tree, NULL });
	strvec_pushf(&argv, "O=%s", dir);
	strvec_pushv(&argv, targets);
	c.argv = (const char *const *)argv.v;
	r = run_in_sandbox(cfg, tree, dir, NULL, &c);
	strvec_clear(&argv);
	return r;
}

static int failed(const char *what, const char *log)
{
	struct strbuf tail = STRBUF_INIT;

	tail_lines(log, 15, &tail);
	lab_error("kernel_build: %s failed; the log is %s, its last lines:\n%s", what, log,
		  sb_str(&tail));
	sb_release(&tail);
	return LAB_ELAB;
}

#define RECORD_ENV "MGLRULAB_MAKE_RECORD"
#define MAKE_ENV_FILE ".mglrulab-make-env"
/* An object every kernel config builds: recording compiles it once. */
#define PROBE_DIR "lib"
#define PROBE_OBJ "lib/ctype.o"

extern char **environ;

int kbuild_make_recorder(int argc, char **argv)
{
	const char *dir = getenv(RECORD_ENV);
	char cwd[PATH_MAX];

	if (dir && *dir && getcwd(cwd, sizeof(cwd))) {
		struct strbuf sb = STRBUF_INIT;
		char *path = xasprintf("%s/%ld", dir, (long)getpid());

		/* cwd, then the arguments, then "--env--", then the environment. */
		sb_add(&sb, cwd, strlen(cwd) + 1);
		for (int i = 1; i < argc; i++)
			sb_add(&sb, argv[i], strlen(argv[i]) + 1);
		sb_add(&sb, "--env--", 8);
		for (char **e = environ; *e; e++)
			sb_add(&sb, *e, strlen(*e) + 1);
		if (write_file_atomic(path, sb.buf, sb.len))
			fprintf(stderr, "mglrulab: cannot record %s: %s\n", path, strerror(errno));
		sb_release(&sb);
		free(path);
	}
	argv[0] = "make";
	execvp("make", argv);
	fprintf(stderr, "mglrulab: cannot run make: %s\n", strerror(errno));
	return 127;
}

int kbuild_make_env_pick(const char *rec, size_t len, struct strbuf *out)
{
	const char *p = rec, *end = rec + len;
	int makefile_build = 0, obj = 0, goal = 0;

	/* Every string must end inside the record. */
	if (!len || rec[len - 1])
		return -1;

	p += strlen(p) + 1;	/* cwd */
	for (; p < end && strcmp(p, "--env--"); p += strlen(p) + 1) {
		makefile_build |= str_ends_with(p, "/scripts/Makefile.build");
		obj |= !strcmp(p, "obj=" PROBE_DIR);
		goal |= !strcmp(p, PROBE_OBJ);
	}
	if (!makefile_build || !obj || !goal || p >= end)
		return -1;
	for (p += strlen(p) + 1; p < end; p += strlen(p) + 1) {
		if (str_starts_with(p, "MAKE=") || str_starts_with(p, RECORD_ENV "="))
			continue;
		if (str_starts_with(p, "MAKEFLAGS=")) {
			/*
			 * Drop the " MAKE=..." override the recording added;
			 * make writes its space as "\ ".
			 */
			const char *m = strstr(p, " MAKE=");
			if (m) {
				const char *after = m + 6;

				while (*after && (*after != ' ' || after[-1] == '\\'))
					after++;
				sb_add(out, p, (size_t)(m - p));
				sb_adds(out, after);
				sb_add(out, "", 1);
				continue;
			}
		}
		sb_add(out, p, strlen(p) + 1);
	}
	return 0;
}

/*
 * Build PROBE_OBJ natively with the recorder as $(MAKE) and keep the
 * environment of its Makefile.build sub-make in <dir>/MAKE_ENV_FILE.
 */
static int record_make_env(const struct lab_config *cfg, const char *tree, const char *dir,
			   const char *log)
{
	char *exe = lab_exe_path();
	char *rec = xasprintf("%s/.mglrulab-record", dir);
	char *env_rec = xasprintf(RECORD_ENV "=%s", rec);
	struct strvec argv = STRVEC_INIT;
	struct strbuf env = STRBUF_INIT, text = STRBUF_INIT;
	char *probe = NULL;
	DIR *d;
	struct dirent *de;
	int r = -1;

	if (!exe) {
		lab_error("kernel_build: cannot find the mglrulab executable: %s", strerror(errno));
		goto out;
	}
	/* make hands $(MAKE) to a shell: the path must need no quoting. */
	if (strspn(exe, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+") != strlen(exe)) {
		lab_error("kernel_build: %s: the mglrulab path must be plain to serve as $(MAKE)", exe);
		goto out;
	}
	rm_rf(rec);
	if (mkdir_p(rec, 0755) || sandbox_give(&cfg->sandbox, rec))
		goto out;
	/* Absent, so that make really descends and builds it. */
	probe = xasprintf("%s/" PROBE_OBJ, dir);
	unlink(probe);
	strvec_pushv(&argv, (const char *const[]){ "make", "-C", tree, NULL });
	strvec_pushf(&argv, "O=%s", dir);
	strvec_pushf(&argv, "MAKE=%s " KBUILD_MAKE_RECORDER, exe);
	strvec_push(&argv, PROBE_OBJ);
	struct child c = { .argv = (const char *const *)argv.v, .log_path = log,
			   .env = (const char *const[]){ env_rec, NULL }, .null_stdout = 1 };
	if (run_in_sandbox(cfg, tree, dir, exe, &c)) {
		failed("make " PROBE_OBJ " (recording kbuild's environment)", log);
		goto out;
	}
	/* the sandbox wrote them: no link is followed */
	d = opendir_nofollow(rec);
	while (d && (de = readdir(d)) && r) {
		char *path = xasprintf("%s/%s", rec, de->d_name);

		sb_reset(&text);
		if (de->d_name[0] != '.' && read_regular_file(path, &text, 1 << 22) >= 0) {
			sb_reset(&env);
			r = kbuild_make_env_pick(text.buf, text.len, &env);
		}
		free(path);
	}
	if (d)
		closedir(d);
	if (r)
		lab_error("kernel_build: no Makefile.build sub-make for " PROBE_OBJ " was recorded in %s", rec);
	else {
		char *path = xasprintf("%s/" MAKE_ENV_FILE, dir);
		if ((r = write_file_atomic(path, env.buf, env.len)))
			lab_error("kernel_build: cannot write %s: %s", path, strerror(errno));
		free(path);
	}
out:
	rm_rf(rec);
	/* Not left built: a workload may well want to compile it. */
	if (probe)
		unlink(probe);
	free(probe);
	strvec_clear(&argv);
	sb_release(&env);
	sb_release(&text);
	free(rec);
	free(env_rec);
	free(exe);
	return r;
}

/* The folder's key: what its contents depend on. */
static int prep_key(const struct lab_config *cfg, const char *tree, const char *config,
		    char key[SHA256_HEX_LEN + 1])
{
	struct strbuf head = STRBUF_INIT, cc = STRBUF_INIT;
	struct sha256 h;
	int r = 0;

	if (ksource_git(&cfg->sandbox, tree, (const char *const[]){ "rev-parse", "HEAD", NULL },
			&head) ||
	    run_capture((const char *const[]){ "gcc", "--version", NULL }, NULL, &cc))
		r = -1;
	sb_trim_trailing_newlines(&head);
	sha256_init(&h);
	sha256_field_str(&h, "format", "mglrulab-prepared/1");
	sha256_field_str(&h, "tree", tree);
	sha256_field_str(&h, "head", sb_str(&head));
	sha256_field_str(&h, "cc", sb_str(&cc));
	sha256_field_str(&h, "config", config);
	sha256_final_hex(&h, key);
	sb_release(&head);
	sb_release(&cc);
	return r;
}

/* The folder's name under <cache>/prepared: the key's first 16 hex digits. */
#define PREP_KEY_LEN 16

int kbuild_prepared_dir_is(const struct lab_config *cfg, const char *dir)
{
	char *rel = xasprintf("%s/prepared", cfg->cache_dir);
	char *root = realpath(rel, NULL), *real = realpath(dir, NULL);
	const char *name = path_basename(dir);
	size_t len = root ? strlen(root) : 0;
	int r = root && real && !strcmp(real, dir) && !strncmp(dir, root, len) && dir[len] == '/' &&
		name == dir + len + 1 && strlen(name) == PREP_KEY_LEN &&
		strspn(name, "0123456789abcdef") == PREP_KEY_LEN;

	free(rel);
	free(root);
	free(real);
	return r;
}

/* The prepared folder of @key in the cache, made, as a real path; NULL with the error said. */
static char *prepared_folder(const struct lab_config *cfg, const char *key)
{
	char *rel = xasprintf("%s/prepared/%.*s", cfg->cache_dir, PREP_KEY_LEN, key), *dir;

	if (mkdir_p(rel, 0755)) {
		lab_error("kernel_build: cannot create %s: %s", rel, strerror(errno));
		free(rel);
		return NULL;
	}
	dir = realpath(rel, NULL);
	free(rel);
	if (!dir)
		lab_error("kernel_build: the prepared folder: %s", strerror(errno));
	return dir;
}

/*
 * Make @dir a prepared build folder of @rtree: olddefconfig on @config_path
 * the first time (or after a crash left it half-made), then `make prepare`
 * every time, then the stamp. LAB_OK or an error code, said.
 */
static int prepare_in(const struct lab_config *cfg, const char *rtree, const char *dir,
		      const char *config_path, const char *log_path)
{
	char *stamp = xasprintf("%s/" PREP_STAMP, dir);
	char *dotconfig = xasprintf("%s/.config", dir);
	char *jobs = xasprintf("-j%ld", cfg->jobs ? cfg->jobs : sysconf(_SC_NPROCESSORS_ONLN));
	char *text = NULL;
	struct strbuf err = STRBUF_INIT;
	int r = LAB_ELAB;

	if (access(stamp, R_OK)) {
		/* New, or left half-made by a crash: start over. */
		info("kernel_build: preparing a build folder natively (olddefconfig, prepare) in %s", dir);
		rm_rf(dir);
		if (mkdir_p(dir, 0755) || copy_file(config_path, dotconfig, 0644) ||
		    sandbox_adopt(&cfg->sandbox, dir, &err) < 0) {
			lab_error("kernel_build: cannot start %s: %s", dir,
				  err.len ? sb_str(&err) : strerror(errno));
			goto out;
		}
		if (run_make(cfg, rtree, dir, log_path, (const char *const[]){ "olddefconfig", NULL })) {
			r = failed("make olddefconfig (on the host)", log_path);
			goto out;
		}
	}
	/* Always: a no-op in seconds when the tree has not changed since. */
	if (sandbox_adopt(&cfg->sandbox, dir, &err) < 0) {
		lab_error("kernel_build: %s", sb_str(&err));
		goto out;
	}
	if (run_make(cfg, rtree, dir, log_path, (const char *const[]){ jobs, "prepare", NULL })) {
		r = failed("make prepare (on the host)", log_path);
		goto out;
	}
	if (record_make_env(cfg, rtree, dir, log_path))
		goto out;
	text = xasprintf("srctree %s\nobjtree %s\n", rtree, dir);
	if (write_file_atomic(stamp, text, strlen(text))) {
		lab_error("kernel_build: cannot write %s: %s", stamp, strerror(errno));
		goto out;
	}
	r = LAB_OK;
out:
	sb_release(&err);
	free(text);
	free(stamp);
	free(dotconfig);
	free(jobs);
	return r;
}

int kbuild_prepare_dir(const struct lab_config *cfg, const char *tree, const char *config_path,
		       const char *log_path, char **dir_out)
{
	char rtree[PATH_MAX], key[SHA256_HEX_LEN + 1];
	struct strbuf config = STRBUF_INIT;
	char *dir = NULL;
	int lock_fd = -1, r = LAB_ELAB;
	double t0 = now_monotonic();

	*dir_out = NULL;
	if (!realpath(tree, rtree))
		return lab_error("kernel_build: the work tree %s: %s", tree, strerror(errno));
	/* The guest's chroot spec separates shares with ',' and tag from path with ':'. */
	if (strpbrk(rtree, ",:"))
		return lab_error("kernel_build: the work tree path %s contains ',' or ':', which the"
				 " guest's share list cannot carry; move the kernel cache", rtree);
	if (read_file(config_path, &config, 1 << 24) < 0) {
		lab_error("kernel_build: cannot read %s: %s", config_path, strerror(errno));
		goto out;
	}
	if (prep_key(cfg, rtree, sb_str(&config), key)) {
		lab_error("kernel_build: cannot identify %s (git rev-parse HEAD) or gcc", rtree);
		goto out;
	}
	r = kbuild_lock(cfg->cache_dir, &lock_fd);
	if (r)
		goto out;
	r = LAB_ELAB;
	dir = prepared_folder(cfg, key);
	if (!dir)
		goto out;
	r = prepare_in(cfg, rtree, dir, config_path, log_path);
	if (r)
		goto out;
	debug("kernel_build: prepared folder %s ready in %.1f s", dir, now_monotonic() - t0);
	*dir_out = dir;
	dir = NULL;
out:
	if (lock_fd >= 0)
		close(lock_fd);
	sb_release(&config);
	free(dir);
	return r;
}
