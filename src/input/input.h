/*
 * input.h — the one opener and the one sniffer of every input.
 *
 *   struct input *in;
 *   if (input_open(&in, path, 0, &err)) die(err.buf);     // "-" = stdin
 *   if (input_format(in) != INPUT_FOLDED) {               // wrong kind of file
 *       input_hint(&err, in, INPUT_FOLDED, "svg"); die(err.buf);
 *   }
 *   while (!(rc = input_read(in, buf, sizeof buf, &n, &err)) && n) use(buf, n);
 *   input_close(in);
 *
 * An input is a byte source (input/source.h: plain, gzip, zstd with any
 * number of frames and pzstd's skippable frames, stdin, memory; the limit
 * gf_limits.input of base/limits.h, GPUFLAME_MAX_INPUT) plus:
 *   - a peek window: at open, the first INPUT_PEEK bytes after
 *     decompression (fewer for a shorter input) are read and kept; they are
 *     served again by input_read, so nothing is read twice and stdin is read
 *     once, as a stream (never whole into memory);
 *   - the sniffer's verdict on that window (input_format, input_sniff);
 *   - a whole-file view for plain regular files (input_map, mmap);
 *   - a second pass over a regular file (input_reopen: the file is opened
 *     again; pipes cannot be).
 *
 * The sniffer (input_sniff) decides from the first decompressed bytes:
 *   INPUT_TRACE        a Kineto / Chrome trace: after an optional UTF-8 byte
 *                      order mark and JSON blanks, '{' then a key ('"') or
 *                      '}', or '[' then an event ('{') or ']' (an array of
 *                      events); a window that ends there counts too
 *   INPUT_SUMMARY      a gpuflame summary (ranks/summary.h): an object whose
 *                      first member is "schema": "gpuflame.summary/..." (read
 *                      by report --from-summaries)
 *   INPUT_SPEEDSCOPE   a speedscope JSON file: an object whose window holds
 *                      "$schema" and "speedscope" (read by stacks/import.h)
 *   INPUT_PYSPY_CHROME py-spy's --format chrometrace: an array of events whose
 *                      window holds "cat":"py-spy" (read by stacks/import.h)
 *   INPUT_PERF_SCRIPT  perf script text: the first line that is not blank or
 *                      '#' has a "<seconds>.<decimals>:" token or ends in an
 *                      event name ("cycles:") after a blank, and the next
 *                      line starts with a blank (or, after an event name, at
 *                      once) then a hex address (read by
 *                      stacks/import.h)
 *   INPUT_PPROF        a pprof protobuf (gzip'd as pprof writes it, or not):
 *                      field 1 (sample_type, 0x0a), a length, then 0x08
 *                      (named only)
 *   INPUT_NSYS_SQLITE  an SQLite database ("SQLite format 3\0": what nsys
 *                      export --type sqlite writes) (named only)
 *   INPUT_FOLDED       everything else, empty input included: the folded
 *                      reader then gives its usual errors
 *
 * Layer: input (base only). Never prints; errors are one line in err.
 */
#ifndef GF_INPUT_H
#define GF_INPUT_H

#include "base/gf.h"
#include "base/sbuf.h"

/* Bytes sniffed (and kept) at open. */
#define INPUT_PEEK 4096

enum input_format {
	INPUT_FOLDED = 0,
	INPUT_TRACE,
	INPUT_SPEEDSCOPE,
	INPUT_PERF_SCRIPT,
	INPUT_PPROF,
	INPUT_NSYS_SQLITE,
	INPUT_SUMMARY,
	INPUT_PYSPY_CHROME,
	INPUT_NFORMATS,
};

struct input;

/*
 * Opens path ("-" = stdin), detects its compression and reads the peek
 * window. threads as source_open (1: inflate on the caller's thread; 0 or 2:
 * on a second thread). @return GF_OK; GF_EINPUT ("'x': cannot open: No such
 * file or directory", "'x': is a directory", a corrupt or truncated
 * compressed start); GF_EINTERNAL for the GPUFLAME_MAX_INPUT limit.
 */
int input_open(struct input **out, const char *path, unsigned threads, struct sbuf *err);

/* Same over memory buf[0..len) (not copied: it must outlive the input;
 * compressed data is inflated), named name in messages. */
int input_open_mem(struct input **out, const void *buf, size_t len, const char *name, struct sbuf *err);

/* Same over buf[0..len) (malloc'ed: input_close frees it, also when the
 * open fails), with the path and display name of the input it stands for
 * (an import's folded text keeps its file's name in messages) and the format
 * given, not sniffed. */
int input_open_owned(struct input **out, void *buf, size_t len, const char *path, const char *name,
		     int format, struct sbuf *err);

/*
 * An input standing for an object its maker built (an importer's call
 * tree, whose folded text may be far larger than the tree: a profile N
 * frames deep is N stacks of up to N frames). head[0..nhead) (the text's
 * header line, at most INPUT_PEEK bytes) is the peek window; the rest of
 * the text is made by ops->text(obj, out, err) only when a reader reads
 * past the head. A reader that knows the object takes it whole instead:
 * input_obj(in, kind) (NULL for another input, another kind, or once
 * bytes past the head were read), then input_obj_taken(in) (the input is
 * then at its end). input_close calls ops->release(obj), on a failed open
 * too. The path and name are those of the input it stands for.
 */
struct input_obj_ops {
	const char *kind; /* "ftree" */
	int (*text)(void *obj, struct sbuf *out, struct sbuf *err);
	void (*release)(void *obj);
};
int input_open_obj(struct input **out, void *obj, const struct input_obj_ops *ops, const char *head, size_t nhead,
		   const char *path, const char *name, int format, struct sbuf *err);
