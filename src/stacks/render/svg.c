/*
 * svg.c — interactive SVG flame graph from a call tree (see svg.h).
 *
 * Two passes: a depth-first walk over the tree that visits only frames at
 * least minwidth wide (pruned subtrees are never entered, their weight is
 * summed into one aggregate frame per parent), then the emission of the
 * collected frames. The embedded viewer script is our own.
 */
#include "stacks/render/svg.h"

#include "base/vec.h"
#include "base/escape.h"
#include "base/num.h"
#include "stacks/weight.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define XPAD 10
#define FRAMEPAD 1
#define SEARCHCOLOR "rgb(230,0,230)"

struct frm {
	uint32_t node;  /* tree node; for an aggregate, its parent */
	uint32_t depth;
	uint32_t agg;   /* 0, or the number of pruned children it stands for */
	int64_t x, w;   /* in tree units, w in the width column */
};

struct out {
	struct sbuf *b;
	FILE *fp;
	bool fail;
};

static void out_flush(struct out *o, bool force)
{
	if (!o->fp || (!force && o->b->len < (1u << 16)))
		return;
	if (o->b->len && fwrite(o->b->buf, 1, o->b->len, o->fp) != o->b->len)
		o->fail = true;
	sbuf_reset(o->b);
}

void svg_opts_init(struct svg_opts *o)
{
	memset(o, 0, sizeof *o);
	o->width = 1200;
	o->frameheight = 16;
	o->minwidth = 0.1;
	o->fonttype = "Verdana";
	o->fontsize = 12;
	o->fontwidth = 0.59;
	o->countname = "samples";
	o->nametype = "Function:";
	o->colors = "hot";
}

static bool font_char(long cp)
{
	if (cp < 0x80)
		return (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z') || (cp >= '0' && cp <= '9') ||
		       cp == ' ' || cp == '.' || cp == '_' || cp == '-';
	/* letters of other scripts; not C1 controls, bidi controls, line
	 * separators or non-characters */
	return cp >= 0xa0 && cp != 0x200e && cp != 0x200f && !(cp >= 0x2028 && cp <= 0x202e) &&
	       !(cp >= 0x2066 && cp <= 0x2069) && cp != 0xfeff && cp != 0xfffe && cp != 0xffff;
}

bool svg_fonttype_ok(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s);
	if (n == 0 || n > 256)
		return false;
	long quote = 0;
	bool name = false; /* the current family has a character */
	for (size_t i = 0; i < n;) {
		long cp;
		int k = esc_utf8_next(p + i, n - i, &cp);
		if (cp < 0)
			return false;
		if (quote) {
			if (cp == quote)
				quote = 0;
			else if (!font_char(cp))
				return false;
			else
				name = true;
		} else if (cp == '\'' || cp == '"') {
			quote = cp;
		} else if (cp == ',') {
			if (!name)
				return false;
			name = false;
		} else if (!font_char(cp)) {
			return false;
		} else if (cp != ' ') {
			name = true;
		}
		i += (size_t)k;
	}
	return !quote && name;
}

void svg_apply_header(struct svg_opts *o, const struct ftree *t, unsigned given, struct sbuf *title,
		      struct sbuf *subtitle)
{
	const struct ftree_meta *m = &t->meta;
	const char *unit = ftree_meta_get(m, "unit"), *w = ftree_meta_get(m, "weight");
	const char *kinds = ftree_meta_get(m, "kinds");
	if (unit && *unit && !(given & SVG_GIVEN_COUNTNAME)) {
		o->countname = unit;
		/* fold writes integer ns (every folded-stack reader takes
		 * integers); tooltips show them as us with 3 decimals, exact,
		 * unless --countname or --factor says otherwise */
		if (!strcmp(unit, "ns") && !(given & SVG_GIVEN_FACTOR) && !o->factor_num) {
			o->countname = "us";
			o->factor_num = 1;
			o->factor_scale = 3;
		}
		/* perf's periods of a non-clock event count that event */
		const char *ev = ftree_meta_get(m, "event");
		if (!strcmp(unit, "events") && ev && *ev)
			o->countname = ev;
	}
	o->kinds = kinds && !strcmp(kinds, "yes");
	int wi = w ? weight_find(w) : -1;
	const char *wt = wi >= 0 ? weight_defs[wi].title : NULL;
	if (!wt)
		return; /* not gpuflame fold's output */
	o->root_label = "all";
	o->self_line = t->ncols != 2;
	const char *st = ftree_meta_get(m, "steps"), *nm = ftree_meta_get(m, "normalised"),
		   *ps = ftree_meta_get(m, "per_step");
	int64_t nsteps = 0;
	if (st && !nm && !ps && t->ncols != 2 && num_parse(st, strlen(st), 0, 0, &nsteps) == NUM_OK && nsteps > 0)
		o->steps = (uint64_t)nsteps;
	if (!(given & SVG_GIVEN_COLORS) && t->ncols != 2)
		o->colors = "gpu";
	if (!(given & SVG_GIVEN_TITLE)) {
		sbuf_reset(title);
		sbuf_addstr(title, wt);
		if (t->flamechart)
			sbuf_addstr(title, " (flame chart)");
		else if (o->inverted)
			sbuf_addstr(title, " (icicle)");
		o->title = title->buf;
	}
	if (given & SVG_GIVEN_SUBTITLE)
		return;
	sbuf_reset(subtitle);
	const char *v;
	if ((v = ftree_meta_get(m, "steps")) && strcmp(v, "0"))
		sbuf_addf(subtitle, "%s step%s", v, strcmp(v, "1") ? "s" : "");
	if ((v = ftree_meta_get(m, "normalised")) && !strcmp(v, "per-step"))
		sbuf_addstr(subtitle, " (per step)");
	else if ((v = ftree_meta_get(m, "per_step")) && !strcmp(v, "yes"))
		sbuf_addstr(subtitle, " (one tower each)");
	if ((v = ftree_meta_get(m, "rank"))) {
		sbuf_addf(subtitle, "%srank %s", subtitle->len ? ", " : "", v);
		if ((v = ftree_meta_get(m, "world_size")))
			sbuf_addf(subtitle, " of %s", v);
	}
	if ((v = ftree_meta_get(m, "source")) && *v)
		sbuf_addf(subtitle, "%s%s", subtitle->len ? ", " : "", v);
	for (unsigned i = 0; i < m->n; i++)
		if (!strncmp(m->kv[i].key, "label.", 6))
			sbuf_addf(subtitle, "%s%s=%s", subtitle->len ? ", " : "", m->kv[i].key + 6, m->kv[i].val);
	if (subtitle->len)
		o->subtitle = subtitle->buf;
}

