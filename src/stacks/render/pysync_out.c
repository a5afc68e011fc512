/* pysync_out.c — py-spy hidden-sync table writer (see pysync_out.h). */
#include "stacks/render/pysync_out.h"

#include "base/names.h"
#include "base/num.h"
#include "base/escape.h"
#include "base/jsonw.h"
#include "base/rtable.h"

#include <string.h>

const char *pysync_out_fix(const char *s)
{
	switch (names_sync_kind(s, strlen(s))) { /* the one classifier (base/names.h) */
	case NAMES_SYNC_DEVICE:
		return "explicit device-wide sync (torch.cuda.synchronize()): keep it out of the "
		       "step loop, or wait on one event instead";
	case NAMES_SYNC_EVENT:
		return "host waits on an event: poll it with event.query() or hand the wait to "
		       "another thread so the host keeps launching";
	case NAMES_SYNC_ASYNC_COPY:
		return "copy to pageable host memory blocks: copy into pinned memory with "
		       "non_blocking=True and read it one step later";
	case NAMES_SYNC_COPY:
		return "blocking copy (.cpu(), .tolist(), .numpy(), torch.tensor(list) to GPU): keep "
		       "the data on the device, or copy asynchronously into pinned memory one step behind";
	default:
		break;
	}
	return "a tensor value read on the host (.item(), .cpu(), .tolist(), `if t:`): keep "
	       "values on the device and copy them asynchronously into pinned memory one step "
	       "behind; move stop checks and detokenisation to another thread";
}

static void pct(struct sbuf *b, double x)
{
	sbuf_addf(b, "%.1f%%", 100.0 * x);
}

static void samples(struct sbuf *b, int64_t w, unsigned scale)
{
	num_fmt(b, w, scale);
}

static void text_or_md(const struct pysync_result *r, const char *fname, bool md, struct sbuf *out)
{
	struct sbuf s = SBUF_INIT;
	const char *who = r->sampler && *r->sampler ? r->sampler : "py-spy";
	if (md) {
		sbuf_addstr(out, "## Hidden syncs (");
		esc_md(out, who, strlen(who));
		sbuf_addstr(out, " samples)\n\n");
	}
	if (md)
		esc_md(out, who, strlen(who));
	else
		esc_term(out, who, strlen(who));
	sbuf_addstr(out, " samples: ");
	samples(out, r->total, r->scale);
	sbuf_addstr(out, " in '");
	if (md)
		esc_md(out, fname, strlen(fname));
	else
		esc_term(out, fname, strlen(fname));
	sbuf_addstr(out, "', ");
	samples(out, r->sync, r->scale);
	sbuf_addstr(out, " in blocking CUDA/HIP calls (");
	pct(out, r->sync_share);
	sbuf_addstr(out, ", 95% CI ");
	sbuf_addf(out, "%.1f-%.1f%%)\n\n", 100 * r->sync_ci_lo, 100 * r->sync_ci_hi);
	if (!r->nsites) {
		sbuf_addstr(out, "No stack contains a blocking CUDA/HIP call.\n");
		return;
	}
	struct rtable t;
	rtable_init(&t, 6);
	rtable_head(&t, 0, "#", RT_RIGHT);
	rtable_head(&t, 1, "samples", RT_RIGHT);
	rtable_head(&t, 2, "share", RT_RIGHT);
	rtable_head(&t, 3, "95% CI", RT_RIGHT);
	rtable_head(&t, 4, "site (nearest Python frame)", RT_LEFT);
	rtable_head(&t, 5, "sync call", RT_LEFT);
	t.maxw[4] = 44;
	t.maxw[5] = 34;
	for (size_t i = 0; i < r->nsites; i++) {
		const struct pysync_site *p = &r->sites[i];
		rtable_cellf(&t, "%zu", i + 1);
		sbuf_reset(&s);
		samples(&s, p->samples, r->scale);
		rtable_cell(&t, s.buf);
		sbuf_reset(&s);
		pct(&s, p->share);
		if (p->noise)
			sbuf_addstr(&s, " noise");
		rtable_cell(&t, s.buf);
		rtable_cellf(&t, "%.1f-%.1f%%", 100 * p->ci_lo, 100 * p->ci_hi);
		rtable_cell(&t, p->site);
		rtable_cell(&t, p->symbols);
	}
	if (md)
		rtable_md(&t, out);
	else
		rtable_text(&t, out, 2);
	rtable_release(&t);
	sbuf_addstr(out, md ? "\nFixes:\n\n" : "\nFixes:\n");
	for (size_t i = 0; i < r->nsites; i++) {
		const struct pysync_site *p = &r->sites[i];
		if (p->noise)
			continue;
		sbuf_reset(&s);
		const char *comma = strchr(p->symbols, ',');
		sbuf_add(&s, p->symbols, comma ? (size_t)(comma - p->symbols) : strlen(p->symbols));
		sbuf_addf(out, "%s%zu. ", md ? "" : "  ", i + 1);
		if (md)
			esc_md(out, p->site, strlen(p->site));
		else
			esc_term(out, p->site, strlen(p->site));
		/* the sync call is a frame name too */
		sbuf_addstr(out, " (");
		if (md)
			esc_md(out, s.buf, s.len);
		else
			esc_term(out, s.buf, s.len);
		sbuf_addf(out, "): %s\n", pysync_out_fix(s.buf));
	}
	sbuf_addstr(out, md ? "\nSites under 1% of samples are labelled noise.\n"
			    : "  (sites under 1% of samples are labelled noise)\n");
	sbuf_release(&s);
}

