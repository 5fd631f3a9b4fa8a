// SPDX-License-Identifier: GPL-2.0
/*
 * guests/NAME.conf parser. Keys are checked one by one as inih hands them
 * over (so errors carry the key's line); the topology as a whole is checked
 * afterwards, with messages pointing at the line that declared the part
 * that does not fit.
 */
#include "guest_conf.h"
#include "cpulist.h"
#include "fsutil.h"
#include "ini_lines.h"
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* ---- cpusets ---- */

void cpuset_set(struct cpuset *s, int cpu)
{
	s->bits[cpu / 64] |= 1ULL << (cpu % 64);
}

int cpuset_has(const struct cpuset *s, int cpu)
{
	if (cpu < 0 || cpu >= GUEST_MAX_VCPUS)
		return 0;
	return !!(s->bits[cpu / 64] & (1ULL << (cpu % 64)));
}

int cpuset_count(const struct cpuset *s)
{
	int n = 0;

	for (size_t i = 0; i < ARRAY_SIZE(s->bits); i++)
		n += __builtin_popcountll(s->bits[i]);
	return n;
}

int cpuset_equal(const struct cpuset *a, const struct cpuset *b)
{
	return !memcmp(a->bits, b->bits, sizeof(a->bits));
}

int cpuset_parse(const char *str, int limit, struct cpuset *out)
{
	long lo, hi;
	int r;

	memset(out, 0, sizeof(*out));
	if (limit > GUEST_MAX_VCPUS)
		limit = GUEST_MAX_VCPUS;
	while ((r = cpulist_next(&str, limit, &lo, &hi)) > 0)
		for (long c = lo; c <= hi; c++)
			cpuset_set(out, (int)c);
	return r;
}

void cpuset_format(const struct cpuset *s, struct strbuf *out)
{
	int first = 1;

	for (int c = 0; c < GUEST_MAX_VCPUS; c++) {
		int e = c;

		if (!cpuset_has(s, c))
			continue;
		while (e + 1 < GUEST_MAX_VCPUS && cpuset_has(s, e + 1))
			e++;
		sb_addf(out, "%s%d", first ? "" : ",", c);
		if (e > c)
			sb_addf(out, "-%d", e);
		first = 0;
		c = e;
	}
}

/* ---- values ---- */

const char *guest_accel_name(enum guest_accel a)
{
	switch (a) {
	case ACCEL_KVM:
		return "kvm";
	case ACCEL_TCG:
		return "tcg";
	default:
		return "auto";
	}
}

int parse_size_mib(const char *s, uint64_t *mib)
{
	char *end;
	unsigned long long v;
	uint64_t mul = 1;

	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -1;
	if (!strcasecmp(end, "G") || !strcasecmp(end, "GiB"))
		mul = 1024;
	else if (!strcasecmp(end, "T") || !strcasecmp(end, "TiB"))
		mul = 1024 * 1024;
	else if (*end && strcasecmp(end, "M") && strcasecmp(end, "MiB"))
		return -1;
	if (v > (1ULL << 40) / mul)
		return -1;
	*mib = v * mul;
	return 0;
}

/* A host cpuset or nodeset as libvirt takes it: digits, ',', '-', '^'. */
static int valid_host_set(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s) && !strchr(",-^", *s))
			return 0;
	return 1;
}

static int valid_machine(const char *s)
{
	if (!*s || strlen(s) > 64)
		return 0;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr(".-_", *s))
			return 0;
	return 1;
}

/* ---- parsing ---- */

struct conf_ctx {
	struct guest_topology *t;
	const char *path;
	struct strbuf *err;
	int vcpus_line, memory_line;
	int cpus_line[GUEST_MAX_NODES], mem_line[GUEST_MAX_NODES], dist_line[GUEST_MAX_NODES];
	int ndist[GUEST_MAX_NODES];
	int declared[GUEST_MAX_NODES];
	int max_node;
};

/* conf_err() for per-key handlers (inih wants nonzero), conf_report() to count whole-file errors. */
#define conf_err(ctx, line, ...) (ini_error((ctx)->err, (ctx)->path, (line), __VA_ARGS__), -1)
#define conf_report(ctx, line, ...) (ini_error((ctx)->err, (ctx)->path, (line), __VA_ARGS__), 1)

static int parse_int_key(struct conf_ctx *ctx, int line, const char *key, const char *value,
			 long min, long max, int *out)
{
	long v;

	if (parse_long(value, min, max, &v))
		return conf_err(ctx, line, "%s: expected an integer from %ld to %ld, got '%s'",
				key, min, max, value);
	*out = (int)v;
	return 0;
}

