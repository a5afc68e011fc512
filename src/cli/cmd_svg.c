/*
 * cmd_svg.c — `gpuflame svg`: render folded stacks as an interactive SVG flame
 * graph; a drop-in for flamegraph.pl (same options, also in their single-dash
 * spelling: -title, -width, ...).
 *
 *   gpuflame svg [options] [FILE...] > out.svg
 *   gpuflame fold --weight gpu trace.json.gz | gpuflame svg --colors gpu -o gpu.svg
 *
 * Input: folded stacks ("a;b;c 12", or "a;b;c 10 14" for a differential
 * graph), from the files (merged) or stdin, plain, .gz or .zst (the input
 * layer, input/input.h; a trace gets a one-line hint to fold it). Output: the SVG on stdout or in
 * -o FILE (written whole or not at all). Invalid lines are skipped with one
 * warning (fatal with --strict); no valid stack is an error (exit 1, nothing
 * written). See docs/svg.md.
 */
#include "cli/cli.h"
#include "cli/cliopt.h"

#include "base/mapguard.h"
#include "base/num.h"
#include "base/ofile.h"
#include "stacks/folded.h"
#include "base/escape.h"
#include "input/input.h"
#include "stacks/render/palette.h"
#include "stacks/render/svg.h"
#include "stacks/ftrie.h"

#include <errno.h>
#include <getopt.h> /* optind */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum {
	O_TITLE = CLIOPT_FIRST_ID, O_SUBTITLE, O_WIDTH, O_HEIGHT, O_MINWIDTH, O_FONTTYPE, O_FONTSIZE,
	O_FONTWIDTH, O_COUNTNAME, O_NAMETYPE, O_COLORS, O_BGCOLORS, O_HASH, O_RANDOM, O_SEED,
	O_CP, O_CPFILE, O_REVERSE, O_INVERTED, O_FLAMECHART, O_NEGATE, O_NOTES, O_TOTAL, O_FACTOR,
	O_STRICT, O_FULLTREE, O_ALLOWRANKS, O_DETERMINISTIC, O_COLORDIFF, O_BASE,
};


