/*
 * merge_paths.h — tests: merge_inputs over file paths, as cmd_merge drives
 * it (inputs opened with input_open, a regular output file restarted by
 * truncating it, any other stream written once).
 */
#ifndef GF_TEST_MERGE_PATHS_H
#define GF_TEST_MERGE_PATHS_H

#include "input/input.h"
#include "stacks/ops/merge.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static bool mp_restart(void *ctx)
{
	FILE *fp = ctx;
	return !fflush(fp) && !fseeko(fp, 0, SEEK_SET) && !ftruncate(fileno(fp), 0);
}

static int merge_paths(const char *const *paths, size_t n, FILE *out, const struct merge_opts *o,
		       struct merge_stats *st, struct sbuf *err)
{
	struct input **in = calloc(n ? n : 1, sizeof *in);
	int rc = GF_OK;
	size_t k = 0;
	for (; k < n && !rc; k++)
		if ((rc = input_open(&in[k], paths[k], 1, err)))
			break;
	if (!rc) {
		struct stat sb;
		bool regular = fileno(out) >= 0 && !fstat(fileno(out), &sb) && S_ISREG(sb.st_mode);
		struct merge_sink sink = { out, regular ? mp_restart : NULL, out, false };
		rc = merge_inputs(in, n, &sink, o, st, err);
	}
	for (size_t i = 0; i < n; i++)
		input_close(in[i]);
	free(in);
	return rc;
}

#endif
