// SPDX-License-Identifier: GPL-2.0
/* The owner tag of lab domains, and whose orphan a domain is (domain_owner.h). */
#include "domain_owner.h"
#include "escape.h"
#include "fsutil.h"
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The first line of @path into @out if it is 1 to @len - 1 characters of @ok; else "". */
static void read_id(const char *path, const char *ok, char *out, size_t len)
{
	struct strbuf sb = STRBUF_INIT;
	size_t n;

	out[0] = '\0';
	if (!read_file(path, &sb, 4096)) {
		n = strcspn(sb_str(&sb), "\n");
		if (n && n < len && strspn(sb_str(&sb), ok) == n) {
			memcpy(out, sb_str(&sb), n);
			out[n] = '\0';
		}
	}
	sb_release(&sb);
}

#define HEX "0123456789abcdefABCDEF"

int domain_owner_proc_start(long pid, unsigned long long *start)
{
	char path[64];
	struct strbuf sb = STRBUF_INIT;
	const char *p;
	int r = -1;

	if (pid <= 0)
		return -1;
	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	/* "pid (comm) S ppid ...": comm may hold spaces and ')', so from the last ')' */
	if (!read_file(path, &sb, 4096) && (p = strrchr(sb_str(&sb), ')')) && p[1] == ' ' &&
	    p[2] && p[2] != 'Z' && p[2] != 'X') {
		/* p + 2 is field 3 (state); starttime is field 22 */
		p += 2;
		for (int field = 3; field < 22 && p; field++) {
			p = strchr(p, ' ');
			if (p)
				p++;
		}
		if (p && isdigit((unsigned char)*p)) {
			*start = strtoull(p, NULL, 10);
			r = 0;
		}
	}
	sb_release(&sb);
	return r;
}

void domain_owner_self(struct domain_owner *o, const char *state_dir)
{
	char ns[64];
	ssize_t n;

	memset(o, 0, sizeof(*o));
	read_id("/etc/machine-id", HEX, o->machine, sizeof(o->machine));
	read_id("/proc/sys/kernel/random/boot_id", HEX "-", o->boot, sizeof(o->boot));
	/* "pid:[4026531836]" */
	n = readlink("/proc/self/ns/pid", ns, sizeof(ns) - 1);
	if (n > 6 && !strncmp(ns, "pid:[", 5) && ns[n - 1] == ']') {
		size_t len = (size_t)n - 6;

		if (len < sizeof(o->pidns) && strspn(ns + 5, "0123456789") == len) {
			memcpy(o->pidns, ns + 5, len);
			o->pidns[len] = '\0';
		}
	}
	o->pid = (long)getpid();
	if (domain_owner_proc_start(o->pid, &o->start))
		o->start = 0;
	if (state_dir)
		o->state = path_absolute(NULL, state_dir);
}

void domain_owner_release(struct domain_owner *o)
{
	free(o->state);
	memset(o, 0, sizeof(*o));
}

void domain_owner_xml(const struct domain_owner *o, const char *indent, struct strbuf *sb)
{
	sb_addf(sb, "%s<metadata>\n%s  <" DOMAIN_OWNER_PREFIX ":owner xmlns:" DOMAIN_OWNER_PREFIX
		"='" DOMAIN_OWNER_NS "' machine='", indent, indent);
	sb_add_xml(sb, o->machine);
	sb_adds(sb, "' boot='");
	sb_add_xml(sb, o->boot);
	sb_adds(sb, "' pidns='");
	sb_add_xml(sb, o->pidns);
	sb_addf(sb, "' pid='%ld' start='%llu' state='", o->pid, o->start);
	sb_add_xml(sb, o->state ? o->state : "");
	sb_addf(sb, "'/>\n%s</metadata>\n", indent);
}

/*
 * The parser reads what libvirt writes back (libxml2's serialisation: the
 * element and its namespace declaration as given, attributes in double
 * quotes, entities for & < > " and control characters). Whatever it does
 * not understand is no tag: the domain is left alone.
 */
struct attr {
	const char *name, *value;	/* not terminated: name_len, value_len */
	size_t name_len, value_len;
};

#define MAX_ATTRS 16

