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
#include "ini_schema.h"
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
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

/* Custom values for ini_schema.h: 0, or -1 and the table's "expected" is shown. */
static int set_str(char **dst, const char *value)
{
	free(*dst);
	*dst = xstrdup(value);
	return 0;
}

static int parse_size(const char *value, void *field)
{
	uint64_t mib;

	if (parse_size_mib(value, &mib) || !mib)
		return -1;
	*(uint64_t *)field = mib;
	return 0;
}

static int parse_machine(const char *value, void *field)
{
	return valid_machine(value) ? set_str(field, value) : -1;
}

static int parse_host_set(const char *value, void *field)
{
	return valid_host_set(value) ? set_str(field, value) : -1;
}

static int parse_cpus(const char *value, void *field)
{
	return cpuset_parse(value, GUEST_MAX_VCPUS, field);
}

/* One distance per node; the count is the number of nonzero entries (all are >= 10). */
static int parse_distances(const char *value, void *field)
{
	int *dist = field;
	struct strvec f = STRVEC_INIT;
	int bad = 0;

	memset(dist, 0, GUEST_MAX_NODES * sizeof(*dist));
	strvec_split(&f, value, ", \t");
	if (!f.n || f.n > GUEST_MAX_NODES)
		bad = 1;
	for (size_t i = 0; i < f.n && !bad; i++) {
		long d;

		if (parse_long(f.v[i], 10, 255, &d))
			bad = 1;
		else
			dist[i] = (int)d;
	}
	strvec_clear(&f);
	if (bad)
		memset(dist, 0, GUEST_MAX_NODES * sizeof(*dist));
	return bad ? -1 : 0;
}

static int count_distances(const struct guest_node *n)
{
	int k = 0;

	while (k < GUEST_MAX_NODES && n->distances[k])
		k++;
	return k;
}

/* "0:2 1:3-4": "0:2,1:3" would be ambiguous with cpusets, so pairs are separated by spaces. */
static int parse_vcpupin(const char *value, void *field)
{
	char **pin = field;
	struct strvec f = STRVEC_INIT;
	int r = 0;

	strvec_split(&f, value, " \t");
	if (!f.n)
		r = -1;
	for (size_t i = 0; i < f.n && !r; i++) {
		char *colon = strchr(f.v[i], ':');
		long v;

		if (!colon) {
			r = -1;
			break;
		}
		*colon = '\0';
		if (parse_long(f.v[i], 0, GUEST_MAX_VCPUS - 1, &v) || !valid_host_set(colon + 1))
			r = -1;
		else
			set_str(&pin[v], colon + 1);
	}
	strvec_clear(&f);
	return r;
}

static int parse_hugepages(const char *value, void *field)
{
	uint64_t *kib = field;

	if (!strcmp(value, "no") || !strcmp(value, "none"))
		*kib = 0;
	else if (!strcmp(value, "2M"))
		*kib = 2048;
	else if (!strcmp(value, "1G"))
		*kib = 1024 * 1024;
	else
		return -1;
	return 0;
}

/* icount = off | N: QEMU's -icount shift, 0 to 10 (2^N ns per instruction). */
static int parse_icount(const char *value, void *field)
{
	long v;

	if (!strcmp(value, "off")) {
		*(int *)field = -1;
		return 0;
	}
	if (parse_long(value, 0, 10, &v))
		return -1;
	*(int *)field = (int)v;
	return 0;
}

static int parse_yes_no(const char *value, void *field)
{
	if (!strcmp(value, "yes") || !strcmp(value, "true"))
		*(int *)field = 1;
	else if (!strcmp(value, "no") || !strcmp(value, "false"))
		*(int *)field = 0;
	else
		return -1;
	return 0;
}

/* accel = is stored by its index in the choices. */
_Static_assert(ACCEL_AUTO == 0 && ACCEL_KVM == 1 && ACCEL_TCG == 2, "accel choices order");

