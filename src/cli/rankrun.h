/*
 * rankrun.h — one trace reduced to its summary (ranks/summary.h), and many
 * traces on N threads: what `gpuflame summarise` and `gpuflame report
 * TRACE...` (several traces) share, so both make the same documents.
 *
 *   struct rankrun_opts ro = { &tropts, NULL, -1, -1, true, 0, true };
 *   rankrun_all(files, n, jobs, &ro, &mem);   // dies on the first bad trace
 *
 * Each trace is loaded, analysed (the report with every part, and the page's
 * four graphs when flames), written as its summary and freed before the
 * thread takes the next: memory holds `jobs` models at once plus the
 * compressed summaries. The warnings of each trace are printed in input
 * order, and the error reported is the first trace's in input order (the
 * threads stop taking traces after one fails).
 *
 * Layer: cli.
 */
#ifndef GF_RANKRUN_H
#define GF_RANKRUN_H

#include "cli/tropts.h"
#include "ranks/ranks.h"

struct rankrun_opts {
	const struct tropts *o;   /* steps, marker, device, targets; o->threads for one trace */
	const char *run;          /* summarise --run, NULL */
	int64_t rank, world;      /* summarise --rank / --world-size, -1: the trace's */
	bool flames;              /* the page's graphs in the summary */
	unsigned read_threads;    /* cores for reading one trace (cli_threads) */
	bool progress;            /* progress lines on a terminal */
};

/* One trace into json (the document); its warnings into warn (lines).
 * @return GF_OK or an enum gf_err with one line in err. */
int rankrun_one(const char *file, const struct rankrun_opts *ro, struct sbuf *json, struct sbuf *warn,
		struct sbuf *err);

/* files[0..n) on min(jobs, n) threads into m (ranks_mem_init'ed by the
 * caller for n); dies (cli_die) on the first failed trace in input order. */
void rankrun_all(char **files, size_t n, unsigned jobs, const struct rankrun_opts *ro, struct ranks_mem *m);

/* The summaries of report --from-summaries (and diff of many ranks):
 * argv[first..argc), each a file or a folder whose *.summary.json,
 * *.summary.json.gz and *.summary.json.zst files are taken in name order;
 * "-" is standard input (also with no operand). *what names the inputs
 * for messages ("'dir'", NULL for files). Dies (exit 1) on a folder that
 * cannot be read or holds none. */
void rankrun_inputs(int argc, char **argv, int first, struct ranks_files *f, char **what);
void rankrun_inputs_free(struct ranks_files *f, char *what);

/* The cores of this machine (sysconf), at least 1. */
unsigned rankrun_cores(void);

#endif
