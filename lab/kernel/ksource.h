/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel sources: identify them cheaply (so a cache hit stays under a
 * second) and turn them into a lab-managed git work tree where series are
 * applied with git am and the baseline is always one checkout away.
 */
#ifndef LAB_KSOURCE_H
#define LAB_KSOURCE_H

#include "util.h"
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
/* Run git with @args in @tree (the lab's identity and environment), output into @out. */
LAB_MUST_CHECK
int ksource_git(const char *tree, const char *const *args, struct strbuf *out);

/*
 * The full commit @rev names when @path is a git source (a repository, as
 * ksource_identify() takes one) that has it, else NULL. @rev comes from
 * lab.conf or is checked by the caller: it must not start with '-'.
 */
char *ksource_git_commit(const char *path, const char *rev);

/* Environment for git commands the lab runs in its own trees. */
extern const char *const lab_git_env[];

#endif
