// SPDX-License-Identifier: GPL-2.0
/*
 * The run record's "counters": counters_delta_json()'s document read back
 * and summed over its phases into {group: {name: number}}, the shape the
 * report's counter results read (counters.h).
 *
 * A walk by key, and the one reader of that document: the names are the
 * guest's (vmstat names, tracepoints, mm-walk columns), so both sides are
 * string-keyed maps, built in counters.c and read here, next to their
 * writer, once per run (docs/layout.md lists this file with the codecs).
 * The writer's one lookup, a phase or a phase's member made the first
 * time (counters_doc_member()), is here too, beside the reader.
 */
#include "counters.h"
#include "util.h"

#include <stdlib.h>

json_t *counters_doc_member(json_t *o, const char *key)
{
	json_t *p = json_object_get(o, key);

	if (!p) {
		p = json_object();
		json_object_set_new(o, key, p);
	}
	return p;
}

/* @obj[@key] += @v; a name first seen keeps its place, as the report lists it. */
static void add_number(json_t *obj, const char *key, double v)
{
	json_t *old = json_object_get(obj, key);

	json_object_set_new(obj, key, json_real(v + (old ? json_number_value(old) : 0)));
}

/* Sum the mm-walk counters of every memcg per node: "node1.leaf_total". */
static void flatten_lru_gen(json_t *lru, json_t *out)
{
	json_t *memcgs = json_object_get(lru, "memcgs"), *m, *node;
	size_t i, j;

	json_array_foreach(memcgs, i, m) {
		json_array_foreach(json_object_get(m, "nodes"), j, node) {
			json_t *nid = json_object_get(node, "node");
			if (!json_is_integer(nid))
				continue;
			const char *key;
			json_t *v;
			json_object_foreach(json_object_get(node, "mm_walk"), key, v) {
				if (!json_is_number(v))
					continue;
				char *name = xasprintf("node%lld.%s", (long long)json_integer_value(nid), key);
				add_number(out, name, json_number_value(v));
				free(name);
			}
			json_t *added = json_object_get(node, "generations_added");
			if (json_is_number(added)) {
				char *name = xasprintf("node%lld.generations_added",
						       (long long)json_integer_value(nid));
				add_number(out, name, json_number_value(added));
				free(name);
			}
		}
	}
}

json_t *counters_flat_json(const json_t *delta)
{
	json_t *flat = json_object(), *vm = json_object(), *tp = json_object(), *lru = json_object();
	const char *phase, *key;
	json_t *ph, *v;

	json_object_foreach(json_object_get(delta, "phases"), phase, ph) {
		json_object_foreach(json_object_get(json_object_get(ph, "vmstat"), "events"), key, v)
			if (json_is_number(v))
				add_number(vm, key, json_number_value(v));
		json_object_foreach(json_object_get(ph, "tracepoints"), key, v) {
			json_t *count = json_object_get(v, "count");
			if (json_is_number(count))
				add_number(tp, key, json_number_value(count));
		}
		flatten_lru_gen(json_object_get(ph, "lru_gen"), lru);
	}
	json_object_set_new(flat, "vmstat", vm);
	json_object_set_new(flat, "tracepoints", tp);
	json_object_set_new(flat, "lru_gen", lru);
	return flat;
}
