/* SPDX-License-Identifier: GPL-2.0 */
/*
 * session.json, typed: its one definition. What session_new() writes
 * before the first run (the host, the kernels, the guest, the workloads,
 * the design and statistics settings, the plan, the hosts, the note and
 * the claim), and what a report carries of it. A table per object
 * (session_doc_fields[] and the rows it points to, session_doc.c: a row
 * per member, its JSON key, kind, offset, required or not) drives the
 * encoder, the decoder and its type checks, like run_record_fields[]
 * (run_record.h) for a run and config.c's ini_key for lab.conf; the
 * arrays of objects, kernels, workloads and hosts (and their series,
 * metrics and shares), are SK_ARRAY rows with tables of their own; what
 * is free-form or has a codec of its own (a workload's params, its lists
 * of strings, the plan, the guest's nodes, ...) is a row of kind SK_JSON,
 * kept as it is. The same codec
 * drives other records' tables (sdoc_fields_*() below): a result's,
 * result_record_fields[] (report_result.h), with the kinds from SK_LONG
 * to SK_CODEC and when(), and bisect.json's (bisect_doc.h), with SK_ARRAY.
 * tests/unit/test_session_doc_table.c holds reports/schema/ and
 * reports/SCHEMA.md to the table, and re-encodes real session.json files
 * byte for byte.
 *
 * A new member is a struct line below and a row in session_doc.c (then
 * the schema and SCHEMA.md, which the test holds to the row).
 *
 * Not thread-safe on one document; documents are plain values. Whose
 * strings: decoded by session_doc_decode(), the strings and SK_JSON
 * members point into the JSON they came from and live as long as the
 * caller keeps it (a report's tree); read by session_doc_load_file() (a
 * resumed session) they point into the file's tree, which the document
 * keeps; copied by session_doc_copy() (a new session, whose writers'
 * strings and JSON are temporaries) they are copies the document keeps.
 * Either way session_doc_release() frees what the document keeps, and
 * the SK_ARRAY members it allocated. Encoded, nothing of the struct is
 * kept (SK_JSON members are referenced, not stolen).
 */
#ifndef LAB_SESSION_DOC_H
#define LAB_SESSION_DOC_H

#include <jansson.h>
#include <limits.h>
#include <stddef.h>

#include "strbuf.h"
#include "util.h"

/*
 * An SK_INT that is absent (not written; absent or null when read). The
 * one value it takes from the integers: a seed of 2^63 (--seed
 * 9223372036854775808, written as its int64, -2^63) would read as none.
 */
#define SDOC_NONE LLONG_MIN

struct sdoc_generator {
	const char *name, *version;
};

struct sdoc_session {
	const char *id;
	const char *created;		/* ISO 8601 UTC */
	const char *mode;		/* ab, aa, one (compare: a comparison of sessions) */
	const char *command;		/* how to run it again */
	const char *lab_conf_sha256;	/* NULL: written as null (no lab.conf read) */
	/* Written into the report when the session ends, never into session.json. */
	const char *finished;
	int complete;			/* -1: absent; 0: an interrupted session's partial report */
};

struct sdoc_host {
	const char *hostname, *cpu;
	long long cpus;
	double memory_mib;		/* written as an integer */
	const char *kernel, *qemu_version, *libvirt_version, *libvirt_uri;
	const char *accel;		/* kvm or tcg */
	const char *accel_reason;
};

struct sdoc_guest {
	const char *name;		/* the [guest] of lab.conf */
	const char *file;		/* its topology file; NULL: not recorded */
	long long vcpus;
	double memory_mib;		/* written as an integer */
	const json_t *nodes;		/* [{id, cpus, memory_mib}] */
	const char *accel;		/* kvm or tcg */
	long long icount_shift;		/* SDOC_NONE: not in force */
};

