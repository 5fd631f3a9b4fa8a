// SPDX-License-Identifier: GPL-2.0
#include "guest_result.h"
#include "guest_protocol.h"
#include "utf8.h"
#include "workload_contract.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void guest_result_init(struct guest_result *r)
{
	memset(r, 0, sizeof(*r));
	r->records = json_array();
	r->stderr_lines = json_array();
	r->errors = json_array();
	r->max_line = GUEST_RECORD_MAX;
	r->exit.elapsed_s = NAN;
}

void guest_result_release(struct guest_result *r)
{
	json_decref(r->hello);
	json_decref(r->topology);
	json_decref(r->job);
	json_decref(r->records);
	json_decref(r->stderr_lines);
	json_decref(r->errors);
	free(r->recs);
	strvec_clear(&r->bad);
	sb_release(&r->pending);
	memset(r, 0, sizeof(*r));
}

static void reject(struct guest_result *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void reject(struct guest_result *r, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	sb_addf(&sb, "line %ld: ", r->line);
	va_start(ap, fmt);
	sb_vaddf(&sb, fmt, ap);
	va_end(ap);
	/* a flood of garbage must not grow memory without bound */
	if (r->bad.n < 1000)
		strvec_push(&r->bad, sb_str(&sb));
	else if (r->bad.n == 1000)
		strvec_push(&r->bad, "(more rejected lines not listed)");
	sb_release(&sb);
}

static int is_int(json_t *j)
{
	return json_is_integer(j);
}

/* Checks of what a workload may print (common/workload_contract.h). */
static const char *check_workload_record(json_t *rec)
{
	const char *type;

	if (!json_is_object(rec))
		return "\"record\" is not an object";
	type = json_string_value(json_object_get(rec, "type"));
	if (!type)
		return "workload record without a \"type\" string";
	if (!strcmp(type, WL_REC_METRIC)) {
		if (!json_is_string(json_object_get(rec, "name")))
			return "metric without a \"name\" string";
		if (!json_is_number(json_object_get(rec, "value")))
			return "metric without a numeric \"value\"";
	} else if (!strcmp(type, WL_REC_SNAPSHOT)) {
		if (!json_is_string(json_object_get(rec, "text")))
			return "snapshot without a \"text\" string";
	} else if (!strcmp(type, WL_REC_SERIES)) {
		if (!json_is_string(json_object_get(rec, "name")))
			return "series without a \"name\" string";
	}
	return NULL;
}

static const struct {
	const char *name;
	enum guest_record_type type;
} record_types[] = {
	{ WL_REC_METRIC, GUEST_RECORD_METRIC },
	{ WL_REC_SERIES, GUEST_RECORD_SERIES },
	{ WL_REC_SNAPSHOT, GUEST_RECORD_SNAPSHOT },
	{ WL_REC_INFO, GUEST_RECORD_INFO },
	{ WL_REC_ERROR, GUEST_RECORD_ERROR },
};

static const char *str_member(const json_t *rec, const char *key)
{
	return json_string_value(json_object_get(rec, key));
}

/* @rec (checked by check_workload_record()) typed, into @out. */
static void decode_workload_record(const json_t *rec, struct guest_record *out)
{
	const char *type = str_member(rec, "type");
	const json_t *v;

	memset(out, 0, sizeof(*out));
	out->json = rec;
	out->type = GUEST_RECORD_OTHER;
	for (size_t i = 0; i < ARRAY_SIZE(record_types); i++)
		if (!strcmp(type, record_types[i].name))
			out->type = record_types[i].type;
	out->name = str_member(rec, "name");
	out->reason = str_member(rec, "reason");
	v = json_object_get(rec, "value");
	out->value = json_is_number(v) ? json_number_value(v) : NAN;
	out->value_is_int = json_is_integer(v);
	out->ivalue = json_integer_value(v);
	v = json_object_get(rec, "values");
	out->values = json_is_array(v) ? v : NULL;
}

static void take(json_t **slot, json_t *obj)
{
	json_decref(*slot);
	*slot = json_incref(obj);
}

/* The JSON object on @line, or NULL with the line rejected. */
static json_t *decode_line(struct guest_result *r, const char *line, size_t len)
{
	json_error_t jerr;
	json_t *obj;
	size_t good;

	good = utf8_valid_len(line, len);
	if (good < len) {
		reject(r, "invalid UTF-8 at byte %zu", good);
		return NULL;
	}
	if (memchr(line, '\0', len)) {
		reject(r, "NUL byte in line");
		return NULL;
	}
	obj = json_loadb(line, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!obj) {
		reject(r, "invalid JSON at column %d: %s", jerr.column, jerr.text);
		return NULL;
	}
	if (!json_is_object(obj)) {
		reject(r, "not a JSON object");
		json_decref(obj);
		return NULL;
	}
	return obj;
}

/*
 * The envelope every record shares: before "done", the protocol version,
 * a type, and the next sequence number (a gap is reported as lost records,
 * and the count goes on after it). The type in *@type, or -1 with the
 * record rejected.
 */
static int check_envelope(struct guest_result *r, json_t *obj, const char **type)
{
	json_t *v = json_object_get(obj, "v"), *seq = json_object_get(obj, "seq");

	if (r->done) {
		reject(r, "record after \"done\"");
		return -1;
	}
	*type = json_string_value(json_object_get(obj, "type"));
	if (!is_int(v) || json_integer_value(v) != GUEST_PROTOCOL_VERSION) {
		reject(r, "protocol version is not %d", GUEST_PROTOCOL_VERSION);
		return -1;
	}
	if (!*type) {
		reject(r, "no \"type\" string");
		return -1;
	}
	/* checked before any arithmetic on it: seq + 1 must not overflow */
	if (is_int(seq) && (json_integer_value(seq) < 0 || json_integer_value(seq) > GUEST_SEQ_MAX)) {
		reject(r, "sequence number %lld out of range (0 to %lld)",
		       (long long)json_integer_value(seq), (long long)GUEST_SEQ_MAX);
		return -1;
	}
	if (!is_int(seq) || json_integer_value(seq) < r->next_seq) {
		reject(r, "missing or repeated sequence number (expected %ld)", r->next_seq);
		return -1;
	}
	if (json_integer_value(seq) > r->next_seq)
		reject(r, "records %ld to %lld were lost", r->next_seq,
		       (long long)json_integer_value(seq) - 1);
	r->next_seq = (long)json_integer_value(seq) + 1;
	return 0;
}

/* A workload's record, checked, into r->records. */
static void store_workload(struct guest_result *r, json_t *obj)
{
	json_t *rec = json_object_get(obj, "record");
	const char *why = check_workload_record(rec);

	if (why) {
		reject(r, "%s", why);
		return;
	}
	/* the runner stops at the cap: more did not come from our runner */
	if (json_array_size(r->records) >= GUEST_WORKLOAD_RECORDS_MAX) {
		reject(r, "more workload records than GUEST_WORKLOAD_RECORDS_MAX (%d)",
		       GUEST_WORKLOAD_RECORDS_MAX);
		return;
	}
	json_array_append(r->records, rec);
	ALLOC_GROW(r->recs, r->nrecs + 1, r->recs_alloc);
	decode_workload_record(rec, &r->recs[r->nrecs++]);
	r->valid++;
}

/*
 * Append the string @key of @obj to @list: NULL, or what is wrong (@why)
 * when it is not a string.
 */
static const char *append_string(json_t *list, json_t *obj, const char *key,
				 const char *why)
{
	json_t *t = json_object_get(obj, key);

	if (!json_is_string(t))
		return why;
	json_array_append(list, t);
	return NULL;
}

/* The "done" record: NULL, or what is wrong with it. */
static const char *store_done(struct guest_result *r, json_t *obj)
{
	json_t *n = json_object_get(obj, "records");

	if (!is_int(n) || json_integer_value(n) != json_integer_value(json_object_get(obj, "seq")))
		return "\"done\" does not count the records before it";
	r->done = 1;
	r->done_t = json_number_value(json_object_get(obj, "t"));
	return NULL;
}

/* The "exit" record (its status checked): a later one replaces it. */
static void store_exit(struct guest_result *r, const json_t *obj)
{
	const json_t *e = json_object_get(obj, "elapsed_s");

	r->exit.seen = 1;
	r->exit.status = json_integer_value(json_object_get(obj, "status"));
	r->exit.elapsed_s = json_is_number(e) ? json_number_value(e) : NAN;
}

/*
 * The "topology" record: a later one replaces it. Its nodes are read by
 * guest_result_topology(); its strings here, once, for whoever prints them.
 */
static void store_topology(struct guest_result *r, json_t *obj)
{
	take(&r->topology, obj);
	r->kernel_release = json_string_value(json_object_get(obj, "kernel_release"));
	r->lru_gen = json_string_value(json_object_get(obj, "lru_gen"));
}

/* Keep a record whose envelope is good where its type belongs. */
static void store_record(struct guest_result *r, json_t *obj, const char *type)
{
	const char *why = NULL;

	if (!strcmp(type, GUEST_REC_HELLO)) {
		take(&r->hello, obj);
	} else if (!strcmp(type, GUEST_REC_TOPOLOGY)) {
		if (!json_is_array(json_object_get(obj, "nodes")))
			why = "topology without a \"nodes\" array";
		else
			store_topology(r, obj);
	} else if (!strcmp(type, GUEST_REC_JOB)) {
		take(&r->job, obj);
	} else if (!strcmp(type, GUEST_REC_WORKLOAD)) {
		store_workload(r, obj);
		return;
	} else if (!strcmp(type, GUEST_REC_STDERR)) {
		why = append_string(r->stderr_lines, obj, "text",
				    "stderr record without a \"text\" string");
	} else if (!strcmp(type, GUEST_REC_ERROR)) {
		why = append_string(r->errors, obj, "message",
				    "error record without a \"message\" string");
	} else if (!strcmp(type, GUEST_REC_EXIT)) {
		if (!is_int(json_object_get(obj, "status")))
			why = "exit record without an integer \"status\"";
		else
			store_exit(r, obj);
	} else if (!strcmp(type, GUEST_REC_DONE)) {
		why = store_done(r, obj);
	} else {
		reject(r, "unknown record type");
		return;
	}
	if (why)
		reject(r, "%s", why);
	else
		r->valid++;
}

static void parse_line(struct guest_result *r, const char *line, size_t len)
{
	const char *type;
	json_t *obj;

	if (!len)
		return;	/* blank lines carry nothing; not worth an error */
	obj = decode_line(r, line, len);
	if (!obj)
		return;
	if (!check_envelope(r, obj, &type))
		store_record(r, obj, type);
	json_decref(obj);
}

void guest_result_feed(struct guest_result *r, const char *data, size_t len)
{
	while (len) {
		const char *nl = memchr(data, '\n', len);
		size_t chunk = nl ? (size_t)(nl - data) : len;

		if (!r->skipping) {
			if (r->pending.len + chunk > r->max_line) {
				r->line++;
				reject(r, "longer than %zu bytes: rejected", r->max_line);
				sb_reset(&r->pending);
				r->skipping = 1;
			} else {
				sb_add(&r->pending, data, chunk);
			}
		}
		if (!nl)
			return;
		if (r->skipping) {
			r->skipping = 0;
		} else {
			r->line++;
			parse_line(r, r->pending.buf ? r->pending.buf : "", r->pending.len);
			sb_reset(&r->pending);
		}
		data = nl + 1;
		len -= chunk + 1;
	}
}

void guest_result_finish(struct guest_result *r)
{
	if (r->pending.len) {
		r->line++;
		reject(r, "truncated: %zu bytes without a newline at the end (the guest stopped mid-record)",
		       r->pending.len);
	}
	sb_reset(&r->pending);
	r->skipping = 0;
}

int guest_result_parse_file(const char *path, struct guest_result *r)
{
	char buf[65536];
	long long total = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;
			close(fd);
			errno = e;
			return -1;
		}
		if (!n)
			break;
		total += n;
		if (total > GUEST_RESULT_FILE_MAX) {
			r->line++;
			reject(r, "result file larger than %lld bytes: the rest is ignored",
			       (long long)GUEST_RESULT_FILE_MAX);
			break;
		}
		guest_result_feed(r, buf, (size_t)n);
	}
	close(fd);
	guest_result_finish(r);
	return 0;
}

