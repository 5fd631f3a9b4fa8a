/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Numbers from text, the same way on the host (lab.conf, options, guest
 * output) and in the guest programs (their --key=value options), so that a
 * value one side accepts the other does too.
 */
#ifndef COMMON_PARSE_NUM_H
#define COMMON_PARSE_NUM_H

#include "must_check.h"

/*
 * A whole decimal integer in [@min, @max]: no blanks, no trailing text, no
 * overflow. 0 with *@out set, or -1 with *@out untouched.
 */
LAB_MUST_CHECK
int parse_long(const char *s, long min, long max, long *out);

#endif
