/*
 * rx.c — POSIX extended regular expressions, matched by a lazy DFA (rx.h).
 *
 * The pattern is parsed into a small tree, compiled into a Thompson NFA
 * (consume a byte of a set, split, jump, assert, match), and searched
 * with a DFA whose states are the NFA's sets of pending instructions plus
 * the kind of the byte before (start, word, other: what the assertions
 * need). A transition is computed once, on the byte that follows (the
 * assertions look at it), and kept; the search is a loop of table lookups.
 */
#include "base/rx.h"

#include <stdlib.h>
#include <string.h>

/* ---- the cost estimate (what glibc would copy) ---- */

#define RE_BUDGET 100000.0
/* glibc's regcomp keeps, for each node, the set of nodes reachable without
 * consuming a byte: a run of L optional copies (x{0,L}, x?x?..., (a|b?){L})
 * costs about 8 L^2 bytes (a{,4000} 125 MB, a{,8000} 492 MB, measured on
 * glibc 2.36). States under an optional repetition are counted as such
 * (conservatively: all of a repeated group that holds one) and capped. */
#define RE_OPT_BUDGET 2000.0
/* glibc's closure computation is exponential in alternations with two or
 * more branches that match the empty string, repeated or in a row before a
 * star: (|a|){20,} 0.5 s, {24,} 8 s; (a?|b?){18}(a?|b?)* 0.3 s (glibc
 * 2.36). Their copies are counted (a repetition multiplies them as it
 * multiplies states) and capped. */
#define RE_NALT_BUDGET 12.0
#define RE_NALT_MSG "more than 12 alternations with two branches that match nothing (like '(|a|){20,}')"

/* The digits of a repetition bound from p[j] (as a double, stopping past
 * 1e6): *v; @return the index after them. */
static size_t re_bound(const char *p, size_t j, size_t n, double *v)
{
	*v = 0;
	while (j < n && p[j] >= '0' && p[j] <= '9' && *v < 1e6)
		*v = *v * 10 + (p[j++] - '0');
	return j;
}

/* The comma of an interval at p[j]: ',' or, as glibc reads it, an escaped
 * '\,' (its bound reader looks at the character, not the token: "a{2\,}"
 * is a{2,}). @return its length, 0 when none. */
static size_t comma_at(const char *p, size_t n, size_t j)
{
	if (j < n && p[j] == ',')
		return 1;
	return j + 1 < n && p[j] == '\\' && p[j + 1] == ',' ? 2 : 0;
}