const char *svg_default_title(const struct ftree *t, const struct svg_opts *o)
{
	if (o->title && *o->title)
		return o->title;
	if (t->flamechart)
		return "Flame Chart";
	return o->inverted ? "Icicle Graph" : "Flame Graph";
}

/* ---- number formatting ---- */

/* Appends |v| / 10^scale (v a 128-bit integer) with thousands commas and the
 * fraction trimmed of trailing zeros. */
static void fmt_weight(struct sbuf *b, __int128 v, unsigned scale)
{
	if (v < 0) {
		sbuf_addch(b, '-');
		v = -v;
	}
	char dig[64];
	int n = 0;
	do {
		dig[n++] = (char)('0' + (int)(v % 10));
		v /= 10;
	} while (v);
	while (n <= (int)scale)
		dig[n++] = '0';
	/* dig[0] is the least significant digit */
	int ip = n - (int)scale; /* integer digits */
	for (int i = n - 1, k = ip; i >= (int)scale; i--, k--) {
		sbuf_addch(b, dig[i]);
		if (k > 1 && (k - 1) % 3 == 0)
			sbuf_addch(b, ',');
	}
	int lo = 0;
	while (lo < (int)scale && dig[lo] == '0')
		lo++;
	if (lo < (int)scale) {
		sbuf_addch(b, '.');
		for (int i = (int)scale - 1; i >= lo; i--)
			sbuf_addch(b, dig[i]);
	}
}

/* Appends 100 * num / den with two decimals, rounded half away from zero,
 * with a '+' for positive values when plus is set. den > 0. */
static void fmt_pct(struct sbuf *b, int64_t num, int64_t den, bool plus)
{
	bool neg = num < 0;
	__int128 a = neg ? -(__int128)num : (__int128)num;
	__int128 q = (a * 20000 + den) / ((__int128)den * 2);
	if (neg)
		sbuf_addch(b, '-');
	else if (plus && num > 0)
		sbuf_addch(b, '+');
	sbuf_addf(b, "%lld.%02d", (long long)(q / 100), (int)(q % 100));
}

static double round1(double v)
{
	char tmp[64];
	snprintf(tmp, sizeof tmp, "%.1f", v);
	return strtod(tmp, NULL);
}

static void add_num(struct sbuf *b, double v)
{
	sbuf_addf(b, "%.10g", v);
}

/* ---- names ---- */

/* Length of name without a trailing "_[k]" style annotation. */
static size_t strip_annotation(const char *s, size_t n, bool kinds)
{
	if (kinds && palette_kind_suffix(s, n, NULL))
		return n - 5;
	if (n >= 4 && s[n - 4] == '_' && s[n - 3] == '[' && s[n - 1] == ']' &&
	    strchr("kwij", s[n - 2]) && s[n - 2])
		return n - 4;
	return n;
}

/* Appends the label that fits `chars` characters (flamegraph.pl's rule). */
static void add_label(struct sbuf *b, const char *s, size_t n, long chars)
{
	if (chars < 3)
		return;
	size_t i = 0;
	long cnt = 0;
	size_t cut = 0; /* byte length of the first chars-2 characters */
	while (i < n && cnt < chars) {
		long cp;
		int k = esc_utf8_next((const unsigned char *)s + i, n - i, &cp);
		i += (size_t)k;
		cnt++;
		if (cnt == chars - 2)
			cut = i;
	}
	if (i < n) { /* longer than chars: keep chars-2 and ".." */
		esc_xml(b, s, cut);
		sbuf_addstr(b, "..");
	} else {
		esc_xml(b, s, n);
	}
}

/* Text for an XML comment: escaped, and no "--" (not allowed in comments). */
static void add_comment_text(struct sbuf *b, const char *s)
{
	struct sbuf tmp = SBUF_INIT;
	esc_xml(&tmp, s, strlen(s));
	char prev = 0;
	for (size_t i = 0; i < tmp.len; i++) {
		if (tmp.buf[i] == '-' && prev == '-')
			sbuf_addch(b, ' ');
		sbuf_addch(b, tmp.buf[i]);
		prev = tmp.buf[i];
	}
	if (prev == '-')
		sbuf_addch(b, ' ');
	sbuf_release(&tmp);
}

/* Escaped text whose lines are joined by an XML newline reference. */
static void add_multiline(struct sbuf *b, const char *s, size_t n)
{
	size_t st = 0;
	for (size_t i = 0; i <= n; i++)
		if (i == n || s[i] == '\n') {
			size_t e = i;
			if (e > st && s[e - 1] == '\r')
				e--;
			if (st)
				sbuf_addstr(b, "&#10;");
			esc_xml(b, s + st, e - st);
			st = i + 1;
		}
}

/* ---- layout ---- */