/* Decode the entities of an attribute value; -1 on one it does not know. */
static int unescape(const char *s, size_t len, struct strbuf *out)
{
	static const struct { const char *ent; char c; } named[] = {
		{ "amp;", '&' }, { "lt;", '<' }, { "gt;", '>' }, { "quot;", '"' }, { "apos;", '\'' },
	};

	for (size_t i = 0; i < len; i++) {
		if (s[i] != '&') {
			sb_addc(out, s[i]);
			continue;
		}
		const char *e = s + i + 1;
		size_t rest = len - i - 1, k;

		for (k = 0; k < ARRAY_SIZE(named); k++)
			if (rest >= strlen(named[k].ent) && !strncmp(e, named[k].ent, strlen(named[k].ent)))
				break;
		if (k < ARRAY_SIZE(named)) {
			sb_addc(out, named[k].c);
			i += strlen(named[k].ent);
			continue;
		}
		/* &#N; and &#xN; (libxml2 writes &#10; and &#9; in attributes): ASCII only */
		if (rest < 3 || *e != '#')
			return -1;
		int hex = e[1] == 'x';
		char *end;
		unsigned long c = strtoul(e + 1 + hex, &end, hex ? 16 : 10);

		if (end == e + 1 + hex || (size_t)(end - e) >= rest || *end != ';' || !c || c > 0x7f)
			return -1;
		sb_addc(out, (char)c);
		i += (size_t)(end - e) + 1;
	}
	return 0;
}

/* Skip a comment, processing instruction, CDATA or declaration at @p ("<!", "<?"). */
static const char *skip_special(const char *p)
{
	const char *end;

	if (!strncmp(p, "<!--", 4))
		end = strstr(p + 4, "-->");
	else if (!strncmp(p, "<![CDATA[", 9))
		end = strstr(p + 9, "]]>");
	else if (p[1] == '?')
		end = strstr(p + 2, "?>");
	else
		end = strchr(p, '>');
	return end ? end + 1 : NULL;
}

/*
 * The start tag at @p ('<' then a name): its name and attributes. The end
 * of the tag, or NULL when it is not well-formed.
 */
static const char *parse_tag(const char *p, const char **name, size_t *name_len,
			     struct attr *attrs, int *nr)
{
	p++;
	*name = p;
	*name_len = strcspn(p, " \t\r\n/>");
	p += *name_len;
	*nr = 0;
	for (;;) {
		p += strspn(p, " \t\r\n");
		if (*p == '>' || (p[0] == '/' && p[1] == '>'))
			return p;
		struct attr a = { .name = p, .name_len = strcspn(p, " \t\r\n=/>") };

		if (!a.name_len)
			return NULL;
		p += a.name_len;
		p += strspn(p, " \t\r\n");
		if (*p++ != '=')
			return NULL;
		p += strspn(p, " \t\r\n");
		char q = *p++;
		if (q != '"' && q != '\'')
			return NULL;
		const char *end = strchr(p, q);
		if (!end || memchr(p, '<', (size_t)(end - p)))
			return NULL;
		a.value = p;
		a.value_len = (size_t)(end - p);
		p = end + 1;
		if (*nr < MAX_ATTRS)
			attrs[(*nr)++] = a;
	}
}

static const struct attr *attr_get(const struct attr *attrs, int nr, const char *name)
{
	for (int i = 0; i < nr; i++)
		if (attrs[i].name_len == strlen(name) && !strncmp(attrs[i].name, name, attrs[i].name_len))
			return &attrs[i];
	return NULL;
}

static int attr_is(const struct attr *a, const char *value)
{
	return a && a->value_len == strlen(value) && !strncmp(a->value, value, a->value_len);
}

/* Is the start tag @name with @attrs our owner element, in our namespace? */
static int is_owner(const char *name, size_t len, const struct attr *attrs, int nr)
{
	const char *colon = memchr(name, ':', len);
	char decl[64];

	if (!colon) {
		return len == 5 && !strncmp(name, "owner", 5) &&
		       attr_is(attr_get(attrs, nr, "xmlns"), DOMAIN_OWNER_NS);
	}
	if ((size_t)(name + len - colon - 1) != 5 || strncmp(colon + 1, "owner", 5) ||
	    (size_t)(colon - name) >= sizeof(decl) - 6)
		return 0;
	snprintf(decl, sizeof(decl), "xmlns:%.*s", (int)(colon - name), name);
	return attr_is(attr_get(attrs, nr, decl), DOMAIN_OWNER_NS);
}

/* Attribute @name as text of at most @len - 1 characters of @ok into @out; -1 if not. */
static int get_id(const struct attr *attrs, int nr, const char *name, const char *ok,
		  char *out, size_t len)
{
	const struct attr *a = attr_get(attrs, nr, name);

	if (!a || a->value_len >= len || strspn(a->value, ok) < a->value_len)
		return -1;
	memcpy(out, a->value, a->value_len);
	out[a->value_len] = '\0';
	return 0;
}