/* design.sequential: run --until decided's plan of looks. */
struct sdoc_sequential {
	int present;			/* an object (SK_OBJECT of an optional object) */
	const char *until, *method;
	double alpha;
	long long min_runs, max_runs, step;
	double rho;
	double budget_s;		/* NaN: null, no budget */
	const json_t *placement;	/* a bisection's probe; NULL: none */
};

struct sdoc_design {
	const char *baseline;
	const char *patched;		/* NULL: null, a one-kernel session */
	long long runs_per_kernel, warmups;
	const char *order;		/* "ABBA BAAB ..." */
	long long seed, blocks;
	const char *attribute;		/* --attribute as started (off, changed, all); NULL: lab.conf's */
	int profile;			/* -1: absent; 1: mglrulab profile */
	const char *coherence;		/* --coherence, likewise */
	long long slots;		/* guests at once; SDOC_NONE: before slots (one) */
	const json_t *alone;		/* workloads that took the host alone; NULL: none */
	/*
	 * [run] partners in force, config_partners_name()'s: balanced or
	 * free, nothing else (the decoder checks it); NULL: not written
	 * (before it), sessions that ran free.
	 */
	const char *partners;
	struct sdoc_sequential sequential;
};

/* NaN or SDOC_NONE: absent (the analysis' defaults; reports/SCHEMA.md). */
struct sdoc_statistics {
	double alpha, confidence;
	long long resamples, seed;
	double threshold, max_failed_fraction;
	/* written by the analysis into the report, never into session.json */
	long long counter_resamples;
	double power;
	long long min_runs, mw_exact_max, wilcoxon_exact_max;
	/* the methods, named; where the noise band came from */
	const char *bootstrap, *median_ci, *test, *threshold_source;
	const char *multiple_comparisons, *outliers;
};

/*
 * The elements of session.json's arrays of objects, each described by a
 * table of its own in session_doc.c (an SK_ARRAY row, struct sdoc_array).
 */

/* kernels[].series[]: one patch of the series, in order. */
struct sdoc_patch {
	const char *subject, *hash, *author;
	const char *message_id;		/* "<...>" as in the mbox; NULL: not known */
};

/* kernels[].series_files[]: a series file as built (NULL: null, not known). */
struct sdoc_series_file {
	const char *file, *sha256;
};

/* kernels[].series_author: the series' From, salvaged. */
struct sdoc_series_author {
	int present;
	const char *name;		/* NULL: null (an address alone) */
	const char *address;
};

/* kernels[].cover: the series' cover letter. */
struct sdoc_cover {
	int present;
	const char *subject, *message_id;
};

/* workloads[].metrics[]: a metric declared before the first run. */
struct sdoc_metric {
	const char *name, *unit;
	const char *better;		/* higher or lower */
	int primary;			/* -1: absent; 1: one of the primaries */
	double threshold;		/* NaN: the workload's band, else the session's */
	const char *help;
};

/* workloads[].shares[]: a host folder the guest is given over 9p. */
struct sdoc_share {
	const char *tag, *host_dir;
};

/* hosts[]: a host the session runs on, as its [host] was (session_host_rec.h). */
struct sdoc_host_entry {
	const char *name, *uri;
	long long slots;
	const char *cpus;		/* NULL: null, every CPU */
	const char *pool, *pool_dir;	/* NULL: absent, the defaults (before pools) */
	const char *accel;		/* kvm or tcg; NULL: null, not resolved */
	const char *accel_reason;	/* NULL: null */
};

/*
 * An SK_ARRAY (or SK_MAP) member: @n structs of the row's .elem_size at
 * @v, each described by the row's .sub. Decoding allocates @v (xcalloc: free it
 * with sdoc_fields_release()); a struct that encoder fills may point @v
 * at its own array, which the encoder only reads.
 */
struct sdoc_array {
	void *v;
	size_t n;
	int present;		/* 0: absent; 1: an array; -1: null (.nullable rows only) */
};

