// SPDX-License-Identifier: GPL-2.0
/*
 * The state file of mglrulab history (history.h): the change points
 * confirmed in each series, so that the next history searches only what
 * came after them. Sealed (history_seal.h), one series a line:
 *
 *   {"settings": {alpha, permutations, gross, min_nights, seed, by_name}, "nonce"}
 *   {"key", "sessions": [id, ...], "values": SHA-256, "confirmed": [{at, p[, gross]}]}
 *
 * It makes history faster and must never change what it says: resume()
 * in history.c uses a series' line only when the reports show the same
 * sessions with the same runs.
 */
#include "history.h"
#include "escape.h"
#include "history_seal.h"
#include "xjson.h"

#include <math.h>
#include <string.h>

static json_t *settings_json(const struct history_opts *o)
{
	return xjson_pack("{s:f,s:i,s:f,s:i,s:I,s:b}", "alpha", o->cp.alpha,
			 "permutations", (json_int_t)o->cp.permutations, "gross", o->cp.gross,
			 "min_nights", (json_int_t)o->cp.min_nights,
			 "seed", (json_int_t)o->cp.seed, "by_name", o->by_name);
}

/* A series key ("context\nline\nworkload\nmetric") on one line, for messages. */
static char *key_label(const char *key)
{
	struct strbuf sb = STRBUF_INIT;

	for (const char *c = key; *c; c++)
		if (*c == '\n')
			sb_adds(&sb, " / ");
		else
			sb_addf(&sb, "%c", *c);
	return sb_detach(&sb);
}

static void reject(struct history *h, const char *key, const char *why)
{
	if (!h->state_invalid++) {
		char *label = key_label(key);

		h->state_invalid_first = xasprintf("%s: %s", label, why);
		free(label);
	}
}

void history_state_reject(struct history *h, const struct history_series *s, const char *fmt, ...)
{
	struct strbuf why = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	sb_vaddf(&why, fmt, ap);
	va_end(ap);
	debug("%s: %s: %s", h->state_path ? h->state_path : "history state", s->key, sb_str(&why));
	reject(h, s->key, sb_str(&why));
	sb_release(&why);
}

void state_series_release(struct state_series *s)
{
	strvec_clear(&s->sessions);
	free(s->values);
	free(s->confirmed);
	memset(s, 0, sizeof(*s));
}

int history_state_series(const json_t *state, const char *key, struct state_series *out,
			 struct strbuf *why)
{
	const json_t *st = json_object_get(json_object_get(state, "series"), key), *e;
	const json_t *ids = json_object_get(st, "sessions"), *conf = json_object_get(st, "confirmed");
	const json_t *vals = json_object_get(st, "values");
	size_t i;

	memset(out, 0, sizeof(*out));
	if (!st)
		return 0;
	if (!json_is_array(ids) || !json_is_array(conf) || !json_is_string(vals)) {
		sb_adds(why, "expected sessions, values and confirmed");
		return -1;
	}
	json_array_foreach(ids, i, e) {
		if (!json_is_string(e)) {
			sb_addf(why, "sessions[%zu]: expected a session id", i);
			state_series_release(out);
			return -1;
		}
		strvec_push(&out->sessions, json_string_value(e));
	}
	out->values = xstrdup(json_string_value(vals));
	out->confirmed = xcalloc(json_array_size(conf) + 1, sizeof(*out->confirmed));
	json_array_foreach(conf, i, e) {
		const json_t *ja = json_object_get(e, "at"), *jp = json_object_get(e, "p");
		const json_t *jg = json_object_get(e, "gross");
		struct state_cp *cp = &out->confirmed[out->nconfirmed++];

		cp->at = json_is_integer(ja) ? (long long)json_integer_value(ja) : -1;
		cp->p = json_is_number(jp) ? json_number_value(jp) : NAN;
		/* Absent: found by ranks; anything but a number: NAN, refused. */
		cp->gross = !jg ? 0 : json_is_number(jg) ? json_number_value(jg) : NAN;
	}
	return 1;
}

/*
 * Each night's count of runs and their values' bits, in order: the runs
 * the change points were found in, whatever file or cache they came from.
 */
