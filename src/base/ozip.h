/*
 * ozip.h — a streaming writer that compresses by the output's name: gzip for
 * a name ending ".gz", zstd for ".zst", plain otherwise (or forced). Used by
 * the exports (pprof is always gzip'd, perfetto by name) over an ofile's
 * FILE*, in bounded memory (one 64 KiB buffer and the codec's state).
 *
 *   struct ozip z;
 *   ozip_open(&z, fp, ozip_by_name(path));
 *   ozip_write(&z, buf, n);          // any number of times
 *   if (ozip_close(&z)) ... write error (errno kept) ...
 *
 * gzip is ISA-L's level 1 when the build has ISA-L (GF_HAVE_ISAL: several
 * times zlib's speed), else zlib's level 6; zstd is level 3. Errors are
 * sticky: after one, writes do nothing and ozip_close reports it.
 * Layer: base (zlib or ISA-L, libzstd).
 */
#ifndef GF_OZIP_H
#define GF_OZIP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum ozip_kind { OZIP_PLAIN = 0, OZIP_GZIP, OZIP_ZSTD };

struct ozip {
	FILE *fp;
	int kind;
	void *state;   /* z_stream or ZSTD_CStream */
	unsigned char *buf;
	bool failed;
	int err;       /* errno of the first failure (0 for a codec error) */
};

/* OZIP_GZIP for "*.gz", OZIP_ZSTD for "*.zst", else OZIP_PLAIN (NULL: plain). */
int ozip_by_name(const char *path);
/* @return 0, or -1 when the codec cannot start (out of memory). */
int ozip_open(struct ozip *z, FILE *fp, int kind);
void ozip_write(struct ozip *z, const void *p, size_t n);
/* Ends the stream (gzip trailer, zstd frame end) and frees the state; does
 * not close fp. @return 0, or -1 after any failure. */
int ozip_close(struct ozip *z);

#endif
