/*
 * folded_out.h — write a call tree back as folded text.
 *
 * One line per node with a non-zero self weight, depth first in child order
 * (sorted by name after ftree_sort), "a;b;c W" or "a;b;c W0 W1" for a
 * differential tree. Weights are printed exactly (num_fmt at the tree's
 * scale). The metadata header comes first as "# gpuflame: k=v; k=v;" — it
 * ends in ';', never in a number, so flamegraph.pl and inferno ignore it.
 *
 * Layer: write.
 */
#ifndef GF_FOLDED_OUT_H
#define GF_FOLDED_OUT_H

#include "../model/tree.h"

#include <stdio.h>

/* Writes the header line for m (nothing when m is empty). */
void folded_write_meta(FILE *fp, const struct fmeta *m);
/* Appends one metadata value %-encoded (';', '%', blanks, control bytes). */
void folded_meta_escape(struct sbuf *b, const char *val);

/* Writes t (header included). @return 0, or -1 when fp has a write error. */
int folded_write(FILE *fp, const struct ftree *t);

#endif