const char *rx_too_costly(const char *p, size_t n)
{
	double sum[64], last[64];       /* states: of the sequence, of its last atom */
	double opt[64], lastopt[64];    /* of them, the optional ones (see RE_OPT_BUDGET) */
	double na[64], lastna[64];      /* copies of nullable alternations (RE_NALT_BUDGET) */
	bool pre[64], lastn[64];        /* the branch before its last atom, that atom: match empty */
	int nb[64];                     /* the group's branches that match empty so far */
	int sp = 0;
	sum[0] = last[0] = opt[0] = lastopt[0] = na[0] = lastna[0] = 0;
	pre[0] = lastn[0] = true;
	nb[0] = 0;
	bool after_rep = false; /* the previous token was a repetition */
	for (size_t i = 0; i < n; i++) {
		char c = p[i];
		double factor = 0, optional = 0; /* copies made, of them optional */
		bool min0 = false;               /* the repetition may match nothing */
		if (c == '*' || c == '+' || c == '?') {
			factor = 2;
			optional = 1;
			min0 = c != '+';
		} else if (c == '{') {
			double lo, hi;
			size_t j = re_bound(p, i + 1, n, &lo), cl = comma_at(p, n, j);
			if (cl) {
				size_t k = re_bound(p, j + cl, n, &hi);
				if (k == j + cl)
					hi = -1; /* {m,}: no upper bound */
				j = k;
			} else {
				hi = lo;
			}
			if (j < n && p[j] == '}' && j > i + 1) {
				factor = hi < 0 ? lo + 2 : hi + 1;
				optional = hi < 0 ? 1 : hi > lo ? hi - lo : 0;
				min0 = lo == 0;
				i = j;
			}
		}
		if (factor > 0) {
			if (after_rep)
				return "stacked repetitions (like '++' or '}*')";
			sum[sp] += last[sp] * (factor - 1);
			double o = optional > 0 || lastopt[sp] > 0 ? last[sp] * factor : 0;
			opt[sp] += o - lastopt[sp];
			lastopt[sp] = o;
			last[sp] *= factor;
			na[sp] += lastna[sp] * (factor - 1);
			lastna[sp] *= factor;
			if (min0)
				lastn[sp] = true;
			after_rep = true;
		} else {
			after_rep = false;
			double atom = 1, atomopt = 0, atomna = 0;
			bool atomn = c == '^' || c == '$'; /* zero-width: matches empty */
			if (c == '\\' && i + 1 < n) {
				if (p[i + 1] >= '1' && p[i + 1] <= '9')
					return "back-references";
				atomn = p[i + 1] && strchr("bB<>`'", p[i + 1]) != NULL;
				i++;
			} else if (c == '[') { /* a bracket expression is one atom: find its ']' */
				size_t j = i + 1;
				if (j < n && p[j] == '^')
					j++;
				if (j < n && p[j] == ']')
					j++;
				while (j < n && p[j] != ']') {
					if (p[j] == '[' && j + 1 < n && (p[j + 1] == ':' || p[j + 1] == '.' || p[j + 1] == '=')) {
						/* [:class:], [.c.], [=c=]: up to ":]", ".]" or "=]" (its ']'
						 * does not end the bracket: fuzz_rx's timeout on "[[.b.],[]lA??...") */
						size_t k = j + 2;
						while (k + 1 < n && !(p[k] == p[j + 1] && p[k + 1] == ']'))
							k++;
						j = k + 1 < n ? k + 2 : n;
					} else {
						j++;
					}
				}
				i = j;
			} else if (c == '(') {
				if (++sp == 64)
					return "groups nested 64 deep";
				sum[sp] = last[sp] = opt[sp] = lastopt[sp] = na[sp] = lastna[sp] = 0;
				pre[sp] = lastn[sp] = true;
				nb[sp] = 0;
				continue;
			} else if (c == ')' && sp > 0) {
				atom = sum[sp] > 1 ? sum[sp] : 1;
				atomopt = opt[sp] > 0 ? atom : 0;
				nb[sp] += pre[sp] && lastn[sp];
				atomn = nb[sp] > 0;
				atomna = na[sp] + (nb[sp] >= 2 ? 1 : 0);
				sp--;
			} else if (c == '|') {
				nb[sp] += pre[sp] && lastn[sp];
				pre[sp] = lastn[sp] = true;
				last[sp] = lastopt[sp] = lastna[sp] = 0;
				continue;
			}
			sum[sp] += atom;
			last[sp] = atom;
			opt[sp] += atomopt;
			lastopt[sp] = atomopt;
			pre[sp] = pre[sp] && lastn[sp];
			lastn[sp] = atomn;
			na[sp] += atomna;
			lastna[sp] = atomna;
		}
		if (sum[sp] > RE_BUDGET)
			return "a compiled size over 100000 states";
		if (opt[sp] > RE_OPT_BUDGET)
			return "more than 2000 optional states (like 'a{0,5000}')";
		if (na[sp] > RE_NALT_BUDGET)
			return RE_NALT_MSG;
	}
	while (sp > 0) { /* unclosed groups: regcomp reports them */
		double atom = sum[sp], atomopt = opt[sp], atomna = na[sp] + (nb[sp] + (pre[sp] && lastn[sp]) >= 2);
		sp--;
		sum[sp] += atom;
		opt[sp] += atomopt;
		na[sp] += atomna;
	}
	if (na[0] > RE_NALT_BUDGET)
		return RE_NALT_MSG;
	if (sum[0] > RE_BUDGET)
		return "a compiled size over 100000 states";
	return opt[0] > RE_OPT_BUDGET ? "more than 2000 optional states (like 'a{0,5000}')" : NULL;
}

/* ---- the tree ---- */

enum { N_EMPTY, N_SET, N_ASSERT, N_CAT, N_ALT, N_REP };
/* assertions */
enum { A_BOL, A_EOL, A_WORDB, A_NWORDB, A_WBEG, A_WEND };
/* the kind of the byte before or after a position */
enum { K_START, K_WORD, K_OTHER, K_END };

#define RX_MAX_INST (1u << 21)
#define RX_MAX_DEPTH 256

struct node {
	uint8_t kind, a;
	int32_t min, max; /* N_REP: max -1 = no bound */
	uint32_t set;     /* N_SET */
	uint32_t first, n; /* N_CAT, N_ALT: kids[first..first+n); N_REP: kids[first] */
};

