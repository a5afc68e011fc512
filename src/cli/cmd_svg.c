/*
 * cmd_svg.c — `gpuflame svg`: render folded stacks as an interactive SVG flame
 * graph; a drop-in for flamegraph.pl (same options, also in their single-dash
 * spelling: -title, -width, ...).
 *
 *   gpuflame svg [options] [FILE...] > out.svg
 *   gpuflame fold --weight gpu trace.json.gz | gpuflame svg --colors gpu -o gpu.svg
 *
 * Input: folded stacks ("a;b;c 12", or "a;b;c 10 14" for a differential
 * graph), from the files (merged) or stdin. Output: the SVG on stdout or in
 * -o FILE (written whole or not at all). Invalid lines are skipped with one
 * warning (fatal with --strict); no valid stack is an error (exit 1, nothing
 * written). See docs/svg.md.
 */
#include "cli/cli.h"

#include "base/mapguard.h"
#include "base/num.h"
#include "base/ofile.h"
#include "stacks/folded.h"
#include "base/escape.h"
#include "stacks/render/palette.h"
#include "stacks/render/svg.h"
#include "stacks/tree_pruned.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char usage[] =
	"usage: gpuflame svg [options] [FILE...]\n"
	"\n"
	"Renders folded stacks (\"frame;frame;frame count\", or \"stack before after\"\n"
	"for a differential graph) as an interactive SVG flame graph. Several files\n"
	"merge; no file or \"-\" reads stdin. Options (flamegraph.pl's; the single-dash\n"
	"forms such as -title also work):\n"
	"  -o, --output FILE    write the SVG to FILE (default stdout)\n"
	"  --title TEXT         heading (default \"Flame Graph\", \"Icicle Graph\", \"Flame Chart\")\n"
	"  --subtitle TEXT      second heading\n"
	"  --width PX           image width (default 1200)\n"
	"  --height PX          frame height (default 16)\n"
	"  --minwidth N[%]      hide frames narrower than N px, or N%% of the total (default 0.1);\n"
	"                       hidden siblings are drawn as one \"[N frames < minwidth]\" frame\n"
	"  --fonttype FONT      font family list: names of letters, digits, blanks and . _ -,\n"
	"                       or quoted, separated by commas (default Verdana)\n"
	"  --fontsize N         font size (default 12)\n"
	"  --fontwidth N        average glyph width / font size (default 0.59)\n"
	"  --countname TEXT     unit in tooltips (default \"samples\")\n"
	"  --nametype TEXT      prefix of the details line (default \"Function:\")\n"
	"  --colors PALETTE     hot (default), mem, io, wakeup, chain, java, js, perl, red, green,\n"
	"                       blue, aqua, yellow, purple, orange, gpu (Python / nn.Module / aten /\n"
	"                       CUDA API / kernel families / sync calls)\n"
	"  --bgcolors COLOR     yellow, blue, green, grey or #rrggbb\n"
	"  --hash               colour by name hash (stable across graphs)\n"
	"  --random             random colours, seeded from the input (same input, same SVG)\n"
	"  --seed N             seed for --random instead\n"
	"  --cp                 consistent palette: use and update ./palette.map\n"
	"  --cp-file FILE       palette map file for --cp (default palette.map)\n"
	"  --reverse            reverse each stack (leaf first)\n"
	"  --inverted           icicle graph (root at the top)\n"
	"  --flamechart         keep input order (time order), merge only adjacent frames\n"
	"  --negate             differential: swap red and blue and the delta sign\n"
	"  --notes TEXT         text for the <!-- NOTES --> comment\n"
	"  --total N            pretend the total weight is N (frames shrink)\n"
	"  --factor N           multiply displayed weights by N\n"
	"  --strict             invalid input lines are fatal\n"
	"  --full-tree          build the whole call tree even for big named files (slower;\n"
	"                       the SVG is the same)\n"
	"  -h, --help           this help\n"
	"\n"
	"Exit: 0 ok, 1 bad or empty input, 2 usage, 3 output not written.\n";

enum {
	O_TITLE = 256, O_SUBTITLE, O_WIDTH, O_HEIGHT, O_MINWIDTH, O_FONTTYPE, O_FONTSIZE,
	O_FONTWIDTH, O_COUNTNAME, O_NAMETYPE, O_COLORS, O_BGCOLORS, O_HASH, O_RANDOM, O_SEED,
	O_CP, O_CPFILE, O_REVERSE, O_INVERTED, O_FLAMECHART, O_NEGATE, O_NOTES, O_TOTAL, O_FACTOR,
	O_STRICT, O_FULLTREE,
};