static const struct cli_opt opts[] = {
	{ "output", 'o', 'o', "FILE", "write the SVG to FILE (default stdout)", NULL, CLI_OPT_FILE },
	{ "title", 0, O_TITLE, "TEXT", "heading (default \"Flame Graph\", \"Icicle Graph\", \"Flame Chart\")", NULL,
	  0 },
	{ "subtitle", 0, O_SUBTITLE, "TEXT", "second heading", NULL, 0 },
	{ "width", 0, O_WIDTH, "PX", "image width (default 1200)", NULL, 0 },
	{ "height", 0, O_HEIGHT, "PX", "frame height (default 16)", NULL, 0 },
	{ "minwidth", 0, O_MINWIDTH, "N[%]",
	  "hide frames narrower than N px, or N% of the total (default 0.1 px, flamegraph.pl's; inferno reads a "
	  "bare N as a percentage: write N% for that); hidden siblings are drawn as one \"[N frames < "
	  "minwidth]\" frame",
	  NULL, 0 },
	{ "fonttype", 0, O_FONTTYPE, "FONT",
	  "font family list: names of letters, digits, blanks and . _ -, or quoted, separated by commas (default "
	  "Verdana)",
	  NULL, 0 },
	{ "fontsize", 0, O_FONTSIZE, "N", "font size (default 12)", NULL, 0 },
	{ "fontwidth", 0, O_FONTWIDTH, "N", "average glyph width / font size (default 0.59)", NULL, 0 },
	{ "countname", 0, O_COUNTNAME, "TEXT", "unit in tooltips (default \"samples\")", NULL, 0 },
	{ "nametype", 0, O_NAMETYPE, "TEXT", "prefix of the details line (default \"Function:\")", NULL, 0 },
	{ "colors", 0, O_COLORS, "PALETTE",
	  "hot (default), mem, io, wakeup, chain, java, js, perl, red, green, blue, aqua, yellow, purple, orange, "
	  "python (inferno's: site-packages aqua, the standard library yellow, the rest red), gpu (Python / "
	  "nn.Module / aten / CUDA API / kernel families / sync calls)",
	  palette_names, 0 },
	{ "bgcolors", 0, O_BGCOLORS, "COLOR", "%V or #rrggbb", palette_bgcolors, 0 },
	{ "hash", 0, O_HASH, NULL, "colour by name hash (stable across graphs)", NULL, 0 },
	{ "deterministic", 0, O_DETERMINISTIC, NULL,
	  "colour by inferno's FNV-1a name hash (a name's colour is the same in every graph; not with --hash)",
	  NULL, 0 },
	{ "colordiffusion", 0, O_COLORDIFF, NULL, "the wider a frame, the redder (inferno's; not with --colors)",
	  NULL, 0 },
	{ "base", 0, O_BASE, "SYM",
	  "keep only the stacks holding a frame SYM, re-rooted at the innermost one (inferno's; repeatable)", NULL,
	  CLI_OPT_REPEAT },
	{ "quiet", 'q', 'q', NULL, "no warnings or notes on stderr", NULL, 0 },
	{ "random", 0, O_RANDOM, NULL, "random colours, seeded from the input (same input, same SVG)", NULL, 0 },
	{ "seed", 0, O_SEED, "N", "seed for --random instead", NULL, 0 },
	{ "cp", 0, O_CP, NULL, "consistent palette: use and update ./palette.map", NULL, 0 },
	{ "cp-file", 0, O_CPFILE, "FILE", "palette map file for --cp (default palette.map)", NULL, CLI_OPT_FILE },
	{ "reverse", 0, O_REVERSE, NULL, "reverse each stack (leaf first)", NULL, 0 },
	{ "inverted", 0, O_INVERTED, NULL, "icicle graph (root at the top)", NULL, 0 },
	{ "flamechart", 0, O_FLAMECHART, NULL, "keep input order (time order), merge only adjacent frames", NULL, 0 },
	{ "negate", 0, O_NEGATE, NULL, "differential: swap red and blue and the delta sign", NULL, 0 },
	{ "notes", 0, O_NOTES, "TEXT", "text for the <!-- NOTES --> comment", NULL, 0 },
	{ "total", 0, O_TOTAL, "N", "pretend the total weight is N (frames shrink)", NULL, 0 },
	{ "factor", 0, O_FACTOR, "N", "multiply displayed weights by N", NULL, 0 },
	{ "strict", 0, O_STRICT, NULL, "invalid input lines are fatal", NULL, 0 },
	{ "full-tree", 0, O_FULLTREE, NULL,
	  "build the whole call tree even for big named files (slower; the SVG is the same)", NULL, 0 },
	{ "allow-ranks", 0, O_ALLOWRANKS, NULL,
	  "draw files of different ranks as one graph (refused by default, as merge does)", NULL, 0 },
	{ NULL, 0, 0, NULL, NULL, NULL, 0 },
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

/* What the command line asked for. */
struct svg_cli {
	struct svg_opts o;
	struct folded_opts fo;
	const char *outpath, *total, *cpfile;
	bool flamechart, cp, fulltree, allow_ranks;
	bool minwidth_given; /* --minwidth given (the note on a bare number) */
	const char **base;   /* --base SYM... (inferno's) */
	size_t nbase;
	unsigned given; /* SVG_GIVEN_*: what the header may not fill */
};

/* Closes the inputs kept open for the pruned trie (its tails point into
 * their mapped bytes until ftrie_free). */
static void close_all(struct input **ins, size_t n)
{
	for (size_t i = 0; i < n; i++)
		cli_close_input(ins[i]);
	free(ins);
}

/*
 * The fast path for big inputs (stacks/ftrie.h): reads named regular
 * files (plain ones mapped, compressed ones inflated) into a tail-compressed
 * trie; the mapped ones are left open in *kept (NULL for the others). @return the trie, or NULL when
 * an input is differential (then nothing was reported, nothing is kept, and
 * the caller reads normally).
 */
static struct ftrie *read_pruned(struct ftree *t, size_t nfiles, char **files, const struct folded_opts *fo,
				 struct input ***kept)
{
	struct ftrie *tr = ftrie_new(t);
	struct cli_folded_totals tt = CLI_FOLDED_TOTALS_INIT;
	struct sbuf err = SBUF_INIT;
	static struct input **ins; /* static: still reachable when a message exits */
	ins = gf_xcalloc(nfiles, sizeof *ins);
	for (size_t i = 0; i < nfiles; i++) {
		ins[i] = cli_open_folded(files[i], 0);
		struct folded_stats st;
		memset(&st, 0, sizeof st);
		int rc = ftrie_read_in(tr, ins[i], fo, &st, &err);
		if (rc == FTRIE_UNSUPPORTED) {
			ftrie_free(tr);
			close_all(ins, nfiles);
			sbuf_release(&tt.first);
			sbuf_release(&tt.names);
			sbuf_release(&err);
			return NULL;
		}
		if (rc)
			cli_die(gf_err_exit(rc), "%s", err.buf);
		cli_folded_count(&tt, &st, input_name(ins[i]));
		if (!input_mapped(ins[i])) { /* its tails were copied: nothing points into it */
			cli_close_input(ins[i]);
			ins[i] = NULL;
		}
	}
	cli_folded_report(&tt);
	sbuf_release(&err);
	*kept = ins;
	return tr;
}

/* True when every input is a named regular file (it can be read twice). */
static bool all_regular(size_t nfiles, char **files)
{
	if (nfiles == 0)
		return false;
	for (size_t i = 0; i < nfiles; i++) {
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

/* --minwidth N or N%. */
static void set_minwidth(struct svg_opts *o, const char *arg)
{
	size_t n = strlen(arg);
	char tmp[64];
	if (n == 0 || n >= sizeof tmp || strspn(arg, "0123456789.%") != n ||
	    strchr(arg, '%') != (n && arg[n - 1] == '%' ? arg + n - 1 : NULL))
		bad_value("value", "--minwidth", arg, "N or N%");
	memcpy(tmp, arg, n + 1);
	o->minwidth_pct = tmp[n - 1] == '%';
	if (o->minwidth_pct)
		tmp[n - 1] = 0;
	o->minwidth = cli_double("--minwidth", tmp);
}

/* The options of the picture's text and geometry. @return false for others. */
static bool opt_layout(struct svg_opts *o, int c, const char *arg)
{
	switch (c) {
	case O_TITLE: o->title = arg; break;
	case O_SUBTITLE: o->subtitle = arg; break;
	case O_WIDTH: o->width = (unsigned)cli_int("--width", arg, 21, 1000000); break;
	case O_HEIGHT: o->frameheight = (unsigned)cli_int("--height", arg, 2, 100000); break;
	case O_MINWIDTH: set_minwidth(o, arg); break;
	case O_FONTTYPE: o->fonttype = check_fonttype(arg); break;
	case O_FONTSIZE:
		o->fontsize = cli_double("--fontsize", arg);
		if (!(o->fontsize > 0 && o->fontsize <= 1000))
			cli_usage_error("--fontsize must be in (0, 1000]");
		break;
	case O_FONTWIDTH:
		o->fontwidth = cli_double("--fontwidth", arg);
		if (!(o->fontwidth > 0 && o->fontwidth <= 10))
			cli_usage_error("--fontwidth must be in (0, 10]");
		break;
	case O_COUNTNAME: o->countname = arg; break;
	case O_NAMETYPE: o->nametype = arg; break;
	case O_NOTES: o->notes = arg; break;
	case O_INVERTED: o->inverted = true; break;
	case O_NEGATE: o->negate = true; break;
	default: return false;
	}
	return true;
}

/* The colour options. @return false for others. */
static bool opt_colour(struct svg_cli *c, int opt, const char *arg)
{
	switch (opt) {
	case O_COLORS: c->o.colors = palette_names[cli_choice("--colors", arg, palette_names)]; break;
	case O_BGCOLORS: {
		char a[8], b[8];
		if (palette_bg(PAL_HOT, arg, a, b)) {
			struct sbuf v = SBUF_INIT;
			for (size_t k = 0; palette_bgcolors[k]; k++)
				sbuf_addf(&v, "%s%s", k ? ", " : "", palette_bgcolors[k]);
			sbuf_addstr(&v, " or #rrggbb");
			bad_value("value", "--bgcolors", arg, v.buf);
		}
		c->o.bgcolors = arg;
		break;
	}
	case O_HASH: c->o.hash = true; break;
	case O_DETERMINISTIC: c->o.deterministic = true; break;
	case O_COLORDIFF: c->o.colordiffusion = true; break;
	case O_RANDOM: c->o.random = true; break;
	case O_SEED:
		c->o.seed = (uint64_t)cli_int("--seed", arg, 1, INT64_MAX);
		c->o.random = true;
		break;
	case O_CP: c->cp = true; break;
	case O_CPFILE: c->cpfile = arg; c->cp = true; break;
	default: return false;
	}
	return true;
}

/* inferno's conflicts, and the note on a bare --minwidth. */
static void check_conflicts(const struct svg_cli *c)
{
	if (c->o.deterministic && (c->o.hash || c->o.random))
		cli_usage_error("--deterministic and --%s choose colours differently: give one", c->o.hash ? "hash" : "random");
	if (c->o.colordiffusion && (c->given & SVG_GIVEN_COLORS))
		cli_usage_error("--colordiffusion colours by width: it does not take --colors");
	if (c->minwidth_given && !c->o.minwidth_pct && c->o.minwidth > 0)
		cli_note("--minwidth %g is pixels (flamegraph.pl's reading); inferno reads a bare number as a "
			 "percentage of the total: write %g%% for that", c->o.minwidth, c->o.minwidth);
}

/* Every option; @return optind (the first input). */
static int parse_args(struct svg_cli *c, int argc, char **argv)
{
	svg_opts_init(&c->o);
	c->cpfile = "palette.map";
	int opt;
	const char *optarg;
	while ((opt = cliopt_next(&cmd_svg_def, argc, argv, &optarg)) != -1) {
		c->minwidth_given |= opt == O_MINWIDTH;
		c->given |= opt == O_TITLE ? SVG_GIVEN_TITLE : opt == O_SUBTITLE ? SVG_GIVEN_SUBTITLE :
			    opt == O_COUNTNAME ? SVG_GIVEN_COUNTNAME : opt == O_COLORS ? SVG_GIVEN_COLORS :
			    opt == O_FACTOR ? SVG_GIVEN_FACTOR : 0;
		if (opt_layout(&c->o, opt, optarg) || opt_colour(c, opt, optarg))
			continue;
		switch (opt) {
		case 'o': c->outpath = optarg; break;
		case O_REVERSE: c->fo.reverse = true; break;
		case O_FLAMECHART: c->flamechart = true; break;
		case O_TOTAL: c->total = optarg; break;
		case O_FACTOR:
			parse_decimal("--factor", optarg, &c->o.factor_num, &c->o.factor_scale);
			if (c->o.factor_num == 0)
				cli_usage_error("--factor must be positive");
			break;
		case O_STRICT: c->fo.strict = true; break;
		case O_FULLTREE: c->fulltree = true; break;
		case O_ALLOWRANKS: c->allow_ranks = true; break;
		case O_BASE:
			c->base = gf_xreallocarray(c->base, c->nbase + 1, sizeof *c->base);
			c->base[c->nbase++] = optarg;
			break;
		case 'q': cli_set_quiet(true); break;
		}
	}
	check_conflicts(c);
	if (c->total) {
		/* validated now, converted once the input's scale is known */
		int64_t v;
		unsigned sc;
		parse_decimal("--total", c->total, &v, &sc);
	}
	return optind;
}

/* --total at the input's scale: ignored (a warning) below the real total. */
static void apply_total(struct svg_cli *c, unsigned scale, int64_t real)
{
	if (!c->total)
		return;
	int64_t v = 0;
	if (num_parse(c->total, strlen(c->total), scale, 0, &v) < 0)
		cli_usage_error("--total %s does not fit in 64-bit integers at the input's scale", c->total);
	if (v < real) {
		struct sbuf b = SBUF_INIT;
		num_fmt(&b, real, scale);
		cli_warn("--total %s is less than the actual total %s, so it is ignored", c->total, b.buf);
		sbuf_release(&b);
	} else {
		c->o.total = v;
	}
}

/* Reads the inputs into t as the renderer's strategy says (svg.h:
 * svg_read_strategy: the pruned trie for named regular files, the folded
 * reader otherwise); applies --total. Mapped inputs are read here: the
 * caller has armed mapguard. */
static void load(struct svg_cli *c, struct ftree *t, size_t nin, char **ins)
{
	struct input **kept = NULL;
	struct ftrie *tr = NULL;
	if (!c->nbase && svg_read_strategy(c->flamechart, c->fulltree, all_regular(nin, ins)) == SVG_READ_PRUNED) {
		tr = read_pruned(t, nin, ins, &c->fo, &kept);
		if (!tr) { /* differential input: read again with the folded reader */
			ftree_release(t);
			ftree_init(t, NULL, 0);
		}
	}
	if (!tr)
		cli_read_folded(t, (int)nin, ins, &c->fo);
	unsigned scale = tr ? ftrie_scale(tr) : t->scale;
	int64_t real = tr ? ftrie_total(tr) : t->ncols == 2 ? t->total2[0] : t->total[0];
	apply_total(c, scale, real);
	if (tr) {
		/* materialise what the renderer can draw (and the children of it) */
		ftrie_build(tr, svg_keep_min(&c->o, real));
		ftrie_free(tr);
		close_all(kept, nin);
	}
}

/* --base: t becomes its stacks re-rooted at the innermost base symbol. */
static void rebase(const struct svg_cli *c, struct ftree *t)
{
	struct ftree r;
	struct sbuf err = SBUF_INIT;
	ftree_init(&r, t->names, c->flamechart ? FT_FLAMECHART : 0);
	if (ftree_rebase(t, &r, c->base, c->nbase, &err))
		cli_die(GF_EXIT_INPUT, "%s", err.buf);
	if (!r.n || !r.total[0])
		cli_die(GF_EXIT_INPUT, "no stack holds a frame named by --base");
	/* t's pool is r's: hand it over before t goes */
	r.own_names = t->own_names;
	t->own_names = false;
	ftree_release(t);
	*t = r;
	free(c->base);
	sbuf_release(&err);
}

struct svg_job {
	const struct svg_cli *c;
	const struct ftree *t;
};

/* The SVG (cli_write_with: to -o or stdout, all or nothing). */
static int write_svg(struct ofile *of, void *arg, struct sbuf *err)
{
	const struct svg_job *j = arg;
	struct svg_stats st;
	int rc = svg_render(j->t, &j->c->o, of->fp, &st, err);
	if (rc == GF_EOUTPUT)
		sbuf_reset(err); /* a write error: cli_write_with names the file and the reason */
	return rc;
}

static int write_palmap(struct ofile *of, void *arg, struct sbuf *err)
{
	return palmap_write(arg, of->fp) ? GF_EOUTPUT : GF_OK;
}

static int cmd_svg(int argc, char **argv)
{
	struct svg_cli c;
	memset(&c, 0, sizeof c);
	int first = parse_args(&c, argc, argv);
	cli_guard_ranks(!c.allow_ranks);
	size_t nin; /* stdin ("-") at most once, and stdin alone when none */
	char **ins = cli_inputs(argc, argv, first, &nin);

	struct ftree t;
	ftree_init(&t, NULL, c.flamechart ? FT_FLAMECHART : 0);
	/* the fast path maps the input files and reads them until ftrie_free:
	 * one cut short meanwhile by another process is an input error */
	sigjmp_buf jb;
	if (sigsetjmp(jb, 0))
		cli_die(GF_EXIT_INPUT, "an input file was cut short while being read (is another process still "
				       "writing it?)");
	mapguard_arm(&jb);
	load(&c, &t, nin, ins);
	mapguard_disarm();
	if (c.nbase)
		rebase(&c, &t);
	ftree_sort(&t);
	struct sbuf title = SBUF_INIT, subtitle = SBUF_INIT;
	svg_apply_header(&c.o, &t, c.given, &title, &subtitle);
	struct palmap *pm = c.cp ? load_palmap(c.cpfile) : NULL;
	c.o.cp = pm;
	struct svg_job j = { &c, &t };
	cli_write_with(c.outpath, write_svg, &j);
	if (pm) {
		cli_write_with(c.cpfile, write_palmap, pm);
		palmap_free(pm);
	}
	ftree_release(&t);
	sbuf_release(&title);
	sbuf_release(&subtitle);
	return GF_EXIT_OK;
}

const struct cli_command cmd_svg_def = {
	.name = "svg",
	.fn = cmd_svg,
	.summary = "render folded stacks as an interactive SVG flame graph (flamegraph.pl drop-in)",
	.synopsis = "[options] [FILE...]",
	.description = "Renders folded stacks (\"frame;frame;frame count\", or \"stack before after\" for a "
		       "differential graph) as an interactive SVG flame graph. Several files merge (files of "
		       "different ranks only with --allow-ranks); no file or \"-\" reads stdin. The options are "
		       "flamegraph.pl's; the single-dash forms such as -title also work.\n\n"
		       "  gpuflame fold --weight gpu trace.json.gz | gpuflame svg --colors gpu -o gpu.svg",
	.opts = opts,
	.operands = CLI_OPERAND_FOLDED,
	.long_only = true,
	.doc = "svg.md",
	.exits = "0 ok, 1 bad or empty input, 2 usage error or mixed ranks, 3 output not written, 4 internal "
		 "limit.",
	.output = "SVG (flamegraph.pl's, with its viewer)",
};