double guest_result_uptime(const struct guest_result *r)
{
	json_t *u = r->hello ? json_object_get(r->hello, "uptime_s") : NULL;

	return json_is_number(u) ? json_number_value(u) : -1;
}

int guest_result_topology(const struct guest_result *r, struct guest_topology *t,
			  struct strbuf *err)
{
	json_t *nodes, *n;
	size_t i;

	memset(t, 0, sizeof(*t));
	if (!r->topology) {
		sb_adds(err, "the guest did not report its topology");
		return -1;
	}
	nodes = json_object_get(r->topology, "nodes");
	t->vcpus = (int)json_integer_value(json_object_get(r->topology, "vcpus_online"));
	if (json_array_size(nodes) > GUEST_MAX_NODES || !json_array_size(nodes)) {
		sb_addf(err, "the guest reported %zu NUMA nodes (expected 1 to %d)",
			json_array_size(nodes), GUEST_MAX_NODES);
		return -1;
	}
	t->has_distances = 1;
	json_array_foreach(nodes, i, n) {
		json_t *id = json_object_get(n, "id"), *d = json_object_get(n, "distances"), *dv;
		const char *cpus = json_string_value(json_object_get(n, "cpus"));
		json_int_t kib = json_integer_value(json_object_get(n, "memory_kib"));
		size_t j;

		/* nodes must be 0..N-1 in order, as the declared topology's are */
		if (!is_int(id) || json_integer_value(id) != (json_int_t)i) {
			sb_addf(err, "the guest's node list is not 0..%zu in order (node %zu has id %lld)",
				json_array_size(nodes) - 1, i, (long long)json_integer_value(id));
			return -1;
		}
		if (!cpus || cpuset_parse(cpus, GUEST_MAX_VCPUS, &t->nodes[i].cpus)) {
			sb_addf(err, "node %zu: malformed cpus", i);
			return -1;
		}
		t->nodes[i].memory_mib = kib > 0 ? (uint64_t)kib / 1024 : 0;
		if (json_array_size(d) != json_array_size(nodes))
			t->has_distances = 0;
		json_array_foreach(d, j, dv)
			if (j < GUEST_MAX_NODES)
				t->nodes[i].distances[j] = (int)json_integer_value(dv);
		t->memory_mib += t->nodes[i].memory_mib;
	}
	t->nr_nodes = (int)json_array_size(nodes);
	return 0;
}

char *guest_result_topology_problem(const struct guest_result *r,
				    const struct guest_topology *declared)
{
	struct guest_topology seen;
	struct strbuf why = STRBUF_INIT, msg = STRBUF_INIT;
	int bad = guest_result_topology(r, &seen, &why) ||
		  !guest_topology_matches(declared, &seen, &why);

	if (bad) {
		sb_addf(&msg, "the guest's topology does not match %s:\n%s",
			declared->path ? declared->path : declared->name, sb_str(&why));
		sb_trim_trailing_newlines(&msg);
		sb_adds(&msg, "\ndeclared:\n");
		guest_topology_format(declared, &msg);
		sb_adds(&msg, "the guest shows:\n");
		if (r->topology)
			guest_topology_format(&seen, &msg);
		else
			sb_adds(&msg, "  (nothing reported)\n");
		sb_trim_trailing_newlines(&msg);
	}
	guest_topology_release(&seen);
	sb_release(&why);
	return bad ? sb_detach(&msg) : NULL;
}
