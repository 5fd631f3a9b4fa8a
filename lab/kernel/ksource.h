/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel sources: identify them cheaply (so a cache hit stays under a
 * second) and turn them into a lab-managed git work tree where series are
 * applied with git am and the baseline is always one checkout away.
 */
#ifndef LAB_KSOURCE_H
#define LAB_KSOURCE_H

#include "util.h"
#include "sandbox.h"
#include "strbuf.h"

enum source_kind { SOURCE_ARCHIVE, SOURCE_GIT, SOURCE_DIR };

struct ksource {
	enum source_kind kind;
	char *path;		/* as configured */
	char *ref;		/* git ref (SOURCE_GIT), else NULL */
	char *id;		/* "tar:<sha256>", "git:<tree>", "dir:<hash>" */
	char *commit;		/* SOURCE_GIT: the commit @ref names */
	char *tree;		/* the lab-managed work tree */
};

/* Identify @path (+@ref). Returns 0 or a lab status with a message in @err. */
LAB_MUST_CHECK
int ksource_identify(const char *cache_dir, const char *path, const char *ref,
		     struct ksource *src, struct strbuf *err);
/*
 * Make sure src->tree exists: a git repository whose tag "mglrulab-base"
 * is the unmodified source. Created once per source (unpack, commit).
 */
LAB_MUST_CHECK
int ksource_prepare_tree(struct ksource *src, struct strbuf *err, double *seconds);
void ksource_release(struct ksource *src);
/*
 * Run git with @args in the work tree @tree, in the sandbox (sandbox.h) as
 * its build user, with the lab's identity and environment (lab_git_env):
 * after a series' patches and build ran there, the tree's .git may hold
 * anything they could write, and git obeys its config and hooks. Its
 * output (and stderr) into @out; run_command()'s status, or -1 with the
 * sandbox's reason in @out. _in: standard input from @stdin_path.
 */
LAB_MUST_CHECK
int ksource_git(const struct sandbox_policy *sp, const char *tree, const char *const *args,
		struct strbuf *out);
LAB_MUST_CHECK
int ksource_git_in(const struct sandbox_policy *sp, const char *tree, const char *const *args,
		   const char *stdin_path, struct strbuf *out);

/*
 * What a sandboxed command in @tree sees of the host beside the tree
 * itself (writable or not): a git source's borrowed object folders, as the
 * lab recorded them in <tree>.objects when it cloned. kb->v[0] is the
 * tree.
 */
struct ksource_binds {
	struct sandbox_bind *v;
	size_t n;
	struct strvec paths;
};
void ksource_binds(const char *tree, int tree_writable, struct ksource_binds *kb);
void ksource_binds_release(struct ksource_binds *kb);

/*
 * A build command @c in the sandbox: the work tree @tree and what it
 * borrows read-only (an out-of-tree build writes nothing there), @out_dir
 * writable, and @extra (or NULL) as it says. Stopped with all it started
 * (new_group, unless_stopped). sandbox_run()'s status, or -1 with @err;
 * *@timed_out when [lab] build_timeout ended it.
 */
LAB_MUST_CHECK
int ksource_build_run(const struct sandbox_policy *sp, const char *tree, const char *out_dir,
		      const struct sandbox_bind *extra, struct child *c, int *timed_out,
		      struct strbuf *err);

/*
 * The full commit @rev names when @path is a git source (a repository, as
 * ksource_identify() takes one) that has it, else NULL. @rev comes from
 * lab.conf or is checked by the caller: it must not start with '-'.
 */
char *ksource_git_commit(const char *path, const char *rev);

/* Environment for git commands the lab runs in its own trees. */
extern const char *const lab_git_env[];

#endif