enum { I_SET, I_SPLIT, I_JMP, I_ASSERT, I_MATCH };

struct inst {
	uint8_t op, a;
	uint32_t set, out, out1;
};

struct dstate {
	uint32_t *pcs, n; /* the pending SET instructions (sorted) */
	uint8_t prev;
	int8_t endm;      /* a match at the end: -1 unknown */
	int32_t next[256]; /* -1 unknown, -2 a match before this byte, else a state */
	uint64_t hash;
	uint32_t chain;   /* the next state of its hash slot + 1 */
};

struct rx {
	bool icase;
	uint8_t (*sets)[32];
	uint32_t nsets, capsets;
	struct node *nodes;
	uint32_t nnodes, capnodes;
	uint32_t *kids;
	uint32_t nkids, capkids;
	struct inst *in;
	uint32_t nin, capin, start;
	/* the DFA */
	struct dstate *st;
	uint32_t nst, capst;
	uint32_t *slot; /* hash slots: state + 1 */
	uint32_t nslot;
	/* closure scratch */
	uint32_t *mark, gen, *stack, *buf;
	uint64_t steps;
	/* parsing */
	const char *p;
	size_t n, i;
	int depth;
	struct sbuf *err;
	bool bad;
};

static uint32_t new_set(struct rx *r)
{
	if (r->nsets == r->capsets)
		r->sets = gf_xreallocarray(r->sets, r->capsets = r->capsets ? 2 * r->capsets : 16, sizeof *r->sets);
	memset(r->sets[r->nsets], 0, 32);
	return r->nsets++;
}

static void set_add(struct rx *r, uint32_t s, unsigned c)
{
	r->sets[s][c >> 3] |= (uint8_t)(1u << (c & 7));
}

static bool set_has(const struct rx *r, uint32_t s, unsigned c)
{
	return r->sets[s][c >> 3] >> (c & 7) & 1;
}

static unsigned up(unsigned c)
{
	return c >= 'a' && c <= 'z' ? c - 32 : c;
}