struct walk {
	const struct ftree *t;
	const int64_t *w; /* width column */
	double minw;      /* minimum width in tree units */
	VEC(struct frm) frames;
	uint64_t pruned, aggregates;
	unsigned depthmax;
};

static void layout(struct walk *wk)
{
	const struct ftree *t = wk->t;
	VEC(struct frm) stack = VEC_INIT;
	VEC(struct frm) kids = VEC_INIT;
	struct frm root = {0, 0, 0, 0, wk->w[0]};
	vec_push(&stack, root);
	while (stack.n) {
		struct frm f = stack.v[--stack.n];
		vec_push(&wk->frames, f);
		if (f.depth > wk->depthmax)
			wk->depthmax = f.depth;
		if (f.agg)
			continue;
		kids.n = 0;
		int64_t sum = 0, pw = 0;
		uint32_t pn = 0;
		for (uint32_t c = t->child[f.node]; c != FT_NONE; c = t->sib[c]) {
			int64_t cw = wk->w[c];
			sum += cw;
			if ((double)cw < wk->minw) {
				pn++;
				pw += cw;
				continue;
			}
			struct frm k = {c, f.depth + 1, 0, 0, cw};
			vec_push(&kids, k);
		}
		if (f.depth + 1 == UINT32_MAX)
			continue;
		int64_t cur = f.x + (f.w - sum); /* self weight at the left edge */
		for (size_t i = 0; i < kids.n; i++) {
			kids.v[i].x = cur;
			cur += kids.v[i].w;
		}
		wk->pruned += pn;
		if (pn >= 2 && (double)pw >= wk->minw) {
			struct frm a = {f.node, f.depth + 1, pn, cur, pw};
			vec_push(&stack, a);
			wk->aggregates++;
		}
		for (size_t i = kids.n; i-- > 0;)
			vec_push(&stack, kids.v[i]);
	}
	vec_free(&stack);
	vec_free(&kids);
}

/* ---- the viewer script (ours) ---- */