void pysync_out(const struct pysync_result *r, const char *fname, int format, struct sbuf *out)
{
	if (format == REP_MD) {
		text_or_md(r, fname, true, out);
		return;
	}
	if (format == REP_TEXT) {
		struct sbuf tmp = SBUF_INIT;
		text_or_md(r, fname, false, &tmp);
		rtable_wrap(tmp.buf, tmp.len, 100, out);
		sbuf_release(&tmp);
		return;
	}
	struct jsonw j;
	jsonw_init(&j, out);
	jsonw_obj(&j);
	jsonw_key(&j, "schema");
	jsonw_str(&j, "gpuflame.syncs.folded/1");
	jsonw_key(&j, "input");
	jsonw_str(&j, "folded");
	jsonw_key(&j, "file");
	jsonw_str(&j, fname);
	jsonw_key(&j, "samples");
	jsonw_dec(&j, r->total, r->scale);
	jsonw_key(&j, "sync_samples");
	jsonw_dec(&j, r->sync, r->scale);
	jsonw_key(&j, "sync_share");
	jsonw_double(&j, r->sync_share, 6);
	jsonw_key(&j, "sync_ci95");
	jsonw_arr(&j);
	jsonw_double(&j, r->sync_ci_lo, 6);
	jsonw_double(&j, r->sync_ci_hi, 6);
	jsonw_end(&j, ']');
	jsonw_key(&j, "syncs");
	jsonw_arr(&j);
	struct sbuf s = SBUF_INIT;
	for (size_t i = 0; i < r->nsites; i++) {
		const struct pysync_site *p = &r->sites[i];
		jsonw_obj(&j);
		jsonw_key(&j, "site");
		jsonw_str(&j, p->site);
		jsonw_key(&j, "api");
		sbuf_reset(&s);
		const char *comma = strchr(p->symbols, ',');
		sbuf_add(&s, p->symbols, comma ? (size_t)(comma - p->symbols) : strlen(p->symbols));
		jsonw_str(&j, s.buf);
		jsonw_key(&j, "symbols");
		jsonw_str(&j, p->symbols);
		jsonw_key(&j, "samples");
		jsonw_dec(&j, p->samples, r->scale);
		jsonw_key(&j, "share");
		jsonw_double(&j, p->share, 6);
		jsonw_key(&j, "ci95");
		jsonw_arr(&j);
		jsonw_double(&j, p->ci_lo, 6);
		jsonw_double(&j, p->ci_hi, 6);
		jsonw_end(&j, ']');
		jsonw_key(&j, "noise");
		jsonw_bool(&j, p->noise);
		jsonw_key(&j, "fix");
		jsonw_str(&j, pysync_out_fix(s.buf));
		jsonw_end(&j, '}');
	}
	sbuf_release(&s);
	jsonw_end(&j, ']');
	jsonw_end(&j, '}');
}