static int set_str(char **dst, const char *value)
{
	free(*dst);
	*dst = xstrdup(value);
	return 0;
}

static int guest_key(struct conf_ctx *ctx, const char *key, const char *value, int line)
{
	struct guest_topology *t = ctx->t;

	if (!strcmp(key, "vcpus")) {
		ctx->vcpus_line = line;
		return parse_int_key(ctx, line, key, value, 1, GUEST_MAX_VCPUS, &t->vcpus);
	}
	if (!strcmp(key, "memory")) {
		ctx->memory_line = line;
		if (parse_size_mib(value, &t->memory_mib) || !t->memory_mib)
			return conf_err(ctx, line, "memory: expected a size like 1024M or 8G, got '%s'", value);
		return 0;
	}
	if (!strcmp(key, "machine")) {
		if (!valid_machine(value))
			return conf_err(ctx, line, "machine: expected a QEMU machine type like pc or q35, got '%s'", value);
		return set_str(&t->machine, value);
	}
	if (!strcmp(key, "accel")) {
		if (!strcmp(value, "auto"))
			t->accel = ACCEL_AUTO;
		else if (!strcmp(value, "kvm"))
			t->accel = ACCEL_KVM;
		else if (!strcmp(value, "tcg"))
			t->accel = ACCEL_TCG;
		else
			return conf_err(ctx, line, "accel: expected auto, kvm or tcg, got '%s'", value);
		return 0;
	}
	if (!strcmp(key, "boot_timeout"))
		return parse_int_key(ctx, line, key, value, 1, 86400, &t->boot_timeout_s);
	if (!strcmp(key, "run_timeout"))
		return parse_int_key(ctx, line, key, value, 1, 7 * 86400, &t->run_timeout_s);
	return conf_err(ctx, line, "[guest]: unknown key '%s' (expected vcpus, memory, machine, accel, boot_timeout, run_timeout)", key);
}

static int node_key(struct conf_ctx *ctx, int id, const char *key, const char *value, int line)
{
	struct guest_node *n = &ctx->t->nodes[id];

	if (!strcmp(key, "cpus")) {
		ctx->cpus_line[id] = line;
		if (cpuset_parse(value, GUEST_MAX_VCPUS, &n->cpus))
			return conf_err(ctx, line, "cpus: expected a vCPU list like 0-1,4 (or nothing for a memory-only node), got '%s'", value);
		return 0;
	}
	if (!strcmp(key, "memory")) {
		ctx->mem_line[id] = line;
		if (parse_size_mib(value, &n->memory_mib) || !n->memory_mib)
			return conf_err(ctx, line, "memory: expected a size like 512M or 4G, got '%s'", value);
		return 0;
	}
	if (!strcmp(key, "distances")) {
		struct strvec f = STRVEC_INIT;
		int bad = 0;

		ctx->dist_line[id] = line;
		strvec_split(&f, value, ", \t");
		if (f.n > GUEST_MAX_NODES)
			bad = 1;
		for (size_t i = 0; i < f.n && !bad; i++) {
			long d;

			if (parse_long(f.v[i], 10, 255, &d))
				bad = 1;
			else
				n->distances[i] = (int)d;
		}
		ctx->ndist[id] = (int)f.n;
		strvec_clear(&f);
		if (bad || !ctx->ndist[id])
			return conf_err(ctx, line, "distances: expected one distance (10-255) per node, like 10,20, got '%s'", value);
		return 0;
	}
	if (!strcmp(key, "host_nodes")) {
		if (!valid_host_set(value))
			return conf_err(ctx, line, "host_nodes: expected a host node set like 0 or 0-1, got '%s'", value);
		return set_str(&n->host_nodes, value);
	}
	return conf_err(ctx, line, "[node %d]: unknown key '%s' (expected cpus, memory, distances, host_nodes)", id, key);
}