/* kernels[]: a kernel of the session, as built (or found) in the cache. */
struct sdoc_kernel {
	const char *name, *role;	/* role: baseline or patched */
	const char *source;
	const char *ref;		/* NULL: null */
	struct sdoc_array series;	/* struct sdoc_patch */
	const char *config_hash;	/* NULL: null (the entry's meta.json unreadable) */
	const char *cache_key;
	const char *bzimage;		/* "bzImage": <cache>/entries/<cache_key>/bzImage */
	const char *config_name;	/* the [kernel] it was built from */
	/* the series files as built, in order: their digests (and paths, the sender's) */
	struct sdoc_array series_files;	/* struct sdoc_series_file */
	/* what the source is for anyone: "tar:SHA256", "git:COMMIT", "dir:SHA256" */
	const char *source_id;
	/* the To and Cc the series was posted with, as in its mail */
	const char *posted_to;
	/* salvaged when recorded; a report's is anyone's: check it again before use */
	struct sdoc_series_author series_author;
	struct sdoc_cover cover;	/* [PATCH 0/N] */
	const char *version;		/* the release the image names */
};

/*
 * workloads[]: a workload as the session runs it; the report's view's
 * workloads[] too (struct report_view), read by sdoc_workload_fields[]
 * with a report's primary, args, coherence_args and shares left unread.
 */
struct sdoc_workload {
	const char *name;		/* the [workload NAME] */
	const char *type;		/* its program, workload_find()'s */
	const json_t *params;		/* {NAME: "value"}, free-form: the type's own */
	struct sdoc_array metrics;	/* struct sdoc_metric */
	const json_t *primary;		/* strings: names or %d patterns */
	const json_t *args;		/* strings: "--name=value", as the program gets them */
	const json_t *coherence_args;	/* likewise, of its coherence runs; NULL: args */
	double threshold;		/* NaN: the session's band */
	struct sdoc_array shares;	/* struct sdoc_share */
	long long runs;			/* SDOC_NONE: design.runs_per_kernel */
};

/* The elements of @w's metrics[] (@w->metrics.n of them). */
static inline const struct sdoc_metric *sdoc_metric_at(const struct sdoc_workload *w, size_t i)
{
	return &((const struct sdoc_metric *)w->metrics.v)[i];
}

/* The elements of @k's arrays, typed (@k->series.n and @k->series_files.n of them). */
static inline const struct sdoc_patch *sdoc_patch_at(const struct sdoc_kernel *k, size_t i)
{
	return &((const struct sdoc_patch *)k->series.v)[i];
}

static inline const struct sdoc_series_file *sdoc_series_file_at(const struct sdoc_kernel *k,
								  size_t i)
{
	return &((const struct sdoc_series_file *)k->series_files.v)[i];
}

struct session_doc {
	const char *schema;
	struct sdoc_generator generator;
	struct sdoc_session session;
	struct sdoc_host host;
	struct sdoc_array kernels;	/* struct sdoc_kernel; a new session's: session_kernels_rows() */
	struct sdoc_guest guest;
	struct sdoc_array workloads;	/* struct sdoc_workload */
	struct sdoc_design design;
	struct sdoc_statistics statistics;
	/*
	 * NULL: none (a report of no session). JSON, not rows: a run record
	 * starts as a copy of its element (plan_entries_decode(), lab/session),
	 * and the report's view counts it.
	 */
	const json_t *plan;
	/* struct sdoc_host_entry (session_host_from_row() makes each a [host]); absent: before hosts */
	struct sdoc_array hosts;
	const char *note;		/* [run] note */
	const json_t *claim;		/* [claim] */
	/*
	 * Not members of the file: what the document keeps, freed by
	 * session_doc_release(). @owned: the tree session_doc_load_file()
	 * read; @strings and @json (an array, NULL until the first): the
	 * copies session_doc_copy() made and what the writers kept
	 * (session_doc_keep()). Empty when decoded from a tree the caller
	 * keeps.
	 */
	json_t *owned;
	struct strvec strings;
	json_t *json;
};

