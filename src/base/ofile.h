/*
 * ofile.h — all-or-nothing output files.
 *
 * A named output is written to a new temporary file beside its target and
 * renamed over the target only by ofile_commit, so a failed run never leaves
 * a partial file and an existing file is untouched until the new one is
 * complete (git's lockfile idea). The rules (docs/cli.md states them):
 *
 *   - "-" or NULL means stdout, checked for write errors (ENOSPC, EPIPE,
 *     EBADF) at commit: "write failure on standard output: ...".
 *   - The temporary file is "<target>.tmp.XXXXXXXX" (random), created with
 *     O_CREAT|O_EXCL|O_NOFOLLOW, mode 0600, in the directory of the resolved
 *     target; a name planted there in advance (a symlink) is never opened.
 *   - A symbolic link is written through: the link stays, the file it names
 *     is replaced. A dangling link creates the file it names. A link in a
 *     world-writable sticky directory (/tmp) owned by neither us nor the
 *     directory's owner is refused (the kernel's protected_symlinks rule).
 *   - An existing file keeps its permission bits, less setuid/setgid (and
 *     its owner and group where we may set them); a file that is not
 *     writable is refused, as the shell's '>' would; a new file gets
 *     0666 & ~umask. ACLs, extended attributes and extra hard links are not
 *     carried over (the name gets a new file).
 *   - A path that is not a regular file (/dev/null, a FIFO, a socket, a
 *     terminal) or that names an open descriptor (/dev/stdout, /dev/fd/N,
 *     /proc/self/fd/N) is written in place, never renamed over.
 *   - Every temporary file in flight is registered: ofile_remove_temps
 *     (async-signal-safe) unlinks them all; it runs at exit() (so on any
 *     die or out-of-memory path) and the CLI calls it from its signal
 *     handlers (SIGINT, SIGTERM, SIGHUP, SIGPIPE).
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

#include "base/sbuf.h"

#include <stdio.h>

struct ofile {
	FILE *fp;
	char *path;   /* as given (for messages); NULL for stdout */
	char *target; /* the resolved file renamed over at commit; NULL when in place */
	char *tmp;    /* the temporary file; NULL for stdout or in place */
	unsigned mode; /* permission bits the target gets */
	long uid, gid; /* owner to keep (-1: none) */
	int slot;      /* index in the registry of temporary files, -1 for none */
};

/* @return GF_OK or GF_EOUTPUT with a message in err. */
int ofile_open(struct ofile *o, const char *path, struct sbuf *err);
/* Flushes, closes and renames into place. @return GF_OK or GF_EOUTPUT. */
int ofile_commit(struct ofile *o, struct sbuf *err);
/* Discards a named output (removes the temporary file); safe to call twice. */
void ofile_abort(struct ofile *o);

/* The message for a failed write to o (errno e): "write failure on standard
 * output: ..." or "cannot write 'path': ...". */
void ofile_write_error(const struct ofile *o, int e, struct sbuf *err);

/* Unlinks every registered temporary file. Async-signal-safe: only
 * unlink(2) on names that stay valid while registered. */
void ofile_remove_temps(void);

#endif
