// SPDX-License-Identifier: GPL-2.0
/*
 * A series' line of history's state file, decoded once
 * (history_state_series(), lab/history/history_state.c): what resume()
 * in history.c reads, typed, and what is wrong with a line named.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "history.h"

#define STATE(line) "{\"series\":{\"k\":" line "}}"

static int decode(const char *text, struct state_series *s, struct strbuf *why)
{
	json_t *j = json_loads(text, 0, NULL);
	int r;

	assert_non_null(j);
	sb_reset(why);
	r = history_state_series(j, "k", s, why);
	json_decref(j);
	return r;
}

static void test_good(void **state)
{
	struct state_series s;
	struct strbuf why = STRBUF_INIT;

	(void)state;
	assert_int_equal(decode(STATE("{\"sessions\":[\"a\",\"b\",\"c\"],\"values\":\"ff\","
				      "\"confirmed\":[{\"at\":1,\"p\":0.01},{\"at\":\"2\"},3]}"),
				&s, &why), 1);
	assert_int_equal(s.sessions.n, 3);
	assert_string_equal(s.sessions.v[2], "c");
	assert_string_equal(s.values, "ff");
	assert_int_equal(s.nconfirmed, 3);
	assert_int_equal(s.confirmed[0].at, 1);
	assert_true(s.confirmed[0].p == 0.01);
	/* of another type: -1 and NaN, which resume() refuses naming confirmed[i] */
	assert_int_equal(s.confirmed[1].at, -1);
	assert_true(isnan(s.confirmed[1].p));
	assert_int_equal(s.confirmed[2].at, -1);
	state_series_release(&s);
	/* no line for this series: nothing to resume, no error */
	assert_int_equal(decode("{\"series\":{\"other\":{}}}", &s, &why), 0);
	assert_int_equal(why.len, 0);
	sb_release(&why);
}

static void test_bad(void **state)
{
	struct state_series s;
	struct strbuf why = STRBUF_INIT;

	(void)state;
	assert_int_equal(decode(STATE("{\"sessions\":[\"a\"],\"confirmed\":[]}"), &s, &why), -1);
	assert_string_equal(sb_str(&why), "expected sessions, values and confirmed");
	assert_int_equal(decode(STATE("{\"sessions\":{},\"values\":\"f\",\"confirmed\":[]}"), &s,
				&why), -1);
	assert_string_equal(sb_str(&why), "expected sessions, values and confirmed");
	assert_int_equal(decode(STATE("{\"sessions\":[\"a\",7],\"values\":\"f\",\"confirmed\":[]}"),
				&s, &why), -1);
	assert_string_equal(sb_str(&why), "sessions[1]: expected a session id");
	assert_int_equal(s.sessions.n, 0);
	sb_release(&why);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_bad),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