static int placement_key(struct conf_ctx *ctx, const char *key, const char *value, int line)
{
	struct guest_topology *t = ctx->t;

	if (!strcmp(key, "vcpupin")) {
		/* "0:2,1:3" is ambiguous with cpusets; pairs are separated by spaces: "0:2 1:3-4". */
		struct strvec f = STRVEC_INIT;
		int r = 0;

		strvec_split(&f, value, " \t");
		if (!f.n)
			r = -1;
		for (size_t i = 0; i < f.n && !r; i++) {
			char *colon = strchr(f.v[i], ':');
			long v;

			if (!colon)
				r = -1;
			else {
				*colon = '\0';
				if (parse_long(f.v[i], 0, GUEST_MAX_VCPUS - 1, &v) || !valid_host_set(colon + 1))
					r = -1;
				else
					set_str(&t->vcpupin[v], colon + 1);
			}
		}
		strvec_clear(&f);
		if (r)
			return conf_err(ctx, line, "vcpupin: expected space-separated VCPU:HOSTCPUS pairs like '0:2 1:3', got '%s'", value);
		return 0;
	}
	if (!strcmp(key, "emulatorpin")) {
		if (!valid_host_set(value))
			return conf_err(ctx, line, "emulatorpin: expected a host CPU set like 0-1, got '%s'", value);
		return set_str(&t->emulatorpin, value);
	}
	if (!strcmp(key, "numatune_mode")) {
		if (strcmp(value, "strict") && strcmp(value, "preferred") &&
		    strcmp(value, "interleave") && strcmp(value, "restrictive"))
			return conf_err(ctx, line, "numatune_mode: expected strict, preferred, interleave or restrictive, got '%s'", value);
		return set_str(&t->numatune_mode, value);
	}
	if (!strcmp(key, "numatune_nodes")) {
		if (!valid_host_set(value))
			return conf_err(ctx, line, "numatune_nodes: expected a host node set like 0-1, got '%s'", value);
		return set_str(&t->numatune_nodes, value);
	}
	if (!strcmp(key, "hugepages")) {
		if (!strcmp(value, "no") || !strcmp(value, "none"))
			t->hugepage_kib = 0;
		else if (!strcmp(value, "2M"))
			t->hugepage_kib = 2048;
		else if (!strcmp(value, "1G"))
			t->hugepage_kib = 1024 * 1024;
		else
			return conf_err(ctx, line, "hugepages: expected no, 2M or 1G, got '%s'", value);
		return 0;
	}
	if (!strcmp(key, "nosharepages")) {
		if (!strcmp(value, "yes") || !strcmp(value, "true"))
			t->nosharepages = 1;
		else if (!strcmp(value, "no") || !strcmp(value, "false"))
			t->nosharepages = 0;
		else
			return conf_err(ctx, line, "nosharepages: expected yes or no, got '%s'", value);
		return 0;
	}
	return conf_err(ctx, line, "[placement]: unknown key '%s' (expected vcpupin, emulatorpin, numatune_mode, numatune_nodes, hugepages, nosharepages)", key);
}

static int handler(void *user, const char *section, const char *key, const char *value, int line)
{
	struct conf_ctx *ctx = user;

	if (!strcmp(section, "guest"))
		return guest_key(ctx, key, value, line);
	if (!strcmp(section, "placement"))
		return placement_key(ctx, key, value, line);
	if (!strncmp(section, "node ", 5)) {
		long id;

		if (parse_long(section + 5, 0, GUEST_MAX_NODES - 1, &id))
			return conf_err(ctx, line, "[%s]: expected [node N] with N from 0 to %d",
					section, GUEST_MAX_NODES - 1);
		if (!ctx->declared[id]) {
			ctx->declared[id] = 1;
			ctx->t->nodes[id].line = line;
		}
		if (id > ctx->max_node)
			ctx->max_node = (int)id;
		return node_key(ctx, (int)id, key, value, line);
	}
	return conf_err(ctx, line, "unknown section [%s] (expected [guest], [node N], [placement])", section);
}