static const char *const js_body =
"var frames = [], details, matchedtxt, searchbtn, unzoombtn, icbtn, ignorecase = false;\n"
"var zoomed = null, lastTerm = null, matches = [];\n"
"function init(evt) {\n"
"  details = document.getElementById('details').firstChild;\n"
"  matchedtxt = document.getElementById('matched');\n"
"  searchbtn = document.getElementById('search');\n"
"  unzoombtn = document.getElementById('unzoom');\n"
"  icbtn = document.getElementById('ignorecase');\n"
"  var gs = document.getElementById('frames').children;\n"
"  for (var i = 0; i < gs.length; i++) {\n"
"    var g = gs[i], r = g.querySelector('rect'), t = g.querySelector('text');\n"
"    var ti = g.querySelector('title');\n"
"    var tip = ti ? ti.textContent.split('\\n')[0] : '';\n"
"    var name = g.getAttribute('data-n');\n"
"    if (name === null) { var p = tip.lastIndexOf(' ('); name = p >= 0 ? tip.substring(0, p) : tip; }\n"
"    var f = { g: g, r: r, t: t, name: name, tip: tip,\n"
"      x: +g.getAttribute('data-x'), w: +g.getAttribute('data-w'), d: +g.getAttribute('data-d'),\n"
"      rx: r.getAttribute('x'), rw: r.getAttribute('width'), tx: t.getAttribute('x'),\n"
"      label: t.textContent, fill: r.getAttribute('fill') };\n"
"    frames.push(f);\n"
"    hook(f);\n"
"  }\n"
"  unzoombtn.addEventListener('click', function () { resetZoom(); });\n"
"  searchbtn.addEventListener('click', function () {\n"
"    if (lastTerm !== null) resetSearch(); else searchPrompt();\n"
"  });\n"
"  icbtn.addEventListener('click', function () {\n"
"    ignorecase = !ignorecase;\n"
"    if (ignorecase) icbtn.classList.add('show'); else icbtn.classList.remove('show');\n"
"    if (lastTerm !== null) search(lastTerm);\n"
"  });\n"
"  window.addEventListener('keydown', function (e) {\n"
"    if (e.keyCode === 114 || ((e.ctrlKey || e.metaKey) && e.keyCode === 70)) {\n"
"      e.preventDefault(); searchPrompt();\n"
"    } else if (e.key === 'Escape') { resetSearch(); resetZoom(); }\n"
"  });\n"
"}\n"
"function hook(f) {\n"
"  f.g.addEventListener('click', function (e) { e.stopPropagation(); zoom(f); });\n"
"  f.g.addEventListener('mouseover', function () { details.nodeValue = gf.nametype + ' ' + f.tip; });\n"
"  f.g.addEventListener('mouseout', function () { details.nodeValue = ' '; });\n"
"}\n"
"function fit(f, wpx) {\n"
"  var c = Math.floor(wpx / (gf.fs * gf.fw)), s = '';\n"
"  if (c >= 3) {\n"
"    var a = Array.from(f.name);\n"
"    s = a.length > c ? a.slice(0, c - 2).join('') + '..' : f.name;\n"
"  }\n"
"  f.t.textContent = s;\n"
"}\n"
"function place(f, x, w) {\n"
"  f.r.setAttribute('x', x.toFixed(1));\n"
"  f.r.setAttribute('width', w.toFixed(1));\n"
"  f.t.setAttribute('x', (x + 3).toFixed(2));\n"
"  fit(f, w);\n"
"}\n"
"function zoom(f) {\n"
"  if (typeof f === 'number') f = frames[f];\n"
"  if (!f || f.d === 0 || f.w <= 0) { resetZoom(); return; }\n"
"  var full = gf.W - 2 * gf.xpad, sc = full / f.w;\n"
"  for (var i = 0; i < frames.length; i++) {\n"
"    var e = frames[i];\n"
"    e.g.classList.remove('hide'); e.g.classList.remove('parent');\n"
"    if (e.d < f.d && e.x <= f.x && e.x + e.w >= f.x + f.w) {\n"
"      e.g.classList.add('parent'); place(e, gf.xpad, full);\n"
"    } else if (e.d >= f.d && e.x >= f.x && e.x + e.w <= f.x + f.w && (e.w > 0 || e.x < f.x + f.w)) {\n"
"      place(e, gf.xpad + (e.x - f.x) * sc, e.w * sc);\n"
"    } else {\n"
"      e.g.classList.add('hide');\n"
"    }\n"
"  }\n"
"  zoomed = f;\n"
"  unzoombtn.classList.remove('hide');\n"
"  updateMatched();\n"
"}\n"
"function resetZoom() {\n"
"  for (var i = 0; i < frames.length; i++) {\n"
"    var e = frames[i];\n"
"    e.g.classList.remove('hide'); e.g.classList.remove('parent');\n"
"    e.r.setAttribute('x', e.rx); e.r.setAttribute('width', e.rw);\n"
"    e.t.setAttribute('x', e.tx); e.t.textContent = e.label;\n"
"  }\n"
"  zoomed = null;\n"
"  unzoombtn.classList.add('hide');\n"
"  updateMatched();\n"
"}\n"
"function searchPrompt() {\n"
"  var term = prompt('Search for (regular expression)' + (ignorecase ? ', ignoring case' : ''), '');\n"
"  if (term !== null && term !== '') search(term);\n"
"}\n"
"function search(term) {\n"
"  var re;\n"
"  try {\n"
"    if (term instanceof RegExp) re = new RegExp(term.source, term.flags.replace('g', ''));\n"
"    else re = new RegExp(term, ignorecase ? 'i' : '');\n"
"  } catch (err) {\n"
"    matchedtxt.firstChild.nodeValue = 'Invalid regular expression';\n"
"    return -1;\n"
"  }\n"
"  lastTerm = term; matches = [];\n"
"  for (var i = 0; i < frames.length; i++) {\n"
"    var e = frames[i];\n"
"    if (re.test(e.name)) { e.r.setAttribute('fill', gf.searchcolor); matches.push(e); }\n"
"    else e.r.setAttribute('fill', e.fill);\n"
"  }\n"
"  searchbtn.classList.add('show');\n"
"  searchbtn.firstChild.nodeValue = 'Reset Search';\n"
"  return updateMatched();\n"
"}\n"
"function resetSearch() {\n"
"  for (var i = 0; i < frames.length; i++) frames[i].r.setAttribute('fill', frames[i].fill);\n"
"  lastTerm = null; matches = [];\n"
"  searchbtn.classList.remove('show');\n"
"  searchbtn.firstChild.nodeValue = 'Search';\n"
"  matchedtxt.firstChild.nodeValue = ' ';\n"
"}\n"
"/* Weight covered by the union of the intervals [lo, hi): nested matches count once. */\n"
"function covered(iv) {\n"
"  iv.sort(function (a, b) { return a[0] - b[0] || b[1] - a[1]; });\n"
"  var sum = 0, end = -Infinity;\n"
"  for (var i = 0; i < iv.length; i++) {\n"
"    var lo = Math.max(iv[i][0], end), hi = iv[i][1];\n"
"    if (hi > lo) { sum += hi - lo; end = hi; }\n"
"  }\n"
"  return sum;\n"
"}\n"
"function pct(v, d) { return (d > 0 ? 100 * v / d : 0).toFixed(2); }\n"
"/* Matched share of the whole profile (independent of zoom), plus the share\n"
"   of the zoomed frame when zoomed. @return the first as a number. */\n"
"function updateMatched() {\n"
"  if (lastTerm === null) return 0;\n"
"  var all = [], inz = [];\n"
"  for (var i = 0; i < matches.length; i++) {\n"
"    var e = matches[i];\n"
"    all.push([e.x, e.x + e.w]);\n"
"    if (zoomed) {\n"
"      var lo = Math.max(e.x, zoomed.x), hi = Math.min(e.x + e.w, zoomed.x + zoomed.w);\n"
"      var vis = e.d >= zoomed.d || (e.x <= zoomed.x && e.x + e.w >= zoomed.x + zoomed.w);\n"
"      if (vis && hi > lo) inz.push([lo, hi]);\n"
"    }\n"
"  }\n"
"  var p = pct(covered(all), gf.total);\n"
"  var s = 'Matched: ' + p + '%';\n"
"  if (zoomed) s += ' (' + pct(covered(inz), zoomed.w) + '% of zoomed frame)';\n"
"  matchedtxt.firstChild.nodeValue = s;\n"
"  return +p;\n"
"}\n"
"window.gfSearch = search; window.gfResetSearch = resetSearch;\n"
"window.gfZoom = zoom; window.gfResetZoom = resetZoom;\n";

/* ---- rendering ---- */

struct ctx {
	const struct ftree *t;
	const struct svg_opts *o;
	struct out *out;
	int pal;
	int col; /* width column */
	int64_t timemax;
	double wpt;
	unsigned height;
	double ypad1, ypad2, ypad3, legend_h;
	int64_t maxdelta;
	uint64_t rng;
	struct sbuf tmp;
};

static double rnd(struct ctx *c)
{
	/* xorshift64* */
	c->rng ^= c->rng >> 12;
	c->rng ^= c->rng << 25;
	c->rng ^= c->rng >> 27;
	return (double)((c->rng * 0x2545F4914F6CDD1DULL) >> 11) / 9007199254740992.0;
}

