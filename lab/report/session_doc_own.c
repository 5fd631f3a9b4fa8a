// SPDX-License-Identifier: GPL-2.0
/*
 * A struct session_doc that owns what it points to (session_doc.h, "Whose
 * strings"): read from a file, keeping the file's tree, or copied from a
 * document whose strings and JSON are someone else's temporaries. The
 * session keeps its session.json as this struct alone, so it has to own
 * its strings: a tree kept beside it only to hold them is the debt this
 * file removed (docs/layout.md, the walk of `run --ab`, step 5).
 */
#include "session_doc.h"
#include "escape.h"

#include <string.h>

int session_doc_load_file(const char *path, struct session_doc *d, struct strbuf *err)
{
	struct strbuf why = STRBUF_INIT;
	json_error_t jerr;
	json_t *j = json_load_file(path, 0, &jerr);

	session_doc_init(d);
	if (!j) {
		sb_addf(err, "%s: %s", path, jerr.text);
		return -1;
	}
	if (session_doc_decode(j, d, &why)) {
		sb_addf(err, "%s: %s", path, sb_str(&why));
		sb_release(&why);
		json_decref(j);
		return -1;
	}
	sb_release(&why);
	d->owned = j;
	return 0;
}

/* session_doc_keep() and _json(): the document's own keeper (session_doc.h). */
const char *session_doc_keep(struct session_doc *d, const char *s)
{
	return sdoc_keep_string(&d->strings, s);
}

const json_t *session_doc_keep_json(struct session_doc *d, json_t *j)
{
	return sdoc_keep_json(&d->json, j);
}

/* A deep copy of @j that @d keeps (NULL: NULL): nobody else's change reaches it. */
static const json_t *keep_json(struct session_doc *d, const json_t *j)
{
	json_t *copy;

	if (!j)
		return NULL;
	copy = json_deep_copy(j);
	if (!copy)
		die("out of memory");
	return session_doc_keep_json(d, copy);
}

static void keep_fields(struct session_doc *d, const struct sdoc_field *fields, void *base);

/* An SK_ARRAY or SK_MAP member: a new array of its elements, each element's strings kept. */
static void keep_array(struct session_doc *d, const struct sdoc_field *f, struct sdoc_array *a)
{
	char *v = a->n ? xcalloc(a->n, f->elem_size) : NULL;

	if (v)
		memcpy(v, a->v, a->n * f->elem_size);
	a->v = v;
	for (size_t i = 0; i < a->n; i++) {
		char *el = v + i * f->elem_size;

		/* an SK_MAP element begins with its key, a string of no row */
		if (f->kind == SK_MAP)
			*(const char **)el = session_doc_keep(d, *(const char **)el);
		keep_fields(d, f->sub, el);
	}
}

/* Every string, JSON member and array of @fields at @base replaced by a copy @d keeps. */
static void keep_fields(struct session_doc *d, const struct sdoc_field *fields, void *base)
{
	for (const struct sdoc_field *f = fields; f->key; f++) {
		void *p = (char *)base + f->offset;

		switch (f->kind) {
		case SK_STRING: case SK_STRING_OR_NULL: case SK_TEXT:
			*(const char **)p = session_doc_keep(d, *(const char **)p);
			break;
		case SK_JSON:
			*(const json_t **)p = keep_json(d, *(const json_t **)p);
			break;
		case SK_OBJECT:
			keep_fields(d, f->sub, p);
			break;
		case SK_ARRAY: case SK_MAP:
			keep_array(d, f, p);
			break;
		/* values; session_doc_fields[] has no SK_CODEC row (session_doc.h) */
		case SK_INT: case SK_INT_NUMBER: case SK_NUMBER: case SK_NUMBER_OR_NULL:
		case SK_BOOL: case SK_LONG: case SK_COUNT: case SK_FLAG: case SK_CODEC:
			break;
		}
	}
}

void session_doc_copy(struct session_doc *dst, const struct session_doc *src)
{
	*dst = *src;
	dst->owned = NULL;
	dst->strings = (struct strvec)STRVEC_INIT;
	dst->json = NULL;
	keep_fields(dst, session_doc_fields, dst);
}
