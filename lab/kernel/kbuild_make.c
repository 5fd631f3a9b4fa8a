// SPDX-License-Identifier: GPL-2.0
/*
 * configure and make in the sandbox, out of tree in the build folder:
 * the .config from the base and the fragments, verified; make bzImage with
 * its progress line and the step counts kept for the next build's ETA.
 */
#include "kbuild_priv.h"
#include "escape.h"
#include "fsutil.h"
#include "kbuild_mtime.h"
#include "kbuild_estimate.h"
#include "run_command.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * @c (argv, env, output) in the sandbox: the source tree and what it
 * borrows read-only (an out-of-tree build writes nothing there), the build
 * folder, and @extra_rw (ccache's folder) writable. A wall limit that
 * stopped it is a failure of its own (KBUILD_FAIL_TIMEOUT).
 */
static int run_sandboxed(struct build_ctx *b, struct child *c, const char *extra_rw)
{
	struct strbuf err = STRBUF_INIT;
	const struct sandbox_bind extra = { .path = extra_rw, .writable = 1 };
	int timed_out, r;

	r = ksource_build_run(b->sp, b->src.tree, b->build_dir, extra_rw ? &extra : NULL, c,
			      &timed_out, &err);
	if (r < 0 && !kbuild_stopped())
		lab_error("[kernel %s] %s", b->k->name, sb_str(&err));
	if (timed_out) {
		char wall[32];

		format_duration(wall, sizeof(wall), sandbox_wall_s(b->sp));
		b->failure = KBUILD_FAIL_TIMEOUT;
		sb_reset(&b->why);
		sb_addf(&b->why, "the build did not finish within %s (the lab's [lab] "
			"build_timeout) and was stopped", wall);
	}
	sb_release(&err);
	return r;
}

static int make_in(struct build_ctx *b, const char *const *targets, struct child *proto,
		   const char *extra_rw)
{
	struct strvec argv = STRVEC_INIT;
	struct child c = proto ? *proto : (struct child){ 0 };
	int r;

	strvec_pushv(&argv, (const char *const[]){ "make", "-C", b->src.tree, NULL });
	strvec_pushf(&argv, "O=%s", b->build_dir);
	strvec_pushv(&argv, targets);
	c.argv = (const char *const *)argv.v;
	if (!c.log_path)
		c.log_path = b->log;
	r = run_sandboxed(b, &c, extra_rw);
	strvec_clear(&argv);
	return r;
}

/*
 * A step of @kind failed: say so with the log's end (for whoever runs the
 * lab: it is their terminal), and keep what may be said in public, the
 * first error the log names inside the tree (kbuild_public_error()).
 */
static int fail_with_log(struct build_ctx *b, int status, enum kbuild_failure kind,
			 const char *what)
{
	struct strbuf tail = STRBUF_INIT;

	if (kbuild_stopped())
		return kbuild_stopped_error(b);
	if (b->failure != KBUILD_FAIL_TIMEOUT) {
		b->failure = kind;
		sb_reset(&b->why);
		kbuild_public_error(b->log, b->src.tree, b->build_dir, what, &b->why);
	}
	tail_lines(b->log, 20, &tail);
	error_status(status, "[kernel %s] %s; the log is %s, its last lines:\n%s", b->k->name,
		     what, b->log, sb_str(&tail));
	sb_release(&tail);
	return status;
}

/*
 * The lab's config fragments, as read for the cache key, copied into the
 * build folder: the sandbox sees that folder, not the lab's files. 0, or
 * -1 said.
 */
static int fragment_copies(struct build_ctx *b, struct strvec *copies)
{
	char *dir = xasprintf("%s/.mglrulab-fragments", b->build_dir);
	int r = 0;

	rm_rf(dir);
	if (mkdir_p(dir, 0755) || sandbox_give(b->sp, dir))
		r = -1;
	for (size_t i = 0; !r && i < b->fragment_text.n; i++) {
		char *path = xasprintf("%s/%zu-%s", dir, i, path_basename(b->k->fragments.v[i]));

		strvec_push(copies, path);
		r = write_file_atomic(path, b->fragment_text.v[i], strlen(b->fragment_text.v[i]));
		free(path);
	}
	if (r)
		lab_error("[kernel %s] cannot copy the config fragments into %s: %s", b->k->name, dir,
			  strerror(errno));
	free(dir);
	return r;
}

int kbuild_configure(struct build_ctx *b, struct strbuf *config_text)
{
	const struct kernel_cfg *k = b->k;
	char *dotconfig = xasprintf("%s/.config", b->build_dir);
	double t0 = now_monotonic();
	int r = LAB_OK;

	if (k->config[0] == '/') {
		/* a new file of the build user's, never written through what is there */
		unlink(dotconfig);
		if (copy_file(k->config, dotconfig, 0644) || sandbox_give(b->sp, dotconfig)) {
			r = lab_error("cannot copy %s to %s: %s", k->config, dotconfig, strerror(errno));
			goto out;
		}
	} else if (make_in(b, (const char *const[]){ k->config, NULL }, NULL, NULL)) {
		r = fail_with_log(b, LAB_ELAB, KBUILD_FAIL_CONFIG, "make tinyconfig/defconfig failed");
		goto out;
	}
	if (k->fragments.n) {
		struct strvec argv = STRVEC_INIT, copies = STRVEC_INIT;
		char *script = xasprintf("%s/scripts/kconfig/merge_config.sh", b->src.tree);
		int mr = fragment_copies(b, &copies);

		strvec_pushv(&argv, (const char *const[]){ script, "-m", "-O", b->build_dir, dotconfig,
							  NULL });
		strvec_pushv(&argv, (const char *const *)copies.v);
		/* in the build folder: the script makes its temporary files where it runs */
		struct child c = { .argv = (const char *const *)argv.v, .dir = b->build_dir,
				   .log_path = b->log };
		if (!mr)
			mr = run_sandboxed(b, &c, NULL);
		strvec_clear(&argv);
		strvec_clear(&copies);
		free(script);
		if (mr) {
			r = fail_with_log(b, LAB_ELAB, KBUILD_FAIL_CONFIG, "merge_config.sh failed");
			goto out;
		}
	}
	if (make_in(b, (const char *const[]){ "olddefconfig", NULL }, NULL, NULL)) {
		r = fail_with_log(b, LAB_ELAB, KBUILD_FAIL_CONFIG, "make olddefconfig failed");
		goto out;
	}
	if (read_file_beneath(b->build_dir, ".config", config_text, 16 << 20)) {
		r = lab_error("cannot read %s: %s", dotconfig, strerror(errno));
		goto out;
	}
	struct strbuf dropped = STRBUF_INIT;
	int bad = kconfig_verify((const char *const *)b->fragment_text.v, b->fragment_text.n,
				 sb_str(config_text), &dropped);
	if (bad) {
		b->failure = KBUILD_FAIL_CONFIG;
		sb_addf(&b->why, "Kconfig dropped %d option%s the lab's config fragments request "
			"(unmet dependencies?):\n%s", bad, bad == 1 ? "" : "s", sb_str(&dropped));
		r = user_error("[kernel %s] Kconfig dropped %d option%s the fragments request "
			       "(unmet dependencies?):\n%s  merged config: %s", k->name, bad,
			       bad == 1 ? "" : "s", sb_str(&dropped), dotconfig);
	}
	sb_release(&dropped);
out:
	b->t_config = now_monotonic() - t0;
	free(dotconfig);
	return r;
}

static void on_make_line(const char *line, void *data)
{
	struct build_ctx *b = data;

	/* Kbuild's quiet lines: "  CC      mm/vmscan.o", "  LD      vmlinux". */
	if (line[0] != ' ' || line[1] != ' ' || line[2] < 'A' || line[2] > 'Z')
		return;
	b->steps++;
	if (strstr(line, " vmlinux") && str_starts_with(line + 2, "LD"))
		b->phase = "link";
	else if (strstr(line, "bzImage"))
		b->phase = "image";
	double now = now_monotonic();
	if (lab_quiet || now - b->last_tick < (b->tty ? 0.25 : 30))
		return;
	b->last_tick = now;
	char msg[160];
	kbuild_progress_format(msg, sizeof(msg), b->steps, b->est_steps, now - b->t_compile);
	if (b->tty)
		printf("\r[%s] %-8s %s ", b->k->name, b->phase, msg);
	else
		printf("[%s] %-8s %s\n", b->k->name, b->phase, msg);
	fflush(stdout);
}

void kbuild_progress_format(char *buf, size_t len, long steps, long est, double elapsed)
{
	char el[32], eta[32];

	format_duration(el, sizeof(el), elapsed);
	if (est <= 0) {
		snprintf(buf, len, "%ld steps, %s", steps, el);
	} else if (steps < est) {
		/* Before the first step the rate is unknown: say so. */
		if (steps)
			format_duration(eta, sizeof(eta), elapsed / (double)steps * (double)(est - steps));
		snprintf(buf, len, "%ld/~%ld steps, %s, ETA %s", steps, est, el, steps ? eta : "?");
	} else {
		snprintf(buf, len, "%ld/~%ld steps, %s, past the estimate", steps, est, el);
	}
}

/*
 * The step count of the last build of a config, from scratch or on top of
 * an earlier build ("full", "incremental"): <cache>/steps/<config>-<kind>,
 * "STEPS SECONDS". Only an estimate: a lost or garbled file costs the ETA.
 */
static char *steps_file(const char *cache_dir, const char *config_text, int incremental)
{
	char hex[SHA256_HEX_LEN + 1];

	sha256_hex_of(config_text, strlen(config_text), hex);
	return xasprintf("%s/steps/%.16s-%s", cache_dir, hex, incremental ? "incremental" : "full");
}

static long steps_get(const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	long n = 0;

	if (!read_file(path, &sb, 256) && sscanf(sb_str(&sb), "%ld", &n) != 1)
		n = 0;
	sb_release(&sb);
	return n > 0 ? n : 0;
}

static void steps_put(const char *path, long steps, double seconds)
{
	char *dir = path_dirname(path);
	char *text = xasprintf("%ld %.1f\n", steps, seconds);

	if (mkdir_p(dir, 0755) || write_file_atomic(path, text, strlen(text)))
		debug("cannot record the step count in %s: %s", path, strerror(errno));
	free(text);
	free(dir);
}

static long cpu_count(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 ? n : 1;
}

int kbuild_compile(struct build_ctx *b)
{
	long jobs = b->cfg->jobs ? b->cfg->jobs : cpu_count();
	struct strvec targets = STRVEC_INIT, env = STRVEC_INIT;
	int r;

	strvec_pushf(&targets, "-j%ld", jobs);
	/* Fixed build stamps: the same inputs give the same image. */
	strvec_push(&env, "KBUILD_BUILD_TIMESTAMP=Thu Jan  1 00:00:00 UTC 1970");
	strvec_push(&env, "KBUILD_BUILD_USER=mglrulab");
	strvec_push(&env, "KBUILD_BUILD_HOST=mglrulab");
	strvec_push(&env, "KBUILD_BUILD_VERSION=1");
	/*
	 * Off by default: on a cold cache it made kernel objects about 23%
	 * slower here (it preprocesses each file twice), and the work tree's
	 * per-folder timestamps already make rebuilds incremental.
	 */
	int use_ccache = !strcmp(b->cfg->ccache, "yes") && program_in_path("ccache");
	char *ccache_dir = NULL;
	if (!strcmp(b->cfg->ccache, "yes") && !use_ccache)
		warning("[lab] ccache = yes but ccache is not installed: building without it");
	if (use_ccache) {
		const char *env_dir = getenv("CCACHE_DIR");

		ccache_dir = env_dir && *env_dir ? xstrdup(env_dir) :
			     xasprintf("%s/ccache", b->cfg->cache_dir);
		/* the sandbox writes it: the build user's, and in its reach */
		if (mkdir_p(ccache_dir, 0755) || sandbox_adopt(b->sp, ccache_dir, &b->why) < 0) {
			warning("[kernel %s] ccache's folder %s: %s; building without it", b->k->name,
				ccache_dir, b->why.len ? sb_str(&b->why) : strerror(errno));
			sb_reset(&b->why);
			free(ccache_dir);
			ccache_dir = NULL;
			use_ccache = 0;
		} else {
			strvec_push(&targets, "CC=ccache gcc");
			strvec_pushf(&env, "CCACHE_DIR=%s", ccache_dir);
		}
	}
	strvec_push(&targets, "bzImage");
	b->tty = isatty(1);
	b->phase = "compile";
	b->steps = 0;
	b->t_compile = now_monotonic();
	b->last_tick = b->t_compile;
	kbuild_info(b, "compile  make -j%ld bzImage%s", jobs, use_ccache ? " (ccache)" : "");
	struct child c = { .env = (const char *const *)env.v, .log_path = b->log,
			   .on_line = on_make_line, .data = b, .merge_stderr = 1 };
	r = make_in(b, (const char *const *)targets.v, &c, ccache_dir);
	free(ccache_dir);
	if (b->tty && !lab_quiet)
		printf("\r\033[K");
	b->t_compile = now_monotonic() - b->t_compile;
	strvec_clear(&targets);
	strvec_clear(&env);
	if (r) {
		return fail_with_log(b, LAB_ELAB, KBUILD_FAIL_COMPILE, "the kernel build failed");
	}
	if (b->est_file)
		steps_put(b->est_file, b->steps, b->t_compile);
	return LAB_OK;
}

/*
 * Before make: the files git changed since the folder's last build get
 * stamps make sees as new, and the step count for the progress: an
 * incremental build's from what depends on those files
 * (kbuild_estimate_rebuild(): the last build of this config took 31 steps
 * or 1,500, depending on the series); else the step count of the last
 * build like this one (full or incremental, for @config_text); a first
 * full build of the config gets kbuild_estimate_steps()'s.
 */
void kbuild_settle_and_estimate(struct build_ctx *b, const char *config_text)
{
	char *built_at = kbuild_state_read(b->build_dir);
	char *state_file = xasprintf("%s/.mglrulab-state", b->build_dir);
	struct stat state_st;
	/* The state file is written when a build completes (copies keep its stamp). */
	time_t built_time = stat(state_file, &state_st) ? 0 : state_st.st_mtime;
	struct strvec renewed = STRVEC_INIT;
	int stamped;

	free(state_file);
	stamped = kbuild_settle_mtimes(b->sp, b->src.tree, b->prev_head, b->head_commit, built_at,
				       built_time, &renewed);
	debug("settled the stamps of %d files for %s", stamped, b->build_dir);
	b->est_file = steps_file(b->cfg->cache_dir, config_text, built_at != NULL);
	if (stamped >= 0 && renewed.n) {
		char *seeded = xasprintf("%s/" SEEDED_MARK, b->build_dir);

		b->est_steps = kbuild_estimate_rebuild(b->build_dir, b->src.tree,
						       (const char *const *)renewed.v, renewed.n);
		if (b->est_steps && !access(seeded, F_OK))
			b->est_steps += KBUILD_SEEDED_STEPS;
		debug("%zu files changed since %s's last build: ~%ld steps from its dependency lists",
		      renewed.n, b->build_dir, b->est_steps);
		free(seeded);
	}
	strvec_clear(&renewed);
	if (!b->est_steps)
		b->est_steps = steps_get(b->est_file);
	/* A first build of this config: the total from the tree, so a newcomer sees an ETA too. */
	if (!b->est_steps && !built_at) {
		b->est_steps = kbuild_estimate_steps(b->src.tree, config_text, "x86");
		debug("no earlier build of this config: ~%ld steps, estimated from %s's Kbuild files",
		      b->est_steps, b->src.tree);
	}
	free(built_at);
}
