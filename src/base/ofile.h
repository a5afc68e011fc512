/*
 * ofile.h — all-or-nothing output files.
 *
 * A named output is written to "<path>.tmp.<pid>" beside the target and
 * renamed over it only by ofile_commit, so a failed run never leaves a partial
 * file (git's lockfile idea). "-" or NULL means stdout, which is checked for
 * write errors (ENOSPC, EPIPE) at commit. A path that exists and is not a
 * regular file (/dev/null, a FIFO) is written in place, never renamed over.
 *
 *   struct ofile o;
 *   if (ofile_open(&o, path, &err)) die(err.buf);
 *   fputs("...", o.fp);
 *   if (ofile_commit(&o, &err)) die(err.buf);   // or ofile_abort(&o) on error
 *
 * Layer: base.
 */
#ifndef GF_OFILE_H
#define GF_OFILE_H

#include "sbuf.h"

#include <stdio.h>

struct ofile {
	FILE *fp;
	char *path; /* NULL for stdout */
	char *tmp;  /* NULL when writing stdout or a non-regular file in place */
};

/* @return GF_OK or GF_EOUTPUT with a message in err. */
int ofile_open(struct ofile *o, const char *path, struct sbuf *err);
/* Flushes, closes and renames into place. @return GF_OK or GF_EOUTPUT. */
int ofile_commit(struct ofile *o, struct sbuf *err);
/* Discards a named output (removes the temporary file); safe to call twice. */
void ofile_abort(struct ofile *o);

#endif