static void frame_color(struct ctx *c, const struct frm *f, const char *name, size_t nl,
			char rgb[24])
{
	const struct svg_opts *o = c->o;
	const struct ftree *t = c->t;
	if (f->agg) {
		snprintf(rgb, 24, "rgb(190,190,190)");
		return;
	}
	if (o->color && o->color(o->ctx, t, f->node, rgb)) {
		rgb[23] = 0;
		/* keep only a plain colour in the attribute */
		if (strspn(rgb, "rgbaRGBA(),.#% 0123456789abcdefABCDEF") == strlen(rgb) && rgb[0])
			return;
	}
	if (nl == 2 && !memcmp(name, "--", 2)) {
		snprintf(rgb, 24, "rgb(160,160,160)");
		return;
	}
	if (nl == 1 && name[0] == '-') {
		snprintf(rgb, 24, "rgb(200,200,200)");
		return;
	}
	if (t->ncols == 2) {
		int64_t d = ftree_self(t, f->node, 1) - ftree_self(t, f->node, 0);
		if (f->node == 0)
			d = 0;
		if (o->negate)
			d = -d;
		int r = 255, g = 255, b = 255;
		double m = (double)c->maxdelta;
		if (d > 0)
			g = b = (int)(210.0 * (m - (double)d) / m);
		else if (d < 0)
			r = g = (int)(210.0 * (m + (double)d) / m);
		snprintf(rgb, 24, "rgb(%u,%u,%u)", (unsigned char)(r < 0 ? 0 : r),
			 (unsigned char)(g < 0 ? 0 : g), (unsigned char)(b < 0 ? 0 : b));
		return;
	}
	bool use_cp = o->cp && f->node != 0;
	if (use_cp) {
		const char *m = palmap_get(o->cp, name, nl);
		if (m) {
			snprintf(rgb, 24, "%s", m);
			return;
		}
	}
	if (o->colordiffusion) {
		palette_diffusion(c->timemax > 0 ? ((double)(f->x + f->w) * (100.0 / (double)c->timemax) -
						    (double)f->x * (100.0 / (double)c->timemax)) / 100.0 : 0,
				  rgb);
		return;
	}
	double v1, v2, v3;
	if (o->deterministic) {
		palette_fnv(name, nl, &v1, &v2, &v3);
	} else if (o->hash) {
		v1 = palette_namehash(name, nl, false);
		v2 = v3 = palette_namehash(name, nl, true);
	} else if (o->random) {
		v1 = rnd(c);
		v2 = rnd(c);
		v3 = rnd(c);
	} else {
		v1 = v2 = v3 = palette_random_namehash(name, nl);
	}
	palette_rgb(c->pal, name, nl, v1, v2, v3, rgb);
	if (use_cp)
		palmap_set(o->cp, name, nl, rgb);
}

static void weight_text(struct ctx *c, struct sbuf *b, int64_t w)
{
	const struct svg_opts *o = c->o;
	__int128 v = w;
	unsigned scale = c->t->scale;
	if (o->factor_num) {
		v *= o->factor_num;
		scale += o->factor_scale;
	}
	fmt_weight(b, v, scale);
	sbuf_addch(b, ' ');
	const char *cn = o->countname ? o->countname : "samples";
	esc_xml(b, cn, strlen(cn));
}

/* The header's tooltip lines (svg_opts.self_line, .steps), "&#10;"-separated:
 * the first line stays flamegraph.pl's "name (N unit, P%)". */
static void extra_lines(struct ctx *c, struct sbuf *b, const struct frm *f)
{
	const struct svg_opts *o = c->o;
	int64_t total = f->node == 0 ? c->timemax : f->w;
	if (o->self_line && f->node != 0) {
		int64_t self = ftree_self(c->t, f->node, 0);
		sbuf_addstr(b, "&#10;self: ");
		weight_text(c, b, self);
		sbuf_addstr(b, " (");
		fmt_pct(b, self, c->timemax, false);
		sbuf_addstr(b, "%)");
	}
	if (o->steps) {
		/* total / steps, exact to 3 more decimals (half to even) */
		int64_t v = 0;
		if (num_muldiv(total, 1000, (int64_t)o->steps, &v)) {
			sbuf_addstr(b, "&#10;per step: ");
			__int128 x = v;
			unsigned scale = c->t->scale + 3;
			if (o->factor_num) {
				x *= o->factor_num;
				scale += o->factor_scale;
			}
			fmt_weight(b, x, scale);
			sbuf_addch(b, ' ');
			esc_xml(b, o->countname ? o->countname : "samples", strlen(o->countname ? o->countname : "samples"));
			sbuf_addf(b, " (%llu steps)", (unsigned long long)o->steps);
		}
	}
}