void *input_obj(const struct input *in, const char *kind);
void input_obj_taken(struct input *in);

/*
 * Reads up to cap decompressed bytes (the peek window first); *n = 0 at the
 * end. @return as source_read: GF_OK, GF_EINPUT (read error, corrupt or
 * truncated data, trailing garbage) or GF_EINTERNAL (GPUFLAME_MAX_INPUT).
 */
int input_read(struct input *in, void *dst, size_t cap, size_t *n, struct sbuf *err);

/* enum input_format of the input (the sniffer on the peek window). */
int input_format(const struct input *in);
/* The peek window: the first *n (<= INPUT_PEEK) decompressed bytes. */
const char *input_peek(const struct input *in, size_t *n);
/* Display name: the path, or "<stdin>" for "-"; valid until input_close
 * (input_reopen keeps it). */
const char *input_name(const struct input *in);
/* The path as given ("-" for stdin; the name for memory input). */
const char *input_path(const struct input *in);
bool input_is_stdin(const struct input *in);
/* enum source_kind: SOURCE_PLAIN, SOURCE_GZIP or SOURCE_ZSTD. */
int input_compression(const struct input *in);
/* Size of the file as stored (compressed), 0 when unknown (stdin, pipes). */
uint64_t input_file_size(const struct input *in);

/*
 * A read-only view of the whole input, for a plain (uncompressed) regular
 * file from which input_read has taken nothing yet: *data[0..*len) is the
 * file from byte 0, followed by at least one NUL byte. Valid until
 * input_close or input_reopen; the file must not shrink meanwhile (the
 * caller arms base/mapguard). Pages are faulted in ahead (populated).
 * @return false when not possible (compressed data, stdin, a pipe, memory,
 * an empty file, bytes already read): the caller uses input_read.
 */
bool input_map(struct input *in, const char **data, size_t *len);

/* True once input_map gave a view (it lives until input_close). */
bool input_mapped(const struct input *in);

/* True when input_reopen can start the input again: a regular file,
 * compressed or not, named or stdin redirected from one (it is read again
 * from byte 0); not a pipe, a device or memory. */
bool input_can_reopen(const struct input *in);
/* Starts the input again at byte 0 (the file is opened anew, so a
 * compressed file is inflated again). @return GF_OK, GF_EINPUT ("'x':
 * cannot be read twice (stdin or a pipe)", or an open error) or
 * GF_EINTERNAL. After an error only input_close may follow. */
int input_reopen(struct input *in, struct sbuf *err);

/*
 * Hands the byte source over to a reader that takes a struct source (the
 * trace reader): what input_read has not returned yet (the peek window, for
 * an input read by nobody) is put back in front of it, so the reader sees
 * the input from its first byte (stdin included: nothing is read twice).
 * The caller closes the source with source_close; in keeps its name and
 * format and is then only for input_close. NULL when in holds no source
 * (after a failed input_reopen, or taken already).
 */
struct source;
struct source *input_take_source(struct input *in);

/* Closes the file, frees in (NULL ok). */
void input_close(struct input *in);

/* The sniffer: enum input_format of data starting with b[0..n) (after
 * decompression). n may be anything, 0 included; the decision is the same
 * as input_format's for an input whose first bytes are these. */
int input_sniff(const void *b, size_t n);

/* "a PyTorch profiler trace", "folded stacks", "a speedscope profile",
 * "perf script output", "a pprof profile", "an SQLite database (an Nsight
 * Systems export?)". */
const char *input_format_name(int format);
/* Whether a format is read (traces, folded stacks, speedscope, perf
 * script), or only named in the one-line hint (pprof, SQLite): --version
 * lists both from here. */
bool input_format_read(int format);

/*
 * The one-line message for an input of the wrong kind, into err (cleared
 * first): in is of format input_format(in), the command cmd wanted `want`
 * (INPUT_FOLDED or INPUT_TRACE). Names the command to run, e.g.
 *   'trace.json.gz' is a PyTorch profiler trace, not folded stacks: run
 *   'gpuflame fold trace.json.gz | gpuflame svg'
 *   'x.folded' is folded stacks, not a PyTorch profiler trace: run
 *   'gpuflame svg x.folded' (or top, merge, norm, diff)
 *   'p.speedscope.json' is a speedscope profile, not a PyTorch profiler
 *   trace: run 'gpuflame svg p.speedscope.json' (or fold, top, merge, norm, diff)
 *   'p.pb.gz' is a pprof profile, not folded stacks; gpuflame cannot read
 *   it yet: convert it to folded stacks
 * The path in the command is shell-quoted when it needs to be ("-" is
 * dropped: the command reads stdin). @return GF_EINPUT.
 */
int input_hint(struct sbuf *err, const struct input *in, int want, const char *cmd);
/* Same from a format and a path ("-" = stdin). */
int input_hint_for(struct sbuf *err, const char *path, int got, int want, const char *cmd);


/*
 * For a reader that failed (the trace reader): is the input plainly of
 * another kind than want? Decided over its peek window, so it works for
 * stdin too, and after input_take_source. For want = INPUT_TRACE, "folded
 * stacks" needs a first stack line that looks like one ("frames count").
 * The caller then writes the hint (input_hint).
 */
bool input_plainly_other(const struct input *in, int want);

/* For a reader that takes both kinds (diff, syncs): rather a trace than
 * folded stacks? The sniffer says trace; or the input is not plainly folded
 * stacks and opens like JSON ('{' or '[' after a BOM and blanks) or is named
 * .json, .json.gz, .json.zst, so that a broken trace reaches the trace
 * reader, which names its fault. False for the other formats. */
bool input_trace_likely(const struct input *in);

#endif
