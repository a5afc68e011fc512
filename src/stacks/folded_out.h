/*
 * folded_out.h — write a call tree back as folded text.
 *
 * One line per node with a non-zero self weight, depth first in child order
 * (sorted by name after ftree_sort), "a;b;c W" or "a;b;c W0 W1" for a
 * differential tree. Weights are printed exactly (num_fmt at the tree's
 * scale). The metadata header comes first as "# gpuflame: k=v; k=v;" — it
 * ends in ';', never in a number, so flamegraph.pl and inferno ignore it.
 *
 * Round trip (docs/diff.md): whatever a gpuflame command writes, the folded
 * reader (stacks/folded.h) reads back to the same tree. Every stack line goes
 * through folded_put_frame / folded_end_stack:
 *  - bytes a frame name cannot hold in the format become visible stand-ins:
 *    ';' -> ':', LF and NUL -> ' ' (fold's rule); a first frame that would
 *    make the line a comment ("# x", "#<TAB>x") starts with "#_" instead;
 *    every other byte (blanks, TAB, CR, invalid UTF-8) is kept;
 *  - a ';' is appended to the stack when the reader would otherwise lose or
 *    change the last frame: the last frame is empty ("a;" + "" -> "a;;", the
 *    stack of one empty frame -> ";"), ends in a blank, or the stack is "#"
 *    (a comment); and, on the first stack line of a one-count file only (the
 *    line that decides how many counts every line has), when the last frame
 *    ends in a blank and a number ("x 12" -> "x 12; 3", which would read as
 *    two counts; on later lines "x 12 3" reads as the stack "x 12"). The
 *    reader drops one trailing ';' (flamegraph.pl's rule), so the frames read
 *    back are the frames written.
 *
 * Terminal (the writers' `terminal` argument: the caller knows where its
 * output goes): on a terminal each line is shown through esc_term (control
 * bytes as \xNN, invalid UTF-8 as U+FFFD), so escape sequences in names
 * never reach the terminal raw. Files and pipes get the bytes unchanged.
 *
 * Layer: stacks.
 */
#ifndef GF_FOLDED_OUT_H
#define GF_FOLDED_OUT_H

#include "stacks/ftree.h"

#include <stdio.h>

/* Writes the header line for m (nothing when m is empty). */
void folded_write_meta(FILE *fp, const struct ftree_meta *m, bool terminal);
/* Appends one metadata value %-encoded (';', '%', blanks, control bytes). */
void folded_meta_escape(struct sbuf *b, const char *val);

/* Appends frame name s[0..n) as the writer writes it (first: the root's
 * child, where "# " would start a comment). */
void folded_put_frame(struct sbuf *b, const char *s, size_t n, bool first);
/* The stack text is b[start..b->len): appends ';' when the reader would not
 * read back the same frames without it (see above); decides_cols: this is
 * the first stack line of a one-count output. */
void folded_end_stack(struct sbuf *b, size_t start, bool decides_cols);
bool folded_stack_end_needed(const char *s, size_t n, bool decides_cols);
/* Appends the stack of node (root's child first) with folded_put_frame;
 * the caller then ends it with folded_end_stack. */
void folded_put_path(struct sbuf *b, const struct ftree *t, uint32_t node);

/* Writes one line s[0..n) (with its '\n') to fp: raw, or escaped for a
 * terminal. */
void folded_out_line(FILE *fp, const char *s, size_t n, bool terminal);

/* Writes t (header included). @return 0, or -1 when fp has a write error. */
int folded_write(FILE *fp, const struct ftree *t, bool terminal);

#endif