/* The topology as a whole: every vCPU in exactly one node, memory adding up, distances square. */
static int check_topology(struct conf_ctx *ctx)
{
	struct guest_topology *t = ctx->t;
	struct cpuset seen = { { 0 } };
	uint64_t sum = 0;
	int errors = 0, ndist_nodes = 0, cpu_nodes = 0;
	int gl = ctx->vcpus_line ? ctx->vcpus_line : 1;

	if (!ctx->vcpus_line)
		errors += conf_report(ctx, 1, "[guest]: vcpus is missing (expected the number of vCPUs)");
	t->nr_nodes = ctx->max_node + 1;
	if (!ctx->declared[0] && ctx->max_node < 0)
		errors += conf_report(ctx, gl, "no [node N] section (expected at least [node 0])");
	for (int id = 0; id < t->nr_nodes; id++) {
		struct guest_node *n = &t->nodes[id];

		if (!ctx->declared[id]) {
			errors += conf_report(ctx, t->nodes[ctx->max_node].line,
					   "[node %d] is missing: nodes must be numbered 0 to %d without gaps",
					   id, ctx->max_node);
			continue;
		}
		if (!ctx->mem_line[id])
			errors += conf_report(ctx, n->line, "[node %d]: memory is missing (expected a size like 512M)", id);
		else if (n->memory_mib < 64)
			errors += conf_report(ctx, ctx->mem_line[id], "[node %d]: memory %llu MiB is too small (at least 64M per node)",
					   id, (unsigned long long)n->memory_mib);
		else if (t->hugepage_kib && (n->memory_mib * 1024) % t->hugepage_kib)
			errors += conf_report(ctx, ctx->mem_line[id], "[node %d]: memory %llu MiB is not a multiple of the %llu KiB hugepages",
					   id, (unsigned long long)n->memory_mib, (unsigned long long)t->hugepage_kib);
		sum += n->memory_mib;
		for (int c = 0; c < GUEST_MAX_VCPUS; c++) {
			if (!cpuset_has(&n->cpus, c))
				continue;
			if (t->vcpus && c >= t->vcpus)
				errors += conf_report(ctx, ctx->cpus_line[id], "[node %d]: vCPU %d does not exist (vcpus = %d: expected 0 to %d)",
						   id, c, t->vcpus, t->vcpus - 1);
			else if (cpuset_has(&seen, c))
				errors += conf_report(ctx, ctx->cpus_line[id], "[node %d]: vCPU %d is already in another node", id, c);
			cpuset_set(&seen, c);
		}
		if (cpuset_count(&n->cpus))
			cpu_nodes++;
		if (ctx->dist_line[id])
			ndist_nodes++;
	}
	for (int c = 0; c < t->vcpus; c++)
		if (!cpuset_has(&seen, c))
			errors += conf_report(ctx, gl, "vCPU %d is in no node (every vCPU must be in exactly one [node N] cpus list)", c);
	if (t->nr_nodes > 0 && !cpu_nodes)
		errors += conf_report(ctx, gl, "no node has CPUs (memory-only nodes need at least one node with CPUs)");
	if (ctx->memory_line && sum && sum != t->memory_mib)
		errors += conf_report(ctx, ctx->memory_line, "memory = %llu MiB but the nodes add up to %llu MiB",
				   (unsigned long long)t->memory_mib, (unsigned long long)sum);
	if (!ctx->memory_line)
		t->memory_mib = sum;

	if (ndist_nodes && ndist_nodes != t->nr_nodes) {
		for (int id = 0; id < t->nr_nodes; id++)
			if (ctx->declared[id] && !ctx->dist_line[id])
				errors += conf_report(ctx, t->nodes[id].line, "[node %d]: distances is missing (give it for every node or for none)", id);
	} else if (ndist_nodes) {
		t->has_distances = 1;
		for (int i = 0; i < t->nr_nodes; i++) {
			if (ctx->ndist[i] != t->nr_nodes) {
				errors += conf_report(ctx, ctx->dist_line[i], "[node %d]: %d distances, expected %d (one per node)",
						   i, ctx->ndist[i], t->nr_nodes);
				continue;
			}
			for (int j = 0; j < t->nr_nodes; j++) {
				int d = t->nodes[i].distances[j];

				if (i == j && d != 10)
					errors += conf_report(ctx, ctx->dist_line[i], "[node %d]: distance to itself is %d, expected 10", i, d);
				else if (i != j && d <= 10)
					errors += conf_report(ctx, ctx->dist_line[i], "[node %d]: distance to node %d is %d, expected more than 10", i, j, d);
			}
		}
	}
	for (int v = 0; v < GUEST_MAX_VCPUS; v++)
		if (t->vcpupin[v] && v >= t->vcpus)
			errors += conf_report(ctx, gl, "[placement] vcpupin names vCPU %d but vcpus = %d", v, t->vcpus);
	return errors;
}

static void set_defaults(struct guest_topology *t, const char *path)
{
	const char *base = path_basename(path);
	size_t len = strlen(base);

	memset(t, 0, sizeof(*t));
	if (len > 5 && !strcmp(base + len - 5, ".conf"))
		len -= 5;
	t->name = xstrndup(base, len);
	t->path = xstrdup(path);
	t->machine = xstrdup("pc");
	t->accel = ACCEL_AUTO;
	t->boot_timeout_s = 120;
	t->run_timeout_s = 1800;
}

