/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the run stage reads of session.json, typed: each workload's job
 * (its type, the arguments its program gets, the host folders it shares
 * with the guest), each kernel's image. (Its scalars, the guest file
 * among them, are struct session_doc's: session_doc.h.) Made once by
 * session_jobs_of() (session_jobs.c) from the document's rows when the
 * session starts or resumes (a resumed one after session_resume_check());
 * the scheduler, one run, the hosts' checks and the kernels' holds read
 * the struct, which owns its strings.
 */
#ifndef LAB_SESSION_JOBS_H
#define LAB_SESSION_JOBS_H

#include <jansson.h>
#include <stddef.h>

#include "config.h"
#include "strbuf.h"
#include "util.h"

struct session_share {
	char *tag, *host_dir;
};

/* One element of "workloads". */
struct session_job {
	char *name, *type;
	struct strvec args;		/* "--param=value", as the program gets them */
	/* of its coherence runs ([workload] coherence_params); empty: args */
	struct strvec coh_args;
	struct session_share *shares;
	size_t nshares;
};

/* One element of "kernels". */
struct session_kernel_image {
	char *name, *bzimage;		/* bzimage: NULL when not recorded */
};

struct session_jobs {
	struct session_job *w;
	size_t nw;
	struct session_kernel_image *k;
	size_t nk;
};

/*
 * The jobs and images of the document @doc (decoded: its members' types
 * are the table's) into @j, copied. What the table does not require and
 * a job needs is an error naming it, -1 with @j released: a workload
 * without a type, arguments that are not strings ("workloads[1].args[0]:
 * expected a string, got null"), no workloads at all. 0 otherwise.
 */
struct session_doc;
LAB_MUST_CHECK
int session_jobs_of(const struct session_doc *doc, struct session_jobs *j, struct strbuf *err);
void session_jobs_release(struct session_jobs *j);

/* The workload named @name; NULL when the session has none. */
const struct session_job *session_job_find(const struct session_jobs *j, const char *name);
/* The image of the kernel named @name; NULL when there is none. */
const char *session_jobs_image(const struct session_jobs *j, const char *name);

#endif