/* The elements of the arrays, typed (@d's arrays index them: d->kernels.n of them). */
static inline const struct sdoc_kernel *sdoc_kernel_at(const struct session_doc *d, size_t i)
{
	return &((const struct sdoc_kernel *)d->kernels.v)[i];
}

static inline const struct sdoc_workload *sdoc_workload_at(const struct session_doc *d, size_t i)
{
	return &((const struct sdoc_workload *)d->workloads.v)[i];
}

static inline const struct sdoc_host_entry *sdoc_host_at(const struct session_doc *d, size_t i)
{
	return &((const struct sdoc_host_entry *)d->hosts.v)[i];
}

/* Every member absent, nothing kept (the encoder then writes only the required objects). */
void session_doc_init(struct session_doc *d);
/*
 * Free the arrays session_doc_decode(), session_doc_member_decode() or
 * session_doc_copy() allocated in @d and what @d keeps (the tree
 * session_doc_load_file() read, the copies session_doc_copy() made), and
 * leave them absent and empty; the rest is the JSON's.
 */
void session_doc_release(struct session_doc *d);

/*
 * The session.json at @path read and decoded into @d (initialised here),
 * which keeps the tree its strings point into: the session's disk
 * boundary on --resume. 0, or -1 with "PATH: why" in @err (jansson's
 * message, or session_doc_decode()'s by the member's path) and @d
 * absent, keeping nothing.
 */
LAB_MUST_CHECK
int session_doc_load_file(const char *path, struct session_doc *d, struct strbuf *err);

/*
 * For a writer that fills @d's rows from its own temporaries: a copy of
 * @s that @d keeps until session_doc_release() (NULL: NULL), as
 * session.json holds it (invalid UTF-8 replaced); @j (its reference
 * taken; NULL: NULL) kept likewise. Each returns what @d keeps.
 */
const char *session_doc_keep(struct session_doc *d, const char *s);
const json_t *session_doc_keep_json(struct session_doc *d, json_t *j);

/*
 * @dst (its old contents not read, nor freed) a copy of @src that owns
 * everything it points to: its arrays, every string (as session.json
 * holds it: invalid UTF-8 replaced, as the encoder writes it, so the copy
 * reads as the file read back would) and every SK_JSON member (a deep
 * copy). @src is left as it is, and may go once this returns: a new
 * session's document, filled from the writers' temporaries, made the
 * session's. session_doc_fields[] has no SK_CODEC row, which this could
 * not copy.
 */
void session_doc_copy(struct session_doc *dst, const struct session_doc *src);

enum sdoc_kind {
	SK_STRING,		/* const char *; NULL: absent */
	SK_STRING_OR_NULL,	/* const char *; NULL: null (absent reads as null; always written) */
	SK_INT,			/* long long, an integer; SDOC_NONE: absent */
	SK_INT_NUMBER,		/* double, written as an integer, read as any number; NaN: absent */
	SK_NUMBER,		/* double, written as a real; NaN: absent */
	SK_NUMBER_OR_NULL,	/* double; NaN (or infinite): null (always written) */
	SK_BOOL,		/* int; -1: absent */
	SK_OBJECT,		/* a struct at .offset, its members in .sub */
	SK_JSON,		/* const json_t * of .json_type, a member with its own codec; NULL: absent */
	/*
	 * The kinds of a record whose "none" is zero and that is always
	 * written (a result: reports/SCHEMA.md's "null where not known"):
	 * absent or null reads as that none, and the messages say "or null".
	 */
	SK_LONG,		/* long, an integer; always written; absent: 0 */
	SK_COUNT,		/* likewise, any number read: one no count holds is 0 (none) */
	SK_FLAG,		/* int, true or false; always written; absent: 0 */
	SK_TEXT,		/* const char *; always written, NULL as .if_null ("" unless set) */
	/*
	 * A member of .json_type with a codec of its own into C (an array of
	 * structs): .encode(base + offset), and .decode(j, base + offset, why)
	 * called whether the member is there or not (j NULL: absent or null),
	 * so that its none is the codec's; what is wrong goes in why ("expected
	 * objects with a host name, got an object"), prefixed with the path.
	 */
	SK_CODEC,
	SK_ARRAY,		/* struct sdoc_array of .sub's objects, .elem_size bytes each */
	/*
	 * An object whose members are all .sub's objects, each named by its
	 * key (own_states.KERNEL): a struct sdoc_array of them in the
	 * object's order, .elem_size bytes each, whose first member is a
	 * const char * that is the key (decoded: pointing into the JSON;
	 * encoded: the member's name, "" for NULL). .sub has no row for it.
	 */
	SK_MAP,
};

