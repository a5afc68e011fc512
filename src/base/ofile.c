/* ofile.c — write to a temporary name, rename on success (see ofile.h). */
#include "ofile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int ofile_open(struct ofile *o, const char *path, struct sbuf *err)
{
	memset(o, 0, sizeof *o);
	if (!path || !strcmp(path, "-")) {
		o->fp = stdout;
		return GF_OK;
	}
	/* a device, FIFO or socket (/dev/null, a pipe, process substitution) is
	 * written in place: renaming over it would replace the node itself */
	struct stat sb;
	if (!stat(path, &sb) && !S_ISREG(sb.st_mode)) {
		FILE *fp = fopen(path, "wb");
		if (!fp) {
			sbuf_setf(err, "cannot open '%s': %s", path, strerror(errno));
			return GF_EOUTPUT;
		}
		o->fp = fp;
		o->path = gf_xstrdup(path);
		return GF_OK;
	}
	struct sbuf t = SBUF_INIT;
	sbuf_addf(&t, "%s.tmp.%ld", path, (long)getpid());
	FILE *fp = fopen(t.buf, "wb");
	if (!fp) {
		sbuf_setf(err, "cannot create '%s': %s", path, strerror(errno));
		sbuf_release(&t);
		return GF_EOUTPUT;
	}
	o->fp = fp;
	o->path = gf_xstrdup(path);
	o->tmp = sbuf_detach(&t, NULL);
	return GF_OK;
}

int ofile_commit(struct ofile *o, struct sbuf *err)
{
	if (!o->fp)
		return GF_OK;
	if (!o->path) {
		int bad = fflush(stdout) != 0 || ferror(stdout);
		o->fp = NULL;
		if (bad) {
			sbuf_setf(err, "write failure on standard output: %s", strerror(errno));
			return GF_EOUTPUT;
		}
		return GF_OK;
	}
	int bad = fflush(o->fp) != 0 || ferror(o->fp);
	int e = errno;
	if (fclose(o->fp) != 0 && !bad) {
		bad = 1;
		e = errno;
	}
	o->fp = NULL;
	if (!bad && o->tmp && rename(o->tmp, o->path) != 0) {
		bad = 1;
		e = errno;
	}
	if (bad) {
		sbuf_setf(err, "cannot write '%s': %s", o->path, strerror(e));
		if (o->tmp)
			unlink(o->tmp);
	}
	free(o->tmp);
	free(o->path);
	o->tmp = o->path = NULL;
	return bad ? GF_EOUTPUT : GF_OK;
}

void ofile_abort(struct ofile *o)
{
	if (o->path) {
		if (o->fp)
			fclose(o->fp);
		if (o->tmp)
			unlink(o->tmp);
		free(o->tmp);
		free(o->path);
	}
	o->fp = NULL;
	o->tmp = o->path = NULL;
}
