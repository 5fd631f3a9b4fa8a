/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The attribution plugin's marks (guests/plugin/mglrulab_attr.c): each a
 * multi-byte NOP, nopl DISP(%rax,%rax,1), whose displacement no other code
 * uses. Without the plugin each is one instruction that does nothing; with
 * it, the instructions between an opening and a closing mark are one
 * window, and the unit marks in it count the workload's operations, so
 * the table is per operation. wl_snap_before() and wl_snap_after() open
 * and close the window around the measured phase; a workload puts
 * wl_mark_unit() in its loop, once per operation.
 */
#ifndef WL_ATTR_MARK_H
#define WL_ATTR_MARK_H

#define WL_MARK(disp) __asm__ volatile(".byte 0x0f, 0x1f, 0x84, 0x00\n\t.long " #disp ::: "memory")

static inline void wl_mark_open(void)
{
	WL_MARK(0x4d474c01);
}

static inline void wl_mark_close(void)
{
	WL_MARK(0x4d474c02);
}

static inline void wl_mark_unit(void)
{
	WL_MARK(0x4d474c03);
}

#endif
