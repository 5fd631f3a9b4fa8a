// SPDX-License-Identifier: GPL-2.0
#include "lab_paths.h"
#include "fsutil.h"
#include "util.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

char *lab_exe_path(void)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n < 0)
		return NULL;
	if (n == 0) {
		errno = ENOENT;
		return NULL;
	}
	exe[n] = '\0';
	return xstrdup(exe);
}

char *lab_guest_bin_dir(void)
{
	const char *env = getenv("MGLRULAB_GUEST_BIN");
	char *exe, *dir, *bin;

	if (env && *env)
		return xstrdup(env);
	exe = lab_exe_path();
	if (!exe)
		return xstrdup(LAB_GUEST_BIN_SUBDIR);
	dir = path_dirname(exe);
	bin = path_join(dir, LAB_GUEST_BIN_SUBDIR);
	free(dir);
	free(exe);
	return bin;
}
