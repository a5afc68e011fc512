/* diffopts.c — the comparison's options and run, shared by diff and store diff (see diffopts.h). */
#include "cli/diffopts.h"

#include "cli/cli.h"

#include "base/ofile.h"
#include "stacks/render/diff_html.h"
#include "stacks/render/diff_out.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

const char *const diffopts_formats[] = {
	[DIFFOPTS_TEXT] = "text", [DIFFOPTS_SVG] = "svg", [DIFFOPTS_HTML] = "html", [DIFFOPTS_NFORMATS] = NULL,
};
_Static_assert(GF_ARRAY_LEN(diffopts_formats) == DIFFOPTS_NFORMATS + 1, "a name per format");

void diffopts_init(struct diffopts *d)
{
	memset(d, 0, sizeof *d);
	diff_opts_init(&d->o);
}

bool diffopts_option(const struct cli_command *c, int id, const char *arg, struct diffopts *d)
{
	switch (id) {
	case 'o': d->out = arg; break;
	case 'f': {
		int f = cli_pick(c, 'f', arg);
		d->svg = f == DIFFOPTS_SVG;
		d->html = f == DIFFOPTS_HTML;
		break;
	}
	case DIFFOPT_SVG: d->svg = true; break;
	case DIFFOPT_NEGATE: d->negate = true; break;
	case DIFFOPT_TOP: d->top = cli_int("--top", arg, 1, 1000000); break;
	case DIFFOPT_TITLE: d->title = arg; break;
	case DIFFOPT_SCALE: d->o.scale = (enum diff_scale)cli_pick(c, DIFFOPT_SCALE, arg); break;
	case DIFFOPT_DECIMALS: d->o.decimals = (unsigned)cli_int("--decimals", arg, 0, 9); break;
	case DIFFOPT_ROUND: d->o.round = (enum norm_round)cli_pick(c, DIFFOPT_ROUND, arg); break;
	case DIFFOPT_NONORM: d->o.normalise_names = false; break;
	case DIFFOPT_FORCE: d->force = true; break;
	case DIFFOPT_SAMPLED: d->o.sampled = 1; break;
	case DIFFOPT_NOSAMPLED: d->o.sampled = 0; break;
	case DIFFOPT_ALPHA:
		d->o.alpha = cli_double("--alpha", arg);
		if (!(d->o.alpha > 0 && d->o.alpha < 1))
			cli_usage_error("--alpha must be between 0 and 1, got '%s'", arg);
		break;
	case DIFFOPT_MINSHARE:
		d->o.min_share = cli_double("--min-share", arg);
		if (!(d->o.min_share >= 0 && d->o.min_share < 1))
			cli_usage_error("--min-share must be in [0, 1), got '%s'", arg);
		break;
	default: return false;
	}
	return true;
}

static bool ends_with(const char *s, const char *suf)
{
	size_t a = strlen(s), b = strlen(suf);
	return a >= b && !strcmp(s + a - b, suf);
}

void diffopts_finish(struct diffopts *d)
{
	if (d->out && ends_with(d->out, ".svg") && !d->html)
		d->svg = true;
	if (d->out && ends_with(d->out, ".html") && !d->svg)
		d->html = true;
	if (d->html && d->negate)
		cli_usage_error("--negate is not supported with --format html (the page is AFTER's shape)");
}

/* The page into fp. @return GF_OK or GF_EOUTPUT (errno set). */
static int write_html(struct diff_result *r, const struct diffopts *d, const char *bname, const char *aname,
		      FILE *fp)
{
	struct diff_html_opts ho = { 0 };
	ho.before = bname;
	ho.after = aname;
	ho.title = d->title;
	ho.alpha = d->o.alpha;
	ho.min_share = d->o.min_share;
	struct sbuf page = SBUF_INIT;
	diff_html_write(r, &ho, &page);
	int rc = fwrite(page.buf, 1, page.len, fp) == page.len ? GF_OK : GF_EOUTPUT;
	sbuf_release(&page);
	return rc;
}

struct output_job {
	struct diff_result *r;
	const struct diffopts *d;
	const char *bname, *aname;
};

/* The stacks (3 columns), the SVG or the page (cli_write_with: to -o or
 * stdout, all or nothing). */
static int write_output(struct ofile *of, void *arg, struct sbuf *err)
{
	const struct output_job *j = arg;
	const struct diffopts *d = j->d;
	if (d->html)
		return write_html(j->r, d, j->bname, j->aname, of->fp);
	if (d->svg) {
		struct diff_out_svg_opts so;
		diff_out_svg_opts_init(&so);
		so.negate = d->negate;
		so.title = d->title;
		so.alpha = d->o.alpha;
		so.min_share = d->o.min_share;
		return diff_out_svg(j->r, &so, of->fp, err);
	}
	return diff_out_text(of->fp, j->r, d->negate, cli_out_terminal(d->out)) ? GF_EOUTPUT : GF_OK;
}

/* write_output, a write error named by cli_write_with (the file and the reason). */
static int write_output_named(struct ofile *of, void *arg, struct sbuf *err)
{
	int rc = write_output(of, arg, err);
	if (rc == GF_EOUTPUT)
		sbuf_reset(err);
	return rc;
}

void diffopts_run(const struct diffopts *d, struct ftree *before, struct ftree *after, const char *bname,
		  const char *aname)
{
	struct sbuf diffs = SBUF_INIT, err = SBUF_INIT;
	if (diff_check_meta(&before->meta, &after->meta, &diffs)) {
		if (!d->force)
			cli_die(GF_EXIT_USAGE, "refusing to compare unlike profiles: %s (use --force to compare anyway)",
				diffs.buf);
		cli_warn("comparing unlike profiles (--force): %s", diffs.buf);
	}
	struct diff_result r;
	int rc = diff_run(&r, before, after, &d->o, &err);
	ftree_release(before); /* before the output is written: the result holds what it needs */
	ftree_release(after);
	if (rc)
		cli_die(gf_err_exit(rc), "%s", err.buf);
	if (r.note[0])
		cli_warn("%s", r.note);
	if (d->top) {
		if (diff_out_top(stdout, &r, (size_t)d->top) || fflush(stdout) || ferror(stdout))
			cli_die(GF_EXIT_OUTPUT, "write failure on standard output: %s", strerror(errno));
	}
	if (!d->top || d->out) { /* with --top, the stacks/SVG only to -o */
		struct output_job j = { &r, d, bname, aname };
		cli_write_with(d->out, write_output_named, &j);
	}
	diff_result_release(&r);
	sbuf_release(&diffs);
	sbuf_release(&err);
}