enum sdoc_need {
	SN_OPTIONAL,		/* absent, or null where the kind has no null: none */
	SN_REQUIRED,
};

struct sdoc_field {
	const char *key;
	enum sdoc_kind kind;
	size_t offset;		/* in struct session_doc, or in .sub's struct */
	enum sdoc_need need;
	const struct sdoc_field *sub;	/* SK_OBJECT: its members, ending in { NULL } */
	/* SK_OBJECT, optional: the struct's first member is int present */
	int has_present;
	const char *json_type;	/* SK_JSON: "object" or "array" */
	/*
	 * SK_STRING, optional: the only values it may take, ending in NULL;
	 * session_doc_decode() refuses another as it refuses the wrong type
	 * ("expected balanced or free, got a string"), so that the session
	 * may parse it unchecked.
	 */
	const char *const *choices;
	/* SK_OBJECT with has_present: written null, not left out, when not present */
	int or_null;
	/* SK_TEXT: what NULL is written as; NULL: "" */
	const char *if_null;
	/*
	 * Written only when when(the row's struct) holds (a counter's members
	 * against a metric's); NULL: always. Read whenever it is there.
	 */
	int (*when)(const void *base);
	json_t *(*encode)(const void *p);			/* SK_CODEC */
	int (*decode)(const json_t *j, void *p, struct strbuf *why);	/* SK_CODEC */
	size_t elem_size;	/* SK_ARRAY, SK_MAP: sizeof its elements' struct */
	int nullable;		/* SK_ARRAY: null is a value of its own, kept (present -1) */
	/*
	 * SK_LONG: a whole number only (5 or 5.0, not 5.5), for a member that
	 * is an integer by its schema (the view's settings and counts), not a
	 * count any writer may give as a real.
	 */
	int whole;
	/*
	 * Not read from a report (sdoc_fields_decode_report(),
	 * session_doc_check()): left at its none, whatever the report holds
	 * there. For a member report_validate() never checked that the view
	 * does not show.
	 */
	int report_unread;
};

/* The top level, in the order session_new() writes it, ending in { NULL }. */
extern const struct sdoc_field session_doc_fields[];

/*
 * kernels[]'s element (struct sdoc_kernel): session.json's, and the
 * report's, a copy of it, which the report's view decodes through it.
 */
extern const struct sdoc_field sdoc_kernel_fields[];
/* host's (struct sdoc_host): session.json's and the report's, likewise. */
extern const struct sdoc_field sdoc_host_fields[];
/* guest's (struct sdoc_guest): likewise; the view types its nodes with a row of its own. */
extern const struct sdoc_field sdoc_guest_fields[];
/*
 * generator's, session's, design's (with design.sequential's) and
 * statistics' (struct sdoc_generator, sdoc_session, sdoc_design,
 * sdoc_sequential, sdoc_statistics): likewise, the view reading them
 * through sdoc_fields_decode_report().
 */
extern const struct sdoc_field sdoc_generator_fields[];
extern const struct sdoc_field sdoc_session_fields[];
extern const struct sdoc_field sdoc_design_fields[];
extern const struct sdoc_field sdoc_sequential_fields[];
extern const struct sdoc_field sdoc_statistics_fields[];
/*
 * A workload's (struct sdoc_workload, with its metrics): likewise, a
 * report's read without the rows marked .report_unread.
 */