int guest_topology_load(const char *path, struct guest_topology *t, struct strbuf *err)
{
	struct conf_ctx ctx = { .t = t, .path = path, .err = err, .max_node = -1 };
	int r;

	set_defaults(t, path);
	r = ini_parse_lines(path, handler, &ctx, err);
	if (r < 0)
		return r;
	r += check_topology(&ctx);
	if (!r && t->boot_timeout_s > t->run_timeout_s) {
		ini_error(err, path, 1, "boot_timeout (%d s) is longer than run_timeout (%d s)",
			  t->boot_timeout_s, t->run_timeout_s);
		r++;
	}
	return r;
}

char *guest_conf_path(const char *guests_dir, const char *name_or_path)
{
	size_t len = strlen(name_or_path);

	if (strchr(name_or_path, '/') || (len > 5 && !strcmp(name_or_path + len - 5, ".conf")))
		return xstrdup(name_or_path);
	return xasprintf("%s/%s.conf", guests_dir, name_or_path);
}

void guest_topology_release(struct guest_topology *t)
{
	free(t->name);
	free(t->path);
	free(t->machine);
	for (int i = 0; i < GUEST_MAX_NODES; i++)
		free(t->nodes[i].host_nodes);
	for (int v = 0; v < GUEST_MAX_VCPUS; v++)
		free(t->vcpupin[v]);
	free(t->emulatorpin);
	free(t->numatune_mode);
	free(t->numatune_nodes);
	memset(t, 0, sizeof(*t));
}

/* ---- comparing declared and reported ---- */

void guest_topology_format(const struct guest_topology *t, struct strbuf *out)
{
	sb_addf(out, "  %d vCPUs, %llu MiB, %d node%s\n", t->vcpus,
		(unsigned long long)t->memory_mib, t->nr_nodes, t->nr_nodes == 1 ? "" : "s");
	for (int i = 0; i < t->nr_nodes; i++) {
		const struct guest_node *n = &t->nodes[i];

		sb_addf(out, "  node %d: cpus ", i);
		if (cpuset_count(&n->cpus))
			cpuset_format(&n->cpus, out);
		else
			sb_adds(out, "(none)");
		sb_addf(out, ", memory %llu MiB", (unsigned long long)n->memory_mib);
		if (t->has_distances) {
			sb_adds(out, ", distances ");
			for (int j = 0; j < t->nr_nodes; j++)
				sb_addf(out, "%s%d", j ? "," : "", n->distances[j]);
		}
		sb_addc(out, '\n');
	}
}

/*
 * The firmware, the kernel image and early allocations live in node memory,
 * so a node reports less than it was given: allow a quarter, at least 96 MiB.
 */
static int memory_close_enough(uint64_t declared, uint64_t reported)
{
	uint64_t slack = declared / 4;

	if (slack < 96)
		slack = 96;
	return reported <= declared && reported + slack >= declared;
}

int guest_topology_matches(const struct guest_topology *d, const struct guest_topology *r,
			   struct strbuf *why)
{
	int ok = 1;

	if (d->vcpus != r->vcpus) {
		sb_addf(why, "declared %d vCPUs, the guest has %d online\n", d->vcpus, r->vcpus);
		ok = 0;
	}
	if (d->nr_nodes != r->nr_nodes) {
		sb_addf(why, "declared %d NUMA nodes, the guest shows %d\n", d->nr_nodes, r->nr_nodes);
		return 0;
	}
	for (int i = 0; i < d->nr_nodes; i++) {
		const struct guest_node *dn = &d->nodes[i], *rn = &r->nodes[i];

		if (!cpuset_equal(&dn->cpus, &rn->cpus)) {
			sb_addf(why, "node %d: declared cpus '", i);
			cpuset_format(&dn->cpus, why);
			sb_adds(why, "', the guest shows '");
			cpuset_format(&rn->cpus, why);
			sb_adds(why, "'\n");
			ok = 0;
		}
		if (!memory_close_enough(dn->memory_mib, rn->memory_mib)) {
			sb_addf(why, "node %d: declared %llu MiB, the guest shows %llu MiB\n", i,
				(unsigned long long)dn->memory_mib, (unsigned long long)rn->memory_mib);
			ok = 0;
		}
		if (d->has_distances) {
			for (int j = 0; j < d->nr_nodes; j++) {
				if (dn->distances[j] != rn->distances[j]) {
					sb_addf(why, "node %d: declared distance %d to node %d, the guest shows %d\n",
						i, dn->distances[j], j, rn->distances[j]);
					ok = 0;
				}
			}
		}
	}
	return ok;
}