static void emit_frame(struct ctx *c, const struct frm *f)
{
	const struct ftree *t = c->t;
	const struct svg_opts *o = c->o;
	struct sbuf *b = c->out->b;
	char aggname[64];
	const char *name;
	size_t nl;
	if (f->agg) {
		snprintf(aggname, sizeof aggname, "[%u frames < minwidth]", f->agg);
		name = aggname;
		nl = strlen(aggname);
	} else if (f->node == 0) {
		name = "";
		nl = 0;
	} else {
		name = ftree_name(t, f->node);
		nl = pool_len(t->names, t->name[f->node]);
	}
	size_t shown = f->agg || f->node == 0 ? nl : strip_annotation(name, nl, o->kinds);
	bool custom = o->tooltip && !f->agg && f->node != 0;

	sbuf_addf(b, "<g data-x=\"%lld\" data-w=\"%lld\" data-d=\"%u\"", (long long)f->x,
		  (long long)f->w, f->depth);
	if (custom) {
		sbuf_addstr(b, " data-n=\"");
		esc_xml(b, name, shown);
		sbuf_addch(b, '"');
	}
	sbuf_addstr(b, ">\n<title>");
	if (custom) {
		sbuf_reset(&c->tmp);
		o->tooltip(o->ctx, t, f->node, &c->tmp);
		add_multiline(b, c->tmp.buf, c->tmp.len);
	} else if (f->node == 0 && !f->agg) {
		sbuf_addstr(b, "all (");
		weight_text(c, b, c->timemax);
		sbuf_addstr(b, ", 100%)");
	} else {
		esc_xml(b, name, shown);
		sbuf_addstr(b, " (");
		weight_text(c, b, f->w);
		sbuf_addstr(b, ", ");
		fmt_pct(b, f->w, c->timemax, false);
		sbuf_addch(b, '%');
		if (t->ncols == 2 && !f->agg) {
			int64_t d = ftree_self(t, f->node, 1) - ftree_self(t, f->node, 0);
			if (o->negate)
				d = -d;
			sbuf_addstr(b, "; ");
			fmt_pct(b, d, c->timemax, true);
			sbuf_addch(b, '%');
		}
		sbuf_addch(b, ')');
	}
	if (!custom && !f->agg)
		extra_lines(c, b, f);
	sbuf_addstr(b, "</title>");

	double x1 = XPAD + (double)f->x * c->wpt;
	double x2 = f->node == 0 && !f->agg ? XPAD + (double)c->timemax * c->wpt
					    : XPAD + (double)(f->x + f->w) * c->wpt;
	double fh = o->frameheight;
	double y1, y2;
	if (!o->inverted) {
		y1 = c->height - c->ypad2 - (f->depth + 1) * fh + FRAMEPAD;
		y2 = c->height - c->ypad2 - f->depth * fh;
	} else {
		double top = c->ypad1 + c->ypad3 + c->legend_h;
		y1 = top + f->depth * fh;
		y2 = top + (f->depth + 1) * fh - FRAMEPAD;
	}
	char rgb[24];
	frame_color(c, f, name, nl, rgb);
	double rx1 = round1(x1), rx2 = round1(x2);
	sbuf_addf(b, "<rect x=\"%.1f\" y=\"", rx1);
	add_num(b, y1);
	sbuf_addf(b, "\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"", rx2 - rx1, y2 - y1, rgb);
	if (o->stroke && !f->agg) {
		double sw = 0;
		char src[24];
		if (o->stroke(o->ctx, t, f->node, src, &sw)) {
			src[23] = 0;
			if (!(sw >= 0.1)) /* NaN too */
				sw = 0.1;
			if (sw > 10)
				sw = 10;
			if (src[0] && strspn(src, "rgbaRGBA(),.#% 0123456789abcdefABCDEF") == strlen(src))
				sbuf_addf(b, " stroke=\"%s\" stroke-width=\"%.1f\"", src, sw);
		}
	}
	sbuf_addstr(b, " rx=\"2\" ry=\"2\"/>\n");
	sbuf_addf(b, "<text x=\"%.2f\" y=\"", x1 + 3);
	add_num(b, 3 + (y1 + y2) / 2);
	sbuf_addstr(b, "\">");
	if (f->node != 0 || f->agg)
		add_label(b, name, shown, (long)((x2 - x1) / (o->fontsize * o->fontwidth)));
	else if (o->root_label)
		add_label(b, o->root_label, strlen(o->root_label), (long)((x2 - x1) / (o->fontsize * o->fontwidth)));
	sbuf_addstr(b, "</text>\n</g>\n");
	out_flush(c->out, false);
}

static void add_text(struct sbuf *b, const char *id, double x, double y, const char *extra,
		     const char *s)
{
	sbuf_addstr(b, "<text");
	if (id)
		sbuf_addf(b, " id=\"%s\"", id);
	sbuf_addf(b, " x=\"%.2f\" y=\"", x);
	add_num(b, y);
	sbuf_addch(b, '"');
	if (extra)
		sbuf_addf(b, " %s", extra);
	sbuf_addch(b, '>');
	esc_xml(b, s, strlen(s));
	sbuf_addstr(b, "</text>\n");
}

static const enum gpu_class gpu_key_order[] = {
	GPU_PYTHON, GPU_MODULE, GPU_ATEN, GPU_RUNTIME, GPU_SYNC, GPU_K_GEMM, GPU_K_ATTN,
	GPU_K_COMM, GPU_K_TRITON, GPU_K_COPY, GPU_K_OTHER, GPU_MARKER, GPU_OTHER,
};

/* Width of one key item: swatch, gap, label (estimated generously, since
 * capitals are wider than fontwidth's average glyph), gap. */
static double gpu_key_item_w(const struct svg_opts *o, const char *lab)
{
	double fs = o->fontsize;
	return fs + 3 + (double)strlen(lab) * fs * (o->fontwidth + 0.1) + fs;
}

/* Rows the gpu colour key needs at the image width (it wraps). */
static unsigned gpu_key_rows(const struct svg_opts *o)
{
	unsigned rows = 1;
	double x = XPAD;
	for (size_t i = 0; i < GF_ARRAY_LEN(gpu_key_order); i++) {
		double w = gpu_key_item_w(o, palette_gpu_label(gpu_key_order[i]));
		if (x > XPAD && x + w > o->width - XPAD) {
			rows++;
			x = XPAD;
		}
		x += w;
	}
	return rows;
}

static unsigned legend_lines(const struct ftree *t, const struct svg_opts *o, int pal)
{
	unsigned n = 0;
	if (o->legend)
		while (o->legend[n])
			n++;
	return n + (pal == PAL_GPU && t->ncols == 1 && !o->color ? gpu_key_rows(o) : 0);
}

/* The gpu palette's colour key: a swatch and a label per class, wrapped to
 * the image width (gpu_key_rows rows). */
static void emit_gpu_key(struct ctx *c, double y)
{
	struct sbuf *b = c->out->b;
	double fs = c->o->fontsize, x = XPAD;
	sbuf_addstr(b, "<g id=\"legend\">\n");
	for (size_t i = 0; i < GF_ARRAY_LEN(gpu_key_order); i++) {
		char rgb[24];
		const char *lab = palette_gpu_label(gpu_key_order[i]);
		double w = gpu_key_item_w(c->o, lab);
		if (x > XPAD && x + w > c->o->width - XPAD) {
			x = XPAD;
			y += fs * 1.5;
		}
		palette_gpu_rgb(gpu_key_order[i], 0.5, rgb);
		sbuf_addf(b, "<rect x=\"%.1f\" y=\"", x);
		add_num(b, y - fs * 0.85);
		sbuf_addf(b, "\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\" rx=\"2\" ry=\"2\"/>\n",
			  fs, fs, rgb);
		add_text(b, NULL, x + fs + 3, y, NULL, lab);
		x += w;
	}
	sbuf_addstr(b, "</g>\n");
}

int64_t svg_keep_min(const struct svg_opts *o, int64_t real_total)
{
	double mw = real_total > 0 ? svg_min_weight(o, real_total) : 0;
	return mw <= 0 || mw != mw ? 0 : mw >= 9.0e18 ? INT64_MAX : (int64_t)mw;
}

int svg_read_strategy(bool flamechart, bool fulltree, bool rereadable)
{
	return !flamechart && !fulltree && rereadable ? SVG_READ_PRUNED : SVG_READ_TREE;
}

double svg_min_weight(const struct svg_opts *o, int64_t real)
{
	int64_t timemax = o->total > real ? o->total : real;
	double wpt = (double)(o->width - 2 * XPAD) / (double)timemax;
	return o->minwidth_pct ? (double)timemax * o->minwidth / 100 : o->minwidth / wpt;
}

static int render(const struct ftree *t, const struct svg_opts *o, struct out *out,
		  struct svg_stats *st, struct sbuf *err)
{
	struct ctx c;
	memset(&c, 0, sizeof c);
	c.t = t;
	c.o = o;
	c.out = out;
	c.col = t->ncols == 2 ? 1 : 0;
	c.pal = palette_find(o->colors ? o->colors : "hot");
	if (c.pal < 0) {
		sbuf_setf(err, "unknown palette '%s'", o->colors);
		return GF_EUSAGE;
	}
	char bg1[8], bg2[8];
	if (palette_bg(c.pal, o->bgcolors, bg1, bg2)) {
		sbuf_setf(err, "unknown background '%s' (expected yellow, blue, green, grey or #rrggbb)",
			  o->bgcolors);
		return GF_EUSAGE;
	}
	if (o->width <= 2 * XPAD || o->width > 1000000 || o->frameheight < 2 ||
	    o->frameheight > 100000) {
		sbuf_setf(err, "width must be 21..1000000 and height 2..100000 px");
		return GF_EUSAGE;
	}
	if (o->fonttype && !svg_fonttype_ok(o->fonttype)) {
		sbuf_setf(err, "invalid font family (expected names of letters, digits, blanks and . _ -, "
			       "or quoted, separated by commas)");
		return GF_EUSAGE;
	}
	if (!(o->fontsize > 0 && o->fontsize < 10000) || !(o->fontwidth > 0 && o->fontwidth < 100) ||
	    !(o->minwidth >= 0) || isinf(o->minwidth)) {
		sbuf_setf(err, "fontsize, fontwidth must be positive and minwidth non-negative");
		return GF_EUSAGE;
	}
	const int64_t *wcol = c.col ? t->total2 : t->total;
	int64_t real = wcol[0];
	if (real <= 0) {
		sbuf_setf(err, "no stack weight to draw (the total is 0)");
		return GF_EINPUT;
	}
	c.timemax = o->total > real ? o->total : real;
	c.wpt = (double)(o->width - 2 * XPAD) / (double)c.timemax;
	struct walk wk;
	memset(&wk, 0, sizeof wk);
	wk.t = t;
	wk.w = wcol;
	wk.minw = svg_min_weight(o, real);
	layout(&wk);

	/* differential: largest self change, at least 1 count */
	if (t->ncols == 2) {
		c.maxdelta = num_pow10(t->scale);
		for (uint32_t i = 1; i < t->n; i++) {
			int64_t d = ftree_self(t, i, 1) - ftree_self(t, i, 0);
			if (d < 0)
				d = -d;
			if (d > c.maxdelta)
				c.maxdelta = d;
		}
	}
	double fs = o->fontsize;
	c.ypad1 = fs * 3;
	c.ypad2 = fs * 2 + 10;
	c.ypad3 = o->subtitle && *o->subtitle ? fs * 2 : 0;
	unsigned nleg = legend_lines(t, o, c.pal);
	c.legend_h = nleg * fs * 1.5;
	double h = (wk.depthmax + 1.0) * o->frameheight + c.ypad1 + c.ypad2 + c.ypad3 + c.legend_h;
	c.height = (unsigned)ceil(h);
	/* keep the integer height: frames are placed from it */
	c.ypad2 += c.height - h;
	if (o->random)
		c.rng = o->seed ? o->seed
				: gf_hash_u64((uint64_t)t->n * 0x9E3779B97F4A7C15ULL ^ (uint64_t)real) | 1;
	sbuf_init(&c.tmp, 256);

	struct sbuf *b = out->b;
	unsigned W = o->width, H = c.height;
	sbuf_addstr(b, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
		       "<!DOCTYPE svg PUBLIC \"-//W3C//DTD SVG 1.1//EN\" "
		       "\"http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd\">\n");
	sbuf_addf(b, "<svg version=\"1.1\" width=\"%u\" height=\"%u\" onload=\"init(evt)\" "
		     "viewBox=\"0 0 %u %u\" xmlns=\"http://www.w3.org/2000/svg\" "
		     "xmlns:xlink=\"http://www.w3.org/1999/xlink\">\n", W, H, W, H);
	sbuf_addstr(b, "<!-- Flame graph rendered by gpuflame (layout and options of "
		       "brendangregg/FlameGraph's flamegraph.pl). Click a frame to zoom, "
		       "Search (Ctrl-F) takes a regular expression. -->\n");
	sbuf_addstr(b, "<!-- NOTES: ");
	if (o->notes)
		add_comment_text(b, o->notes);
	sbuf_addstr(b, " -->\n");
	sbuf_addf(b, "<defs>\n<linearGradient id=\"background\" y1=\"0\" y2=\"1\" x1=\"0\" x2=\"0\">\n"
		     "<stop stop-color=\"%s\" offset=\"5%%\"/>\n<stop stop-color=\"%s\" offset=\"95%%\"/>\n"
		     "</linearGradient>\n</defs>\n", bg1, bg2);
	sbuf_addstr(b, "<style type=\"text/css\">\ntext { font-family:");
	/* checked by svg_fonttype_ok: nothing in it needs escaping in XML text or
	 * can end the CSS declaration */
	sbuf_addstr(b, o->fonttype ? o->fonttype : "Verdana");
	sbuf_addstr(b, "; font-size:");
	add_num(b, fs);
	sbuf_addstr(b, "px; fill:rgb(0,0,0); }\n"
		       "#search, #ignorecase { opacity:0.1; cursor:pointer; }\n"
		       "#search:hover, #search.show, #ignorecase:hover, #ignorecase.show { opacity:1; }\n"
		       "#subtitle { text-anchor:middle; fill:rgb(90,90,90); }\n"
		       "#title { text-anchor:middle; font-size:");
	add_num(b, fs + 5);
	sbuf_addstr(b, "px; }\n#matched { text-anchor:end; }\n#unzoom { cursor:pointer; }\n"
		       "#frames > *:hover { stroke:black; stroke-width:0.5; cursor:pointer; }\n"
		       ".hide { display:none; }\n.parent { opacity:0.5; }\n</style>\n");
	sbuf_addstr(b, "<script type=\"text/ecmascript\"><![CDATA[\n\"use strict\";\nvar gf = { fs: ");
	add_num(b, fs);
	sbuf_addstr(b, ", fw: ");
	add_num(b, o->fontwidth);
	sbuf_addf(b, ", xpad: %d, W: %u, total: %lld, searchcolor: \"%s\", nametype: \"", XPAD, W,
		  (long long)c.timemax, SEARCHCOLOR);
	const char *nt = o->nametype ? o->nametype : "Function:";
	esc_js(b, nt, strlen(nt));
	sbuf_addstr(b, "\" };\n");
	sbuf_addstr(b, js_body);
	sbuf_addstr(b, "]]></script>\n");
	sbuf_addf(b, "<rect x=\"0\" y=\"0\" width=\"%u\" height=\"%u\" fill=\"url(#background)\"/>\n",
		  W, H);
	add_text(b, "title", W / 2.0, fs * 2, NULL, svg_default_title(t, o));
	double ly = fs * 2;
	if (c.ypad3 > 0) {
		add_text(b, "subtitle", W / 2.0, fs * 4, NULL, o->subtitle);
		ly = fs * 4;
	}
	if (o->legend)
		for (unsigned i = 0; o->legend[i]; i++) {
			ly += fs * 1.5;
			add_text(b, NULL, XPAD, ly, "class=\"legend\"", o->legend[i]);
		}
	if (c.pal == PAL_GPU && t->ncols == 1 && !o->color) {
		ly += fs * 1.5;
		emit_gpu_key(&c, ly);
	}
	add_text(b, "details", XPAD, H - c.ypad2 / 2, NULL, " ");
	add_text(b, "unzoom", XPAD, fs * 2, "class=\"hide\"", "Reset Zoom");
	add_text(b, "search", W - XPAD - 100, fs * 2, NULL, "Search");
	add_text(b, "ignorecase", W - XPAD - 16, fs * 2, NULL, "ic");
	add_text(b, "matched", W - XPAD, H - c.ypad2 / 2, NULL, " ");
	sbuf_addstr(b, "<g id=\"frames\">\n");
	for (size_t i = 0; i < wk.frames.n; i++)
		emit_frame(&c, &wk.frames.v[i]);
	sbuf_addstr(b, "</g>\n</svg>\n");

	if (st) {
		st->frames = wk.frames.n;
		st->aggregates = wk.aggregates;
		st->pruned = wk.pruned;
		st->depthmax = wk.depthmax;
		st->height = H;
	}
	vec_free(&wk.frames);
	sbuf_release(&c.tmp);
	return GF_OK;
}

int svg_render(const struct ftree *t, const struct svg_opts *o, FILE *fp,
	       struct svg_stats *st, struct sbuf *err)
{
	struct sbuf b;
	sbuf_init(&b, 1 << 17);
	struct out out = {&b, fp, false};
	int rc = render(t, o, &out, st, err);
	if (rc == GF_OK) {
		out_flush(&out, true);
		if (out.fail) {
			sbuf_setf(err, "cannot write the SVG");
			rc = GF_EOUTPUT;
		}
	}
	sbuf_release(&b);
	return rc;
}

int svg_render_buf(const struct ftree *t, const struct svg_opts *o, struct sbuf *outb,
		   struct svg_stats *st, struct sbuf *err)
{
	struct out out = {outb, NULL, false};
	size_t mark = outb->len;
	int rc = render(t, o, &out, st, err);
	if (rc)
		sbuf_setlen(outb, mark);
	return rc;
}
