/*
 * source.h — a byte source over a plain, gzip or zstd file (or stdin).
 *
 *   struct source *s;
 *   if (source_open(&s, "trace.json.gz", 0, &err)) die(err.buf);
 *   for (;;) {
 *       size_t n;
 *       if (source_read(s, buf, sizeof buf, &n, &err)) die(err.buf);
 *       if (!n) break;                 // end of data
 *       use(buf, n);
 *   }
 *   source_close(s);
 *
 * The format is detected by magic bytes, never by the file name:
 * 1f 8b = gzip, 28 b5 2f fd = zstd, 5? 2a 4d 18 = zstd starting with a
 * skippable frame (pzstd's output); anything else is passed through
 * unchanged. "-" reads stdin.
 *   gzip (inflated with ISA-L when built with GF_HAVE_ISAL, else zlib), as
 *   gzip -d: concatenated members are read to the end; zero bytes after the
 *   last member up to the end of the file are padding and are ignored; any
 *   other byte there (zeros followed by data included) is an error naming its
 *   offset ("trailing data after the last gzip member").
 *   zstd, as zstd -d: any number of frames, skippable frames anywhere; bytes
 *   after the last frame that do not start a frame (zeros included) are an
 *   error naming their offset.
 * A compressed stream that ends before its end marker is an error naming the
 * compressed byte offset ("truncated gzip data at byte N").
 * Limit: an input may be at most gf_limits.input bytes (base/limits.h), as a
 * plain file or once decompressed; one byte more is GF_EINTERNAL with
 * "'x.zst': byte N (compressed byte M): zstd data decompressing to more than
 * N bytes (GPUFLAME_MAX_INPUT)" (a plain regular file is refused at open).
 *
 * Threads: with threads != 1, compressed input is inflated on a second thread
 * into a small ring of buffers while the caller parses the previous one, so
 * parse and inflate overlap (threads = 1 keeps everything on the caller's
 * thread). Plain files are always read directly.
 *
 * Layer: input (used through input/input.h by the folded readers; the
 * trace reader opens it directly). Never prints; errors are one line in err.
 */
#ifndef GF_SOURCE_H
#define GF_SOURCE_H

#include "base/gf.h"
#include "base/sbuf.h"

enum source_kind { SOURCE_PLAIN = 0, SOURCE_GZIP, SOURCE_ZSTD };

struct source;

/*
 * Opens path ("-" = stdin) and detects its format. name (for messages) is
 * path, or "<stdin>". @return GF_OK or GF_EINPUT ("'x': cannot open: ..."),
 * GF_EINTERNAL for a plain regular file larger than gf_limits.input.
 */
int source_open(struct source **out, const char *path, unsigned threads, struct sbuf *err);

/* Same over a memory buffer (not copied: it must outlive the source). */
int source_open_mem(struct source **out, const void *buf, size_t len, const char *name,
		    unsigned threads, struct sbuf *err);

/*
 * Reads up to cap decompressed bytes into dst; *n = 0 means end of data.
 * @return GF_OK, GF_EINPUT (read error, corrupt, truncated stream or
 * trailing data) or GF_EINTERNAL (more than gf_limits.input bytes).
 */
int source_read(struct source *s, void *dst, size_t cap, size_t *n, struct sbuf *err);

/* Puts b[0..n) back in front of what source_read returns next (bytes the
 * caller read and gives back: the input layer's peek window, see
 * input_take_source). They count against gf_limits.input once. */
void source_unread(struct source *s, const void *b, size_t n);

/* Tests: the first source_read returns at most `first` bytes, later ones at
 * most `chunk` (0 = no limit). */
void source_set_split(struct source *s, size_t first, size_t chunk);

/* enum source_kind of data starting with b[0..n) (its first 4 bytes decide:
 * gzip 1f 8b, zstd 28 b5 2f fd or a skippable frame 5? 2a 4d 18). */
int source_magic(const unsigned char *b, size_t n);
/* enum source_kind of the opened data. */
int source_kind(const struct source *s);
const char *source_kind_name(int kind);
/* Bytes consumed from the file so far (compressed size), and the file size
 * (0 when unknown: stdin, pipes). */
uint64_t source_file_pos(const struct source *s);
uint64_t source_file_size(const struct source *s);
/* True for a regular file (named, or stdin redirected from one), not a
 * pipe, a device or memory. */
bool source_is_regular(const struct source *s);
/* The display name used in messages. */
const char *source_name(const struct source *s);

/*
 * A read-only view of the whole file instead of source_read, for plain
 * regular files of at least min_size bytes (not stdin, not memory):
 * *data[0..*len) is the file from byte 0 (whatever source_read took before:
 * input.c maps after its peek window), followed by at least pad readable
 * NUL bytes. Valid until source_close. @return false when not possible (the
 * caller then uses source_read). The file must not shrink while mapped.
 */
bool source_map(struct source *s, size_t pad, size_t min_size, const char **data, size_t *len);

/* With a view: the bytes before upto will not be read again (their pages
 * are dropped from memory, so RSS stays bounded), and the next `ahead`
 * bytes are about to be read (their pages are mapped in one call). */
void source_map_done(struct source *s, size_t upto, size_t ahead);

/* Stops the inflate thread (if any), closes the file, frees s (NULL ok). */
void source_close(struct source *s);

#endif