extern const struct sdoc_field sdoc_workload_fields[];

/*
 * session.json of @d: every member of the table that is not absent, in
 * the table's order (the order session.json has always had).
 */
json_t *session_doc_encode(const struct session_doc *d);

/* The top-level member @key of @d encoded alone; NULL when absent or no such row. */
json_t *session_doc_member_encode(const struct session_doc *d, const char *key);

/*
 * Decode @j (a session.json, or the session's members of a report) into
 * @d (initialised here: nothing kept; its strings @j's), every member's type checked in the table's order. 0, or -1 with the
 * first member that is not what the table says, by its JSON path, in @err
 * ("design.slots: expected an integer, got a string"; "guest: missing
 * (expected an object)"). Unknown members are ignored. A row's choices
 * are checked here ("design.partners: expected balanced or free, got a
 * string"), not by session_doc_check().
 */
LAB_MUST_CHECK
int session_doc_decode(const json_t *j, struct session_doc *d, struct strbuf *err);

/*
 * The member @key of the object @j into its row of @d, alone, checked as
 * session_doc_decode() checks it (the others of @d are left as they are):
 * how a test that has a member as JSON puts it into a document (the
 * session's writers fill their rows directly). 0, or -1 with the error in @err
 * and the member absent; -1 for a key of no row.
 */
LAB_MUST_CHECK
int session_doc_member_decode(const json_t *j, const char *key, struct session_doc *d,
			      struct strbuf *err);

/*
 * The member @key of the object @j alone, checked as session_doc_decode()
 * checks it but for the rows' choices and the rows marked .report_unread
 * (report_validate() checks a report's members one by one, in its own
 * order; a report written by another lab may say a partners the renderers
 * do not show). 0, or -1 with the error
 * in @err; -1 for a key of no row.
 */
LAB_MUST_CHECK
int session_doc_check(const json_t *j, const char *key, struct strbuf *err);

/*
 * The same codec for another document's table (@fields ending in { NULL },
 * offsets into @base): every member absent; the members that are not, in
 * the table's order; @j decoded with every row's type and choices checked,
 * the first error by its JSON path in @err (0 or -1). What a record of its
 * own (bisect.json, a result) builds its one definition on.
 */
void sdoc_fields_init(const struct sdoc_field *fields, void *base);
json_t *sdoc_fields_encode(const struct sdoc_field *fields, const void *base);
LAB_MUST_CHECK
int sdoc_fields_decode(const struct sdoc_field *fields, const json_t *j, void *base,
		       struct strbuf *err);
/*
 * Free what sdoc_fields_decode() allocated in @base (its SK_ARRAY and
 * SK_MAP members, theirs too) and leave them absent; on a failed decode it has
 * done so itself. Nothing else of @base is freed.
 */
void sdoc_fields_release(const struct sdoc_field *fields, void *base);
/*
 * As sdoc_fields_decode(), the rows' choices left unchecked and the rows
 * marked .report_unread not read, as session_doc_check() leaves them: how
 * the report's view reads its copy of session.json's members (a report
 * may say a design.partners this lab never writes; report_validate()
 * accepted it, so the view reads it too).
 */
LAB_MUST_CHECK
int sdoc_fields_decode_report(const struct sdoc_field *fields, const json_t *j, void *base,
			      struct strbuf *err);

/*
 * Where a document that owns its strings keeps them (struct session_doc,
 * struct bisect_doc: their `strings` and `json`). sdoc_keep_string(): a
 * copy of @s in @strings (NULL: NULL), as the file holds it (invalid
 * UTF-8 replaced, so that a string read back on --resume is the same
 * bytes); sdoc_keep_json(): @j (its reference taken; NULL: NULL) appended
 * to the array *@json, made when NULL. Each returns what is kept, which
 * lives until the document frees @strings and *@json.
 */
const char *sdoc_keep_string(struct strvec *strings, const char *s);
const json_t *sdoc_keep_json(json_t **json, json_t *j);

#endif