void history_state_values(const struct history_series *s, size_t k, char hex[SHA256_HEX_LEN + 1])
{
	struct sha256 c;
	size_t done = 0;

	sha256_init(&c);
	for (size_t i = 0; i < s->nn && done < k; i++) {
		const struct history_night *n = &s->nights[i];
		unsigned char b[8];
		uint64_t x;

		if (!n->n)
			continue;
		x = n->n;
		for (size_t j = 0; j <= n->n; j++) {
			if (j)
				memcpy(&x, &n->v[j - 1], sizeof(x));
			for (int byte = 0; byte < 8; byte++)
				b[byte] = (unsigned char)(x >> (8 * byte));
			sha256_update(&c, b, sizeof(b));
		}
		done++;
	}
	sha256_final_hex(&c, hex);
}

json_t *history_state_load(struct history *h, const char *path)
{
	struct seal_reader r;
	json_t *hd, *want, *series = NULL, *e, *u;
	const char *why;

	free(h->state_path);
	h->state_path = xstrdup(path);
	if (seal_open(&r, path, HISTORY_STATE_SCHEMA, "{", "searching every series from its "
		      "first night", &hd) <= 0)
		goto out;
	want = settings_json(&h->o);
	if (!json_equal(json_object_get(hd, "settings"), want)) {
		debug("%s: other settings; searching every series from its first night", path);
	} else {
		series = json_object();
		while (seal_next(&r, &e, &why, &u)) {
			const char *key = json_string_value(json_object_get(e ? e : u, "key"));
			char line[32];

			if (e && (!key || json_object_get(series, key)))
				why = key ? "a second line for this series" : "expected a key";
			snprintf(line, sizeof(line), "line %zu", r.line);
			if (why && !e) {
				/* The line as a whole is not this history's: none of its fields is used. */
				char *all = xasprintf("sessions, values and confirmed: %s", why);

				reject(h, key ? key : line, all);
				free(all);
			} else if (why) {
				reject(h, key ? key : line, why);
			}
			else
				json_object_set(series, key, e);
			json_decref(e);
			json_decref(u);
		}
	}
	json_decref(want);
out:
	json_decref(hd);
	seal_close(&r);
	return series ? xjson_pack("{s:o}", "series", series) : NULL;
}

/* A confirmed change point at compact night @k; "gross" only for a gross step. */
static json_t *confirmed_json(const struct history_seg *c, size_t k)
{
	json_t *o = xjson_pack("{s:I,s:f}", "at", (json_int_t)k,
			       "p", isfinite(c->p) ? c->p : 1.0);

	if (c->gross > 0)
		json_object_set_new(o, "gross", json_real(c->gross));
	return o;
}

json_t *history_state_json(const struct history *h)
{
	json_t *series = json_object();

	for (size_t i = 0; i < h->nseries; i++) {
		const struct history_series *s = &h->series[i];
		json_t *ids = json_array(), *conf = json_array();
		char hex[SHA256_HEX_LEN + 1];
		size_t k = 0;

		for (size_t j = 0, c = 0; j < s->nn; j++) {
			if (!s->nights[j].n)
				continue;
			for (; c < s->nseg && s->seg[c].at == j; c++)
				if (!s->seg[c].tentative)
					json_array_append_new(conf, confirmed_json(&s->seg[c], k));
			json_array_append_new(ids, json_string_lossy(h->s[s->nights[j].session].id));
			k++;
		}
		history_state_values(s, k, hex);
		json_object_set_new(series, s->key, xjson_pack("{s:o,s:s,s:o}", "sessions", ids,
							       "values", hex, "confirmed", conf));
	}
	return xjson_pack("{s:s,s:o,s:o}", "schema", HISTORY_STATE_SCHEMA, "settings",
			 settings_json(&h->o), "series", series);
}

int history_state_save(const struct history *h, const char *path)
{
	json_t *st = history_state_json(h), *e;
	json_t *hd = xjson_pack("{s:O}", "settings", json_object_get(st, "settings"));
	struct seal_writer w;
	const char *key;
	int r = 0;

	if (!seal_begin(&w, HISTORY_STATE_SCHEMA, hd)) {
		json_object_foreach(json_object_get(st, "series"), key, e) {
			json_t *line = xjson_pack("{s:s,s:O,s:O,s:O}", "key", key, "sessions",
						  json_object_get(e, "sessions"), "values",
						  json_object_get(e, "values"), "confirmed",
						  json_object_get(e, "confirmed"));

			seal_add(&w, line);
			json_decref(line);
		}
		r = seal_write(&w, path);
	}
	json_decref(hd);
	json_decref(st);
	return r;
}
