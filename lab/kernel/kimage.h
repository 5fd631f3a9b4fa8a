/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a built kernel image says about itself. The x86 boot protocol's
 * setup header carries a pointer to the kernel's version string
 * ("6.12.57 (root@host) #1 SMP ..."), so a report can name the release of
 * any cached bzImage without the build folder it came from.
 */
#ifndef LAB_KIMAGE_H
#define LAB_KIMAGE_H

/*
 * The release of the bzImage at @path ("6.12.57"), or NULL when the file
 * is not an x86 bzImage with a version string. Free it.
 */
char *kimage_release(const char *path);

#endif
