/* SPDX-License-Identifier: GPL-2.0 */
/*
 * LAB_MUST_CHECK marks the declaration of a function that can fail: its
 * result says whether it worked (0 or -1, a descriptor or -1, NULL for a
 * pointer, an enum of outcomes) and the caller must act on it. The
 * compiler then rejects a call that drops the result (-Werror). Where
 * ignoring it is right, wrap the call in LAB_IGNORE() with a comment
 * saying why (GCC does not let a plain (void) cast drop such a result).
 *
 * Not for functions whose result may legitimately go unused: predicates,
 * lookups, names of enum values, allocators that cannot fail (xmalloc()
 * dies), or a status a caller may print and forget. The rule is in
 * lab/lib/util.h, with the error convention; it is here so that common/
 * (shared with the guest programs) can use it too.
 */
#ifndef LAB_MUST_CHECK_H
#define LAB_MUST_CHECK_H

#define LAB_MUST_CHECK __attribute__((warn_unused_result))
/* Drop a LAB_MUST_CHECK result on purpose; a comment beside it says why. */
#define LAB_IGNORE(call) ((void)!(call))

#endif