#define TOPO(f) .offset = offsetof(struct guest_topology, f)
static const struct ini_key guest_keys[] = {
	{ "vcpus", INI_INT, TOPO(vcpus), .min = 1, .max = GUEST_MAX_VCPUS },
	{ "memory", INI_CUSTOM, TOPO(memory_mib), .parse = parse_size,
	  .expected = "a size like 1024M or 8G" },
	{ "machine", INI_CUSTOM, TOPO(machine), .parse = parse_machine,
	  .expected = "a QEMU machine type like pc or q35" },
	{ "accel", INI_CHOICE, TOPO(accel), .choices = "auto|kvm|tcg" },
	{ "boot_timeout", INI_INT, TOPO(boot_timeout_s), .min = 1, .max = 86400 },
	{ "run_timeout", INI_INT, TOPO(run_timeout_s), .min = 1, .max = 7 * 86400 },
	{ "icount", INI_CUSTOM, TOPO(icount_shift), .parse = parse_icount,
	  .expected = "off, or QEMU's icount shift from 0 to 10 (2^N ns of guest time per instruction)" },
	{ NULL },
};

#define NODE(f) .offset = offsetof(struct guest_node, f)
static const struct ini_key node_keys[] = {
	{ "cpus", INI_CUSTOM, NODE(cpus), .parse = parse_cpus,
	  .expected = "a vCPU list like 0-1,4 (or nothing for a memory-only node)" },
	{ "memory", INI_CUSTOM, NODE(memory_mib), .parse = parse_size,
	  .expected = "a size like 512M or 4G" },
	{ "distances", INI_CUSTOM, NODE(distances), .parse = parse_distances,
	  .expected = "one distance (10-255) per node, like 10,20" },
	{ "host_nodes", INI_CUSTOM, NODE(host_nodes), .parse = parse_host_set,
	  .expected = "a host node set like 0 or 0-1" },
	{ NULL },
};

static const struct ini_key placement_keys[] = {
	{ "vcpupin", INI_CUSTOM, TOPO(vcpupin), .parse = parse_vcpupin,
	  .expected = "space-separated VCPU:HOSTCPUS pairs like '0:2 1:3'" },
	{ "emulatorpin", INI_CUSTOM, TOPO(emulatorpin), .parse = parse_host_set,
	  .expected = "a host CPU set like 0-1" },
	{ "numatune_mode", INI_ENUM, TOPO(numatune_mode),
	  .choices = "strict|preferred|interleave|restrictive" },
	{ "numatune_nodes", INI_CUSTOM, TOPO(numatune_nodes), .parse = parse_host_set,
	  .expected = "a host node set like 0-1" },
	{ "hugepages", INI_CUSTOM, TOPO(hugepage_kib), .parse = parse_hugepages,
	  .expected = "no, 2M or 1G" },
	{ "nosharepages", INI_CUSTOM, TOPO(nosharepages), .parse = parse_yes_no,
	  .expected = "yes or no" },
	{ NULL },
};

struct conf_ctx {
	struct guest_topology *t;
	struct ini_check ini;		/* path, error text, where each key was set */
	int declared[GUEST_MAX_NODES];
	int max_node;
};

/* conf_report() counts the whole-file errors. */
#define conf_report(ctx, line, ...) (ini_check_error(&(ctx)->ini, (line), __VA_ARGS__), 1)

/* Where [node @id]'s @key was set, 0 if it was not. */
static int node_line(const struct conf_ctx *ctx, int id, const char *key)
{
	char section[32];

	snprintf(section, sizeof(section), "node %d", id);
	return ini_check_line(&ctx->ini, section, key);
}

static int handler(void *user, const char *section, const char *key, const char *value, int line)
{
	struct conf_ctx *ctx = user;
	struct guest_topology *t = ctx->t;
	char canon[32];
	long id;

	if (!strcmp(section, "guest"))
		return ini_check_set(&ctx->ini, t, guest_keys, section, key, value, line);
	if (!strcmp(section, "placement"))
		return ini_check_set(&ctx->ini, t, placement_keys, section, key, value, line);
	if (strncmp(section, "node ", 5)) {
		ini_check_error(&ctx->ini, line, "unknown section [%s] (expected [guest], [node N], "
				"[placement])", section);
		return -1;
	}
	if (parse_long(section + 5, 0, GUEST_MAX_NODES - 1, &id)) {
		ini_check_error(&ctx->ini, line, "[%s]: expected [node N] with N from 0 to %d",
				section, GUEST_MAX_NODES - 1);
		return -1;
	}
	if (!ctx->declared[id]) {
		ctx->declared[id] = 1;
		t->nodes[id].line = line;
	}
	if (id > ctx->max_node)
		ctx->max_node = (int)id;
	/* [node 01] is [node 1]: one name for messages and for keys set twice. */
	snprintf(canon, sizeof(canon), "node %ld", id);
	return ini_check_set(&ctx->ini, &t->nodes[id], node_keys, canon, key, value, line);
}

