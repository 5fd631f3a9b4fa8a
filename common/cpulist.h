/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel's cpulist format, "0-3,8,10-11": what sysfs prints for CPUs
 * and nodes (/sys/devices/system/node/online, nodeN/cpulist) and what
 * guests/NAME.conf declares. One parser for the host (lab/guest/guest_conf.c)
 * and the guest programs (the runner, workloads/lib/topo.c), so that a list
 * the guest reports reads the same on both sides.
 *
 * Grammar: items separated by ',', each a number or a range "a-b" with
 * a <= b (no blanks inside an item, no signs); blanks (including sysfs's
 * trailing newline) around items are allowed; a string of blanks is the
 * empty list; a ',' must be followed by an item.
 *
 * Plain C without dependencies: compiled into mglrulab and into the static
 * guest programs.
 */
#ifndef LAB_CPULIST_H
#define LAB_CPULIST_H

#include "must_check.h"

/*
 * The next item of the list at *@s, every number below @limit: 1 with the
 * range in @lo..@hi and *@s moved past it, 0 at the end of the list, -1
 * when malformed. Start with *@s at the list's beginning.
 */
LAB_MUST_CHECK
int cpulist_next(const char **s, long limit, long *lo, long *hi);

/*
 * The whole list at @s as ids in @ids (in the order written): returns how
 * many, or -1 when malformed, a number is >= @limit or there are more than @max.
 */
LAB_MUST_CHECK
int cpulist_ids(const char *s, long limit, int *ids, int max);

#endif