static bool is_word(unsigned c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

static uint32_t new_node(struct rx *r, uint8_t kind)
{
	if (r->nnodes == r->capnodes)
		r->nodes = gf_xreallocarray(r->nodes, r->capnodes = r->capnodes ? 2 * r->capnodes : 32, sizeof *r->nodes);
	r->nodes[r->nnodes] = (struct node){ .kind = kind };
	return r->nnodes++;
}

static void push_kid(struct rx *r, uint32_t k)
{
	if (r->nkids == r->capkids)
		r->kids = gf_xreallocarray(r->kids, r->capkids = r->capkids ? 2 * r->capkids : 32, sizeof *r->kids);
	r->kids[r->nkids++] = k;
}

static uint32_t fail(struct rx *r, const char *what)
{
	if (!r->bad)
		sbuf_setf(r->err, "byte %zu: %s", r->i, what);
	r->bad = true;
	return new_node(r, N_EMPTY);
}

static bool in_class(const char *name, size_t n, unsigned c)
{
#define IS(s) (n == sizeof s - 1 && !memcmp(name, s, n))
	bool al = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'), di = c >= '0' && c <= '9';
	if (IS("alpha"))
		return al;
	if (IS("digit"))
		return di;
	if (IS("alnum"))
		return al || di;
	if (IS("upper"))
		return c >= 'A' && c <= 'Z';
	if (IS("lower"))
		return c >= 'a' && c <= 'z';
	if (IS("space"))
		return c == ' ' || (c >= '\t' && c <= '\r');
	if (IS("blank"))
		return c == ' ' || c == '\t';
	if (IS("punct"))
		return c > 32 && c < 127 && !al && !di;
	if (IS("print"))
		return c >= 32 && c < 127;
	if (IS("graph"))
		return c > 32 && c < 127;
	if (IS("cntrl"))
		return c < 32 || c == 127;
	if (IS("xdigit"))
		return di || ((c | 32) >= 'a' && (c | 32) <= 'f');
	return false;
#undef IS
}

static bool class_known(const char *name, size_t n)
{
	static const char *const k[] = { "alpha", "digit", "alnum", "upper", "lower", "space",
					  "blank", "punct", "print", "graph", "cntrl", "xdigit" };
	for (size_t i = 0; i < sizeof k / sizeof k[0]; i++)
		if (strlen(k[i]) == n && !memcmp(k[i], name, n))
			return true;
	return false;
}

/* One bracket element at r->i: a byte, [.c.] or [=c=] (one byte each).
 * @return the byte (as the pattern is compared: upper case with icase), -1
 * on error. */
static int bracket_char(struct rx *r)
{
	const char *p = r->p;
	if (r->i + 1 < r->n && p[r->i] == '[' && (p[r->i + 1] == '.' || p[r->i + 1] == '=')) {
		char d = p[r->i + 1];
		if (r->i + 4 < r->n + 0 && p[r->i + 3] == d && p[r->i + 4] == ']') {
			int c = (unsigned char)p[r->i + 2];
			r->i += 5;
			return r->icase ? (int)up((unsigned)c) : c;
		}
		return -1;
	}
	if (r->i >= r->n)
		return -1;
	int c = (unsigned char)p[r->i++];
	return r->icase ? (int)up((unsigned)c) : c;
}

/* A bracket expression from r->i (after '['). Membership is decided on
 * the pattern's (upper-cased) bytes; the set is then made a set of text
 * bytes: byte b is in when up(b) is. */
static uint32_t bracket(struct rx *r)
{
	uint8_t pos[32];
	memset(pos, 0, sizeof pos);
#define ADD(c) (pos[(c) >> 3] |= (uint8_t)(1u << ((c) & 7)))
	bool neg = false, first = true;
	const char *p = r->p;
	if (r->i < r->n && p[r->i] == '^') {
		neg = true;
		r->i++;
	}
	for (;;) {
		if (r->i >= r->n)
			return fail(r, "expected ']'");
		if (p[r->i] == ']' && !first) {
			r->i++;
			break;
		}
		first = false;
		if (p[r->i] == '[' && r->i + 1 < r->n && p[r->i + 1] == ':') {
			const char *e = r->i + 2 < r->n ? memmem(p + r->i + 2, r->n - r->i - 2, ":]", 2) : NULL;
			if (!e)
				return fail(r, "expected ':]'");
			const char *name = p + r->i + 2;
			size_t nl = (size_t)(e - name);
			if (!class_known(name, nl))
				return fail(r, "an unknown character class");
			if (r->icase && nl == 5 && (!memcmp(name, "upper", 5) || !memcmp(name, "lower", 5)))
				name = "alpha"; /* as glibc: case-insensitive, either means a letter */
			for (unsigned c = 0; c < 256; c++)
				if (in_class(name, nl, c))
					ADD(c);
			r->i = (size_t)(e - p) + 2;
			continue;
		}
		int lo = bracket_char(r);
		if (lo < 0)
			return fail(r, "expected a bracket element");
		if (r->i + 1 < r->n && p[r->i] == '-' && p[r->i + 1] != ']') {
			r->i++;
			int hi = bracket_char(r);
			if (hi < 0 || hi < lo)
				return fail(r, "an invalid range");
			for (int c = lo; c <= hi; c++)
				ADD((unsigned)c);
		} else {
			ADD((unsigned)lo);
		}
	}
	uint32_t s = new_set(r);
	for (unsigned b = 1; b < 256; b++) {
		unsigned c = r->icase ? up(b) : b;
		bool in = pos[c >> 3] >> (c & 7) & 1;
		if (in != neg)
			set_add(r, s, b);
	}
#undef ADD
	uint32_t k = new_node(r, N_SET);
	r->nodes[k].set = s;
	return k;
}

static uint32_t set_node(struct rx *r, bool (*f)(unsigned), bool neg)
{
	uint32_t s = new_set(r);
	for (unsigned b = 1; b < 256; b++)
		if (f(b) != neg)
			set_add(r, s, b);
	uint32_t k = new_node(r, N_SET);
	r->nodes[k].set = s;
	return k;
}

static bool is_space(unsigned c)
{
	return c == ' ' || (c >= '\t' && c <= '\r');
}

static bool any_byte(unsigned c)
{
	return c != 0;
}

static uint32_t literal(struct rx *r, unsigned c)
{
	uint32_t s = new_set(r);
	for (unsigned b = 1; b < 256; b++)
		if ((r->icase ? up(b) : b) == (r->icase ? up(c) : c))
			set_add(r, s, b);
	uint32_t k = new_node(r, N_SET);
	r->nodes[k].set = s;
	return k;
}

static uint32_t assertion(struct rx *r, uint8_t a)
{
	uint32_t k = new_node(r, N_ASSERT);
	r->nodes[k].a = a;
	return k;
}

static uint32_t parse_alt(struct rx *r);

static uint32_t atom(struct rx *r)
{
	const char *p = r->p;
	unsigned char c = (unsigned char)p[r->i++];
	switch (c) {
	case '(': {
		if (++r->depth > RX_MAX_DEPTH)
			return fail(r, "groups nested too deep");
		uint32_t k = parse_alt(r);
		r->depth--;
		if (r->i >= r->n || p[r->i] != ')')
			return fail(r, "expected ')'");
		r->i++;
		return k;
	}
	case '.':
		return set_node(r, any_byte, false);
	case '^':
		return assertion(r, A_BOL);
	case '$':
		return assertion(r, A_EOL);
	case '[':
		return bracket(r);
	case '\\':
		if (r->i >= r->n)
			return fail(r, "a trailing backslash");
		c = (unsigned char)p[r->i++];
		switch (c) {
		case 'w': return set_node(r, is_word, false);
		case 'W': return set_node(r, is_word, true);
		case 's': return set_node(r, is_space, false);
		case 'S': return set_node(r, is_space, true);
		case 'b': return assertion(r, A_WORDB);
		case 'B': return assertion(r, A_NWORDB);
		case '<': return assertion(r, A_WBEG);
		case '>': return assertion(r, A_WEND);
		case '`': return assertion(r, A_BOL);
		case '\'': return assertion(r, A_EOL);
		default:
			if (c >= '1' && c <= '9')
				return fail(r, "back-references");
			return literal(r, c);
		}
	default:
		return literal(r, c);
	}
}

/* Digits at p[*j]: their value (at most 0x8000), -1 when none. */
static long digits(const char *p, size_t n, size_t *j)
{
	long v = -1;
	for (; *j < n && p[*j] >= '0' && p[*j] <= '9'; (*j)++) {
		v = (v < 0 ? 0 : v) * 10 + (p[*j] - '0');
		if (v > 0x8000)
			v = 0x8000;
	}
	return v;
}

/* An interval {m}, {m,}, {m,n}, {,n} at r->i (on '{'). @return false when
 * it is not one (then '{' is a literal). */
static bool interval(struct rx *r, int32_t *mn, int32_t *mx)
{
	size_t j = r->i + 1;
	long a = digits(r->p, r->n, &j), b = a;
	size_t cl = comma_at(r->p, r->n, j);
	if (cl) {
		j += cl;
		b = digits(r->p, r->n, &j);
		if (a < 0)
			a = 0;
	}
	if (j >= r->n || r->p[j] != '}' || a < 0 || a > 0x7fff || b > 0x7fff || (b >= 0 && b < a))
		return false;
	*mn = (int32_t)a;
	*mx = (int32_t)b;
	r->i = j + 1;
	return true;
}

/* The repetitions that follow atom k ('*', '+', '?', {m,n}), applied. */
static uint32_t repeats(struct rx *r, uint32_t k)
{
	const char *p = r->p;
	while (r->i < r->n && !r->bad) {
		int32_t mn, mx;
		char c = p[r->i];
		if (c == '*')
			mn = 0, mx = -1, r->i++;
		else if (c == '+')
			mn = 1, mx = -1, r->i++;
		else if (c == '?')
			mn = 0, mx = 1, r->i++;
		else if (c != '{' || !interval(r, &mn, &mx))
			break;
		uint32_t rep = new_node(r, N_REP);
		r->nodes[rep].min = mn;
		r->nodes[rep].max = mx;
		r->nodes[rep].first = r->nkids;
		r->nodes[rep].n = 1;
		push_kid(r, k);
		k = rep;
	}
	return k;
}

static uint32_t piece(struct rx *r)
{
	return repeats(r, atom(r));
}

/* A list node of kind over the nodes tmp[0..n) (one: itself; none: empty). */
static uint32_t list(struct rx *r, uint8_t kind, const uint32_t *tmp, uint32_t n)
{
	if (n == 1)
		return tmp[0];
	if (!n)
		return new_node(r, N_EMPTY);
	uint32_t k = new_node(r, kind);
	r->nodes[k].first = r->nkids;
	r->nodes[k].n = n;
	for (uint32_t i = 0; i < n; i++)
		push_kid(r, tmp[i]);
	return k;
}

static uint32_t parse_branch(struct rx *r)
{
	uint32_t *tmp = NULL, n = 0, cap = 0;
	while (r->i < r->n && !r->bad) {
		char c = r->p[r->i];
		if (c == '|' || (c == ')' && r->depth > 0))
			break;
		/* an unmatched ')' is a literal atom, repeated as any (glibc: "a)*b" matches "ab") */
		uint32_t k = c == ')' ? (r->i++, repeats(r, literal(r, ')'))) : piece(r);
		if (n == cap)
			tmp = gf_xreallocarray(tmp, cap = cap ? 2 * cap : 8, sizeof *tmp);
		tmp[n++] = k;
	}
	uint32_t k = list(r, N_CAT, tmp, n);
	free(tmp);
	return k;
}

static uint32_t parse_alt(struct rx *r)
{
	uint32_t *tmp = NULL, n = 0, cap = 0;
	for (;;) {
		uint32_t k = parse_branch(r);
		if (n == cap)
			tmp = gf_xreallocarray(tmp, cap = cap ? 2 * cap : 4, sizeof *tmp);
		tmp[n++] = k;
		if (r->bad || r->i >= r->n || r->p[r->i] != '|')
			break;
		r->i++;
	}
	uint32_t k = list(r, N_ALT, tmp, n);
	free(tmp);
	return k;
}

/* ---- the NFA ---- */

/* Holes (outs to patch) are a list threaded through the out fields:
 * pc * 2 + which, the next hole's code in the field itself, +1 (0 ends). */
struct frag {
	uint32_t start, holes;
};

static uint32_t emit(struct rx *r, uint8_t op)
{
	if (r->nin == r->capin) {
		if (r->capin >= RX_MAX_INST) {
			r->bad = true;
			sbuf_setf(r->err, "a compiled size over %u instructions", RX_MAX_INST);
			return 0;
		}
		r->in = gf_xreallocarray(r->in, r->capin = r->capin ? 2 * r->capin : 64, sizeof *r->in);
	}
	r->in[r->nin] = (struct inst){ .op = op };
	return r->nin++;
}

static uint32_t *hole(struct rx *r, uint32_t code)
{
	struct inst *i = &r->in[code >> 1];
	return code & 1 ? &i->out1 : &i->out;
}

static void patch(struct rx *r, uint32_t holes, uint32_t to)
{
	while (holes) {
		uint32_t *h = hole(r, holes - 1);
		holes = *h;
		*h = to;
	}
}

static uint32_t join(struct rx *r, uint32_t a, uint32_t b)
{
	if (!a)
		return b;
	uint32_t x = a, *h;
	while (*(h = hole(r, x - 1)))
		x = *h;
	*h = b;
	return a;
}

static struct frag compile(struct rx *r, uint32_t k);

/* e? : split(e, out) */
static struct frag opt(struct rx *r, struct frag e)
{
	uint32_t s = emit(r, I_SPLIT);
	if (r->bad)
		return e;
	r->in[s].out = e.start;
	r->in[s].out1 = 0;
	return (struct frag){ s, join(r, e.holes, s * 2 + 2) };
}

static struct frag rep(struct rx *r, const struct node *nd)
{
	uint32_t child = r->kids[nd->first];
	int32_t mn = nd->min, mx = nd->max;
	struct frag f = { 0, 0 };
	bool have = false;
	for (int32_t i = 0; i < mn && !r->bad; i++) {
		struct frag c = compile(r, child);
		if (have)
			patch(r, f.holes, c.start);
		else
			f.start = c.start;
		f.holes = c.holes;
		have = true;
	}
	if (mx < 0) { /* a loop: L: split(body, out); body -> L */
		uint32_t s = emit(r, I_SPLIT);
		struct frag c = compile(r, child);
		if (r->bad)
			return f;
		r->in[s].out = c.start;
		r->in[s].out1 = 0;
		patch(r, c.holes, s);
		if (have)
			patch(r, f.holes, s);
		else
			f.start = s;
		f.holes = s * 2 + 2;
		return f;
	}
	/* (e(e(e)?)?)? for the optional copies, nested so that each needs the one before */
	struct frag tail = { 0, 0 };
	bool have_tail = false;
	for (int32_t i = mn; i < mx && !r->bad; i++) {
		struct frag c = compile(r, child);
		if (have_tail) {
			patch(r, c.holes, tail.start);
			c.holes = tail.holes;
		}
		tail = opt(r, c);
		have_tail = true;
	}
	if (!have_tail) {
		if (have)
			return f;
		uint32_t j = emit(r, I_JMP);
		return (struct frag){ j, j * 2 + 1 };
	}
	if (have) {
		patch(r, f.holes, tail.start);
		f.holes = tail.holes;
		return f;
	}
	return tail;
}

static struct frag compile(struct rx *r, uint32_t k)
{
	const struct node nd = r->nodes[k];
	struct frag f = { 0, 0 };
	if (r->bad)
		return f;
	switch (nd.kind) {
	case N_EMPTY: {
		uint32_t j = emit(r, I_JMP);
		return (struct frag){ j, j * 2 + 1 };
	}
	case N_SET: {
		uint32_t s = emit(r, I_SET);
		r->in[s].set = nd.set;
		return (struct frag){ s, s * 2 + 1 };
	}
	case N_ASSERT: {
		uint32_t s = emit(r, I_ASSERT);
		r->in[s].a = nd.a;
		return (struct frag){ s, s * 2 + 1 };
	}
	case N_CAT:
		for (uint32_t i = 0; i < nd.n && !r->bad; i++) {
			struct frag c = compile(r, r->kids[nd.first + i]);
			if (i)
				patch(r, f.holes, c.start);
			else
				f.start = c.start;
			f.holes = c.holes;
		}
		return f;
	case N_ALT: {
		/* split(a, split(b, c)) */
		struct frag last = compile(r, r->kids[nd.first + nd.n - 1]);
		f = last;
		for (uint32_t i = nd.n - 1; i-- > 0 && !r->bad;) {
			struct frag c = compile(r, r->kids[nd.first + i]);
			uint32_t s = emit(r, I_SPLIT);
			if (r->bad)
				break;
			r->in[s].out = c.start;
			r->in[s].out1 = f.start;
			f = (struct frag){ s, join(r, c.holes, f.holes) };
		}
		return f;
	}
	default:
		return rep(r, &nd);
	}
}

struct rx *rx_compile(const char *p, size_t n, bool icase, struct sbuf *err)
{
	struct rx *r = gf_xcalloc(1, sizeof *r);
	r->icase = icase;
	r->p = p;
	r->n = n;
	r->err = err;
	uint32_t root = parse_alt(r);
	if (!r->bad && r->i < r->n)
		fail(r, "expected the end of the expression");
	struct frag f = compile(r, root);
	uint32_t m = emit(r, I_MATCH);
	if (r->bad) {
		rx_free(r);
		return NULL;
	}
	patch(r, f.holes, m);
	r->start = f.start;
	free(r->nodes);
	free(r->kids);
	r->nodes = NULL;
	r->kids = NULL;
	r->mark = gf_xcalloc(r->nin, sizeof *r->mark);
	r->stack = gf_xmalloc(r->nin * sizeof *r->stack);
	r->buf = gf_xmalloc(r->nin * sizeof *r->buf);
	return r;
}

void rx_free(struct rx *r)
{
	if (!r)
		return;
	for (uint32_t i = 0; i < r->nst; i++)
		free(r->st[i].pcs);
	free(r->st);
	free(r->slot);
	free(r->sets);
	free(r->nodes);
	free(r->kids);
	free(r->in);
	free(r->mark);
	free(r->stack);
	free(r->buf);
	free(r);
}

uint64_t rx_steps(const struct rx *r)
{
	return r->steps;
}

/* ---- the DFA ---- */

static bool assert_ok(uint8_t a, uint8_t prev, uint8_t next)
{
	bool pw = prev == K_WORD, nw = next == K_WORD;
	switch (a) {
	case A_BOL: return prev == K_START;
	case A_EOL: return next == K_END;
	case A_WORDB: return pw != nw;
	case A_NWORDB: return pw == nw;
	case A_WBEG: return !pw && nw;
	default: return pw && !nw;
	}
}

static uint64_t hash_pcs(const uint32_t *pcs, uint32_t n, uint8_t prev)
{
	uint64_t h = 0x9e3779b97f4a7c15ull ^ prev;
	for (uint32_t i = 0; i < n; i++) {
		h ^= pcs[i];
		h *= 0x100000001b3ull;
		h ^= h >> 29;
	}
	return h;
}

static void drop_states(struct rx *r)
{
	for (uint32_t i = 0; i < r->nst; i++)
		free(r->st[i].pcs);
	r->nst = 0;
	memset(r->slot, 0, r->nslot * sizeof *r->slot);
}

/* The state (pcs[0..n) sorted, prev): found or added. */
static uint32_t state(struct rx *r, const uint32_t *pcs, uint32_t n, uint8_t prev)
{
	if (!r->nslot) {
		r->nslot = 2 * RX_MAX_STATES;
		r->slot = gf_xcalloc(r->nslot, sizeof *r->slot);
	}
	uint64_t h = hash_pcs(pcs, n, prev);
	uint32_t *sl = &r->slot[h % r->nslot];
	for (uint32_t x = *sl; x; x = r->st[x - 1].chain) {
		struct dstate *d = &r->st[x - 1];
		if (d->hash == h && d->prev == prev && d->n == n && (!n || !memcmp(d->pcs, pcs, n * sizeof *pcs)))
			return x - 1;
	}
	if (r->nst == r->capst)
		r->st = gf_xreallocarray(r->st, r->capst = r->capst ? 2 * r->capst : 16, sizeof *r->st);
	struct dstate *d = &r->st[r->nst];
	d->pcs = gf_xmalloc((n ? n : 1) * sizeof *pcs);
	if (n)
		memcpy(d->pcs, pcs, n * sizeof *pcs);
	d->n = n;
	d->prev = prev;
	d->endm = -1;
	for (int c = 0; c < 256; c++)
		d->next[c] = -1;
	d->hash = h;
	d->chain = *sl;
	*sl = r->nst + 1;
	return r->nst++;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

/* From state d before a byte of kind next (c: the byte, -1 at the end):
 * the closure; @return true when it reaches the match, else the pending
 * SET instructions that take c into r->buf[0..*m). */
static bool step(struct rx *r, const struct dstate *d, int c, uint8_t next, uint32_t *m)
{
	if (++r->gen == 0) {
		memset(r->mark, 0, r->nin * sizeof *r->mark);
		r->gen = 1;
	}
	uint32_t sp = 0, out = 0;
	r->mark[r->start] = r->gen;
	r->stack[sp++] = r->start; /* unanchored: a match may start here */
	for (uint32_t i = 0; i < d->n; i++)
		if (r->mark[d->pcs[i]] != r->gen) {
			r->mark[d->pcs[i]] = r->gen;
			r->stack[sp++] = d->pcs[i];
		}
	bool hit = false;
	while (sp && !hit) {
		uint32_t pc = r->stack[--sp];
		const struct inst *in = &r->in[pc];
		r->steps++;
		uint32_t to[2];
		int nt = 0;
		switch (in->op) {
		case I_MATCH: hit = true; break;
		case I_SET:
			if (c >= 0 && set_has(r, in->set, (unsigned)c))
				r->buf[out++] = in->out;
			break;
		case I_JMP: to[nt++] = in->out; break;
		case I_SPLIT: to[nt++] = in->out1; to[nt++] = in->out; break;
		default:
			if (assert_ok(in->a, d->prev, next))
				to[nt++] = in->out;
		}
		for (int k = 0; k < nt; k++)
			if (r->mark[to[k]] != r->gen) {
				r->mark[to[k]] = r->gen;
				r->stack[sp++] = to[k];
			}
	}
	if (hit)
		return true;
	qsort(r->buf, out, sizeof *r->buf, cmp_u32);
	uint32_t u = 0;
	for (uint32_t i = 0; i < out; i++)
		if (!u || r->buf[u - 1] != r->buf[i])
			r->buf[u++] = r->buf[i];
	*m = u;
	return false;
}

bool rx_search(struct rx *r, const char *s, size_t n)
{
	uint32_t cur = state(r, NULL, 0, K_START);
	for (size_t i = 0; i < n; i++) {
		unsigned c = (unsigned char)s[i];
		r->steps++;
		int32_t nx = r->st[cur].next[c];
		if (nx == -2)
			return true;
		if (nx < 0) {
			uint8_t kind = is_word(c) ? K_WORD : K_OTHER;
			uint32_t m;
			if (step(r, &r->st[cur], (int)c, kind, &m)) {
				r->st[cur].next[c] = -2;
				return true;
			}
			if (r->nst >= RX_MAX_STATES) { /* full: start again from the state needed now */
				drop_states(r);
				nx = (int32_t)state(r, r->buf, m, kind);
			} else {
				nx = (int32_t)state(r, r->buf, m, kind);
				r->st[cur].next[c] = nx;
			}
		}
		cur = (uint32_t)nx;
	}
	struct dstate *d = &r->st[cur];
	if (d->endm < 0) {
		uint32_t m;
		d->endm = step(r, d, -1, K_END, &m);
	}
	return d->endm;
}
