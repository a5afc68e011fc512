/*
 * info_out.h — the writers of `gpuflame info`: a trace summary (info.h) as
 * text for people or as the stable JSON schema of docs/trace-reader.md.
 *
 *   struct sbuf out = SBUF_INIT;
 *   for (size_t i = 0; i < nfiles; i++) {     // each loaded with info_load
 *           if (json) info_out_json(&out, i, name[i], &f[i]);
 *           else      info_out_text(&out, i, name[i], &f[i]);
 *   }
 *   if (json) info_out_json_end(&out);
 *
 * JSON: {"gpuflame_info": 1, "traces": [{"file": "t.json.gz", "events": 220, ...}, ...]}.
 * index is the trace's place in the list: the first opens the document
 * (JSON) and the others are separated from the one before (a ",\n" in
 * JSON, a blank line in text). Names from the trace (threads, categories,
 * ranges, devices, the file name) are escaped: JSON strings, or visible
 * escapes for a terminal (esc_term). Appends to b; never fails.
 *
 * Layer: trace/write.
 */
#ifndef GF_INFO_OUT_H
#define GF_INFO_OUT_H

#include "base/sbuf.h"
#include "trace/model/info.h"

void info_out_text(struct sbuf *b, size_t index, const char *file, const struct info_file *f);
void info_out_json(struct sbuf *b, size_t index, const char *file, const struct info_file *f);
/* Closes the JSON document after the last trace. */
void info_out_json_end(struct sbuf *b);

#endif