static const struct option longopts[] = {
	{"output", required_argument, NULL, 'o'},
	{"title", required_argument, NULL, O_TITLE},
	{"subtitle", required_argument, NULL, O_SUBTITLE},
	{"width", required_argument, NULL, O_WIDTH},
	{"height", required_argument, NULL, O_HEIGHT},
	{"minwidth", required_argument, NULL, O_MINWIDTH},
	{"fonttype", required_argument, NULL, O_FONTTYPE},
	{"fontsize", required_argument, NULL, O_FONTSIZE},
	{"fontwidth", required_argument, NULL, O_FONTWIDTH},
	{"countname", required_argument, NULL, O_COUNTNAME},
	{"nametype", required_argument, NULL, O_NAMETYPE},
	{"colors", required_argument, NULL, O_COLORS},
	{"bgcolors", required_argument, NULL, O_BGCOLORS},
	{"hash", no_argument, NULL, O_HASH},
	{"random", no_argument, NULL, O_RANDOM},
	{"seed", required_argument, NULL, O_SEED},
	{"cp", no_argument, NULL, O_CP},
	{"cp-file", required_argument, NULL, O_CPFILE},
	{"reverse", no_argument, NULL, O_REVERSE},
	{"inverted", no_argument, NULL, O_INVERTED},
	{"flamechart", no_argument, NULL, O_FLAMECHART},
	{"negate", no_argument, NULL, O_NEGATE},
	{"notes", required_argument, NULL, O_NOTES},
	{"total", required_argument, NULL, O_TOTAL},
	{"factor", required_argument, NULL, O_FACTOR},
	{"strict", no_argument, NULL, O_STRICT},
	{"full-tree", no_argument, NULL, O_FULLTREE},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

/* A usage error for a bad option value; the value is shown escaped for the
 * terminal (it may hold ESC or other controls). */
GF_NORETURN static void bad_value(const char *what, const char *opt, const char *val, const char *expected)
{
	struct sbuf b = SBUF_INIT;
	esc_term(&b, val, strlen(val));
	cli_usage_error("invalid %s '%s' for '%s' (expected %s)", what, b.buf, opt, expected);
}

/* Parses a non-negative decimal at its own scale (for --factor). */
static void parse_decimal(const char *opt, const char *val, int64_t *v, unsigned *scale)
{
	size_t n = strlen(val);
	unsigned d = num_decimals(val, n);
	if (d > NUM_MAX_SCALE)
		d = NUM_MAX_SCALE;
	int rc = num_parse(val, n, d, 0, v);
	if (rc < 0 || *v < 0)
		bad_value("number", opt, val, "a non-negative decimal");
	*scale = d;
}

/* --fonttype goes into the SVG's CSS: a usage error unless svg_fonttype_ok.
 * The message shows the value escaped for the terminal. */
static const char *check_fonttype(const char *val)
{
	if (!svg_fonttype_ok(val))
		bad_value("value", "--fonttype", val,
			  "a font family list: names of letters, digits, blanks and . _ -, or quoted in "
			  "'...' or \"...\", separated by commas");
	return val;
}

/*
 * The fast path for big inputs (model/tree_pruned.h): reads named regular
 * files into a tail-compressed trie. @return the trie, or NULL when an input
 * is differential (then nothing was reported and the caller reads normally).
 */
static struct ftrie *read_pruned(struct ftree *t, int nfiles, char **files,
				 const struct folded_opts *fo)
{
	struct ftrie *tr = ftrie_new(t);
	struct cli_folded_totals tt = CLI_FOLDED_TOTALS_INIT;
	struct sbuf err = SBUF_INIT;
	for (int i = 0; i < nfiles; i++) {
		FILE *fp = cli_open_in(files[i]);
		struct folded_stats st;
		memset(&st, 0, sizeof st);
		int rc = ftrie_read(tr, fp, cli_in_name(files[i]), fo, &st, &err);
		cli_close_in(fp);
		if (rc == FTRIE_UNSUPPORTED) {
			ftrie_free(tr);
			sbuf_release(&tt.first);
			sbuf_release(&tt.names);
			sbuf_release(&err);
			return NULL;
		}
		if (rc)
			cli_die(gf_err_exit(rc), "%s", err.buf);
		cli_folded_count(&tt, &st, cli_in_name(files[i]));
	}
	cli_folded_report(&tt);
	sbuf_release(&err);
	return tr;
}

/* True when every input is a named regular file (it can be read twice). */
static bool all_regular(int nfiles, char **files)
{
	if (nfiles == 0)
		return false;
	for (int i = 0; i < nfiles; i++) {
		struct stat sb;
		if (!strcmp(files[i], "-") || stat(files[i], &sb) || !S_ISREG(sb.st_mode))
			return false;
	}
	return true;
}

/* Loads the palette map file when it exists. */
static struct palmap *load_palmap(const char *path)
{
	struct palmap *m = palmap_new();
	FILE *fp = fopen(path, "rb");
	if (!fp) {
		if (errno != ENOENT)
			cli_die(GF_EXIT_INPUT, "cannot open '%s': %s", path, strerror(errno));
		return m;
	}
	struct sbuf b = SBUF_INIT;
	if (!sbuf_add_file(&b, fp))
		cli_die(GF_EXIT_INPUT, "cannot read '%s'", path);
	fclose(fp);
	palmap_parse(m, b.buf, b.len);
	sbuf_release(&b);
	return m;
}

int cmd_svg(int argc, char **argv)
{
	struct svg_opts o;
	svg_opts_init(&o);
	struct folded_opts fo = {0};
	const char *outpath = NULL, *total = NULL, *cpfile = "palette.map";
	bool flamechart = false, cp = false, fulltree = false;
	int c;
	while ((c = getopt_long_only(argc, argv, "o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'o': outpath = optarg; break;
		case O_TITLE: o.title = optarg; break;
		case O_SUBTITLE: o.subtitle = optarg; break;
		case O_WIDTH: o.width = (unsigned)cli_int("--width", optarg, 21, 1000000); break;
		case O_HEIGHT: o.frameheight = (unsigned)cli_int("--height", optarg, 2, 100000); break;
		case O_MINWIDTH: {
			size_t n = strlen(optarg);
			char tmp[64];
			if (n == 0 || n >= sizeof tmp || strspn(optarg, "0123456789.%") != n ||
			    strchr(optarg, '%') != (n && optarg[n - 1] == '%' ? optarg + n - 1 : NULL))
				bad_value("value", "--minwidth", optarg, "N or N%");
			memcpy(tmp, optarg, n + 1);
			o.minwidth_pct = tmp[n - 1] == '%';
			if (o.minwidth_pct)
				tmp[n - 1] = 0;
			o.minwidth = cli_double("--minwidth", tmp);
			break;
		}
		case O_FONTTYPE: o.fonttype = check_fonttype(optarg); break;
		case O_FONTSIZE:
			o.fontsize = cli_double("--fontsize", optarg);
			if (!(o.fontsize > 0 && o.fontsize <= 1000))
				cli_usage_error("--fontsize must be in (0, 1000]");
			break;
		case O_FONTWIDTH:
			o.fontwidth = cli_double("--fontwidth", optarg);
			if (!(o.fontwidth > 0 && o.fontwidth <= 10))
				cli_usage_error("--fontwidth must be in (0, 10]");
			break;
		case O_COUNTNAME: o.countname = optarg; break;
		case O_NAMETYPE: o.nametype = optarg; break;
		case O_COLORS:
			o.colors = palette_names[cli_choice("--colors", optarg, palette_names)];
			break;
		case O_BGCOLORS: {
			char a[8], b[8];
			if (palette_bg(PAL_HOT, optarg, a, b))
				bad_value("value", "--bgcolors", optarg, "yellow, blue, green, grey or #rrggbb");
			o.bgcolors = optarg;
			break;
		}
		case O_HASH: o.hash = true; break;
		case O_RANDOM: o.random = true; break;
		case O_SEED:
			o.seed = (uint64_t)cli_int("--seed", optarg, 1, INT64_MAX);
			o.random = true;
			break;
		case O_CP: cp = true; break;
		case O_CPFILE: cpfile = optarg; cp = true; break;
		case O_REVERSE: fo.reverse = true; break;
		case O_INVERTED: o.inverted = true; break;
		case O_FLAMECHART: flamechart = true; break;
		case O_NEGATE: o.negate = true; break;
		case O_NOTES: o.notes = optarg; break;
		case O_TOTAL: total = optarg; break;
		case O_FACTOR:
			parse_decimal("--factor", optarg, &o.factor_num, &o.factor_scale);
			if (o.factor_num == 0)
				cli_usage_error("--factor must be positive");
			break;
		case O_STRICT: fo.strict = true; break;
		case O_FULLTREE: fulltree = true; break;
		case 'h': fputs(usage, stdout); return GF_EXIT_OK;
		default: cli_usage_error("unknown option");
		}
	}
	if (total) {
		/* validated now, converted once the input's scale is known */
		int64_t v;
		unsigned s;
		parse_decimal("--total", total, &v, &s);
	}

	/* the inputs: stdin ("-") at most once, and stdin alone when none */
	size_t nin;
	char **ins = cli_inputs(argc, argv, optind, &nin);

	struct ftree t;
	ftree_init(&t, NULL, flamechart ? FT_FLAMECHART : 0);
	struct ftrie *tr = NULL;
	/* the fast path maps the input files and reads them until ftrie_free:
	 * one cut short meanwhile by another process is an input error */
	sigjmp_buf jb;
	if (sigsetjmp(jb, 0))
		cli_die(GF_EXIT_INPUT, "an input file was cut short while being read (is another process still "
				       "writing it?)");
	mapguard_arm(&jb);
	if (!flamechart && !fulltree && all_regular((int)nin, ins)) {
		tr = read_pruned(&t, (int)nin, ins, &fo);
		if (!tr) { /* differential input: read again with the folded reader */
			ftree_release(&t);
			ftree_init(&t, NULL, 0);
		}
	}
	if (!tr)
		cli_read_folded(&t, (int)nin, ins, &fo);

	unsigned scale = tr ? ftrie_scale(tr) : t.scale;
	int64_t real = tr ? ftrie_total(tr) : t.ncols == 2 ? t.total2[0] : t.total[0];
	if (total) {
		int64_t v = 0;
		int rc = num_parse(total, strlen(total), scale, 0, &v);
		if (rc < 0)
			cli_usage_error("--total %s does not fit in 64-bit integers at the input's scale",
					total);
		if (v < real) {
			struct sbuf b = SBUF_INIT;
			num_fmt(&b, real, scale);
			cli_warn("--total %s is less than the actual total %s, so it is ignored", total, b.buf);
			sbuf_release(&b);
		} else {
			o.total = v;
		}
	}
	if (tr) {
		/* materialise what the renderer can draw (and the children of it) */
		double mw = real > 0 ? svg_min_weight(&o, real) : 0;
		int64_t keep = mw <= 0 || mw != mw ? 0 : mw >= 9.0e18 ? INT64_MAX : (int64_t)mw;
		ftrie_build(tr, keep);
		ftrie_free(tr);
	}
	mapguard_disarm();
	ftree_sort(&t);
	struct palmap *pm = NULL;
	if (cp) {
		pm = load_palmap(cpfile);
		o.cp = pm;
	}

	struct sbuf err = SBUF_INIT;
	struct ofile of;
	if (ofile_open(&of, outpath, &err))
		cli_die(GF_EXIT_OUTPUT, "%s", err.buf);
	struct svg_stats st;
	int rc = svg_render(&t, &o, of.fp, &st, &err);
	if (rc) {
		if (rc == GF_EOUTPUT)
			ofile_write_error(&of, errno, &err);
		ofile_abort(&of);
		cli_die(gf_err_exit(rc), "%s", err.buf);
	}
	if (ofile_commit(&of, &err))
		cli_die(GF_EXIT_OUTPUT, "%s", err.buf);
	if (pm) {
		struct ofile pf;
		if (ofile_open(&pf, cpfile, &err))
			cli_die(GF_EXIT_OUTPUT, "%s", err.buf);
		if (palmap_write(pm, pf.fp)) {
			ofile_write_error(&pf, errno, &err);
			ofile_abort(&pf);
			cli_die(GF_EXIT_OUTPUT, "%s", err.buf);
		}
		if (ofile_commit(&pf, &err))
			cli_die(GF_EXIT_OUTPUT, "%s", err.buf);
		palmap_free(pm);
	}
	sbuf_release(&err);
	ftree_release(&t);
	return GF_EXIT_OK;
}