/* [node @id]'s memory: given, at least 64 MiB, whole hugepages. The errors. */
static int check_node_memory(struct conf_ctx *ctx, int id)
{
	struct guest_topology *t = ctx->t;
	struct guest_node *n = &t->nodes[id];
	int mem_line = node_line(ctx, id, "memory");

	if (!mem_line)
		return conf_report(ctx, n->line, "[node %d] memory: missing (expected a size like 512M)", id);
	if (n->memory_mib < 64)
		return conf_report(ctx, mem_line, "[node %d] memory: %llu MiB is too small (at least 64M per node)",
				   id, (unsigned long long)n->memory_mib);
	if (t->hugepage_kib && (n->memory_mib * 1024) % t->hugepage_kib)
		return conf_report(ctx, mem_line, "[node %d] memory: %llu MiB is not a multiple of the %llu KiB hugepages",
				   id, (unsigned long long)n->memory_mib, (unsigned long long)t->hugepage_kib);
	return 0;
}

/*
 * [node @id]'s vCPUs: each exists and is in no node before it (@seen, the
 * vCPUs of the nodes before, gains this node's). The errors.
 */
static int check_node_cpus(struct conf_ctx *ctx, int id, struct cpuset *seen)
{
	struct guest_topology *t = ctx->t;
	struct guest_node *n = &t->nodes[id];
	int cpus_line = node_line(ctx, id, "cpus"), errors = 0;

	for (int c = 0; c < GUEST_MAX_VCPUS; c++) {
		if (!cpuset_has(&n->cpus, c))
			continue;
		if (t->vcpus && c >= t->vcpus)
			errors += conf_report(ctx, cpus_line, "[node %d] cpus: vCPU %d does not exist (vcpus = %d: expected 0 to %d)",
					   id, c, t->vcpus, t->vcpus - 1);
		else if (cpuset_has(seen, c))
			errors += conf_report(ctx, cpus_line, "[node %d] cpus: vCPU %d is already in another node", id, c);
		cpuset_set(seen, c);
	}
	return errors;
}

/* [node @i]'s distances: one per node, 10 to itself, more to the others. The errors. */
static int check_node_distances(struct conf_ctx *ctx, int i)
{
	struct guest_topology *t = ctx->t;
	int dl = node_line(ctx, i, "distances"), nd = count_distances(&t->nodes[i]);
	int errors = 0;

	if (!nd)
		return 0;	/* a value that did not parse: already reported */
	if (nd != t->nr_nodes)
		return conf_report(ctx, dl, "[node %d] distances: %d given, expected %d (one per node)",
				   i, nd, t->nr_nodes);
	for (int j = 0; j < t->nr_nodes; j++) {
		int d = t->nodes[i].distances[j];

		if (i == j && d != 10)
			errors += conf_report(ctx, dl, "[node %d] distances: distance to itself is %d, expected 10", i, d);
		else if (i != j && d <= 10)
			errors += conf_report(ctx, dl, "[node %d] distances: distance to node %d is %d, expected more than 10", i, j, d);
	}
	return errors;
}

/* Distances, which @ndist_nodes nodes gave: every node or none. The errors. */
static int check_distances(struct conf_ctx *ctx, int ndist_nodes)
{
	struct guest_topology *t = ctx->t;
	int errors = 0;

	if (ndist_nodes != t->nr_nodes) {
		for (int id = 0; id < t->nr_nodes; id++)
			if (ctx->declared[id] && !node_line(ctx, id, "distances"))
				errors += conf_report(ctx, t->nodes[id].line, "[node %d] distances: missing (give it for every node or for none)", id);
		return errors;
	}
	t->has_distances = 1;
	for (int i = 0; i < t->nr_nodes; i++)
		errors += check_node_distances(ctx, i);
	return errors;
}

