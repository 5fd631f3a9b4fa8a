/* SPDX-License-Identifier: GPL-2.0 */
/* The watch's index page, <dir>/index.html: every series and its verdict. */
#ifndef LAB_WATCH_INDEX_H
#define LAB_WATCH_INDEX_H

#include "watch_db.h"

/* Write <dir>/index.html from the queue; 0, or -1 with @err. */
LAB_MUST_CHECK
int watch_index_write(struct watch_db *w, const char *dir, struct strbuf *err);

#endif