static int fill(const struct attr *attrs, int nr, struct domain_owner *o)
{
	char pid[24], start[24];
	const struct attr *st = attr_get(attrs, nr, "state");
	struct strbuf state = STRBUF_INIT;
	char *end;

	memset(o, 0, sizeof(*o));
	if (get_id(attrs, nr, "machine", HEX, o->machine, sizeof(o->machine)) ||
	    get_id(attrs, nr, "boot", HEX "-", o->boot, sizeof(o->boot)) ||
	    get_id(attrs, nr, "pidns", "0123456789", o->pidns, sizeof(o->pidns)) ||
	    get_id(attrs, nr, "pid", "0123456789", pid, sizeof(pid)) ||
	    get_id(attrs, nr, "start", "0123456789", start, sizeof(start)) || !*pid || !*start)
		return -1;
	errno = 0;
	o->pid = strtol(pid, &end, 10);
	if (errno || *end || o->pid <= 0)
		return -1;
	o->start = strtoull(start, &end, 10);
	if (errno || *end)
		return -1;
	if (st) {
		if (unescape(st->value, st->value_len, &state)) {
			sb_release(&state);
			return -1;
		}
		o->state = sb_detach(&state);
	}
	return 0;
}

int domain_owner_find(const char *xml, struct domain_owner *o)
{
	struct attr attrs[MAX_ATTRS];
	const char *p = xml, *name;
	size_t len;
	int nr;

	memset(o, 0, sizeof(*o));
	while (p && (p = strchr(p, '<'))) {
		if (p[1] == '!' || p[1] == '?') {
			p = skip_special(p);
			continue;
		}
		if (p[1] == '/') {
			p++;
			continue;
		}
		const char *end = parse_tag(p, &name, &len, attrs, &nr);

		if (!end)
			return -1;	/* not the XML libvirt writes: no guessing */
		if (is_owner(name, len, attrs, nr)) {
			if (!fill(attrs, nr, o))
				return 0;
			domain_owner_release(o);
			return -1;
		}
		p = end;
	}
	return -1;
}

enum domain_owner_verdict domain_owner_judge(const struct domain_owner *tag,
					     const struct domain_owner *self, int state_locked,
					     domain_owner_start_fn *start_of, struct strbuf *why)
{
	unsigned long long start;

	if (!tag) {
		sb_adds(why, "it carries no mglrulab owner tag");
		return OWNER_UNTAGGED;
	}
	if (!*self->machine || !*self->boot) {
		sb_adds(why, "this machine's machine-id or boot id cannot be read, so no tag can be "
			"told for ours");
		return OWNER_ELSEWHERE;
	}
	if (strcmp(tag->machine, self->machine)) {
		sb_addf(why, "it was started by mglrulab pid %ld on another machine (machine-id %s)",
			tag->pid, tag->machine);
		return OWNER_ELSEWHERE;
	}
	if (strcmp(tag->boot, self->boot)) {
		/* a clone of this machine shares its machine-id; only the boot tells them apart */
		sb_addf(why, "it was started by mglrulab pid %ld in another boot (boot id %s) of a "
			"machine with this machine-id", tag->pid, tag->boot);
		return OWNER_ELSEWHERE;
	}
	if (!strcmp(tag->pidns, self->pidns) && tag->pid == self->pid && tag->start == self->start) {
		sb_adds(why, "this process started it");
		return OWNER_LIVE;
	}
	if (state_locked && self->state && tag->state && !strcmp(tag->state, self->state)) {
		sb_addf(why, "its mglrulab (pid %ld) used this state folder, %s, which this process "
			"now holds locked", tag->pid, self->state);
		return OWNER_GONE;
	}
	if (!self->start) {
		sb_adds(why, "this process cannot read /proc, so no pid can be told dead");
		return OWNER_ELSEWHERE;
	}
	if (!*self->pidns || strcmp(tag->pidns, self->pidns)) {
		sb_addf(why, "it was started by mglrulab pid %ld in another PID namespace (%s)",
			tag->pid, tag->pidns);
		return OWNER_ELSEWHERE;
	}
	if (start_of(tag->pid, &start)) {
		sb_addf(why, "its mglrulab (pid %ld) is gone", tag->pid);
		return OWNER_GONE;
	}
	if (start != tag->start) {
		sb_addf(why, "its mglrulab (pid %ld) is gone: that pid is another process now",
			tag->pid);
		return OWNER_GONE;
	}
	sb_addf(why, "its mglrulab (pid %ld) still runs", tag->pid);
	return OWNER_LIVE;
}