/* [placement] vcpupin: only vCPUs that exist, and not with icount. The errors. */
static int check_vcpupin(struct conf_ctx *ctx)
{
	struct guest_topology *t = ctx->t;
	int line = ini_check_line(&ctx->ini, "placement", "vcpupin"), errors = 0;

	for (int v = 0; v < GUEST_MAX_VCPUS; v++)
		if (t->vcpupin[v] && v >= t->vcpus)
			errors += conf_report(ctx, line,
					      "[placement] vcpupin: names vCPU %d but vcpus = %d", v, t->vcpus);
	/* libvirt refuses the domain ("cpu affinity is not supported"): say why here. */
	if (t->icount_shift >= 0 && line)
		errors += conf_report(ctx, line,
				      "[placement] vcpupin: with [guest] icount every vCPU runs in the "
				      "emulator's one thread, so no vCPU thread can be pinned (expected "
				      "emulatorpin alone, or icount = off)");
	return errors;
}

/* The topology as a whole: every vCPU in exactly one node, memory adding up, distances square. */
static int check_topology(struct conf_ctx *ctx)
{
	struct guest_topology *t = ctx->t;
	struct cpuset seen = { { 0 } };
	uint64_t sum = 0;
	int errors = 0, ndist_nodes = 0, cpu_nodes = 0;
	int vcpus_line = ini_check_line(&ctx->ini, "guest", "vcpus");
	int memory_line = ini_check_line(&ctx->ini, "guest", "memory");
	int gl = vcpus_line ? vcpus_line : 1;

	if (!vcpus_line)
		errors += conf_report(ctx, 1, "[guest] vcpus: missing (expected the number of vCPUs)");
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
		errors += check_node_memory(ctx, id);
		sum += n->memory_mib;
		errors += check_node_cpus(ctx, id, &seen);
		if (cpuset_count(&n->cpus))
			cpu_nodes++;
		if (node_line(ctx, id, "distances"))
			ndist_nodes++;
	}
	for (int c = 0; c < t->vcpus; c++)
		if (!cpuset_has(&seen, c))
			errors += conf_report(ctx, gl, "vCPU %d is in no node (every vCPU must be in exactly one [node N] cpus list)", c);
	if (t->nr_nodes > 0 && !cpu_nodes)
		errors += conf_report(ctx, gl, "no node has CPUs (memory-only nodes need at least one node with CPUs)");
	if (memory_line && sum && sum != t->memory_mib)
		errors += conf_report(ctx, memory_line, "[guest] memory: %llu MiB but the nodes add up to %llu MiB",
				   (unsigned long long)t->memory_mib, (unsigned long long)sum);
	if (!memory_line)
		t->memory_mib = sum;

	if (ndist_nodes)
		errors += check_distances(ctx, ndist_nodes);
	errors += check_vcpupin(ctx);
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
	t->icount_shift = -1;
}

int guest_topology_load(const char *path, struct guest_topology *t, struct strbuf *err)
{
	struct conf_ctx ctx = { .t = t, .ini = { .path = path, .err = err }, .max_node = -1 };
	int r;

	set_defaults(t, path);
	r = ini_parse_lines(path, handler, &ctx, err);
	if (r >= 0)
		r += check_topology(&ctx);
	if (r == 0 && t->boot_timeout_s > t->run_timeout_s) {
		int line = ini_check_line(&ctx.ini, "guest", "boot_timeout");

		if (!line)
			line = ini_check_line(&ctx.ini, "guest", "run_timeout");
		r += conf_report(&ctx, line ? line : 1,
				 "[guest] boot_timeout: %d s is longer than run_timeout (%d s)",
				 t->boot_timeout_s, t->run_timeout_s);
	}
	ini_check_release(&ctx.ini);
	return r;
}

char *guest_conf_path(const char *guests_dir, const char *name_or_path)
{
	size_t len = strlen(name_or_path);

	if (strchr(name_or_path, '/') || (len > 5 && !strcmp(name_or_path + len - 5, ".conf")))
		return xstrdup(name_or_path);
	return xasprintf("%s/%s.conf", guests_dir, name_or_path);
}

int guest_slot_cpus(const struct guest_topology *t)
{
	return t->icount_shift >= 0 ? 1 : t->vcpus;
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
