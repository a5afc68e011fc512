// page_assets.js: the script of gpuflame's HTML page (report and diff).
// It reads the one JSON block (#gf-data), builds every element with the DOM
// API (names only ever become text nodes, never markup) and draws the
// flame graphs, the callers/callees view, the step timeline, the tables and
// the per-step bars. No library, no network. Names are untrusted: they are
// never keys of plain objects (Map only), never markup.
'use strict';
(function () {
  const SVGNS = 'http://www.w3.org/2000/svg';
  const D = JSON.parse(document.getElementById('gf-data').textContent);
  const app = document.getElementById('app');
  // the weights and the gap causes come from the page's JSON (the C tables
  // stacks/weight.h and trace/analysis/causes.h): no list of them here
  const V = D.vocab || { weights: [], causes: [] };
  const W_KEYS = V.weights.map(w => w.key);
  const W_NAMES = new Map(V.weights.map(w => [w.key, w.title]));
  const KERNEL_LEAVES = new Set(V.weights.filter(w => w.kernels).map(w => w.key)); // leaves are kernel families
  const CAUSES = V.causes.map(c => c.key);
  const CLASSES = Array.isArray(V.classes) ? V.classes : []; // classes of host work
  // a block's "c": the index of its cause (or kind), +256 when merged members differ
  const CLS = c => c & 255;
  function causeOf(c) { const k = CLS(c); return k < CAUSES.length ? CAUSES[k] : 'cause-' + k; }
  function classOf(h) { return h >= 0 && h < CLASSES.length ? CLASSES[h].label || CLASSES[h].key : 'class ' + h; }
  // busy split by communication (comm.h): compute, NCCL under compute, NCCL alone
  const CAUSE_COL = new Map([['busy', '#2e7d32'], ['other', '#bdbdbd'], ['compute', '#2e7d32'], ['overlap', '#81c784'], ['exposed', '#6a1b9a']]);
  const COMM_SPLIT = [['compute', 'compute_us', 'GPU busy: compute'], ['overlap', 'comm_overlap_us', 'GPU busy: NCCL overlapped with compute'],
    ['exposed', 'comm_exposed_us', 'GPU busy: NCCL exposed (no compute)']];
  for (const c of V.causes) CAUSE_COL.set(c.key, c.color);
  const ROW_H = 17;
  const MAX_ROWS = 3000;
  const BG = [250, 250, 250];
  const HL = [230, 0, 230];
  const FULL = new Map(Array.isArray(D.full_names) ? D.full_names : []);
  const state = { re: null, rank: 0, tab: null, graphs: [], sel: null, views: [] };

  // ---- small DOM helpers (text only) ----
  function el(tag, attrs, ...kids) {
    const e = document.createElement(tag);
    if (attrs) for (const [k, v] of Object.entries(attrs)) {
      if (k === 'class') e.className = v;
      else if (k === 'text') e.textContent = v;
      else e.setAttribute(k, v);
    }
    for (const c of kids) if (c != null && c !== false) e.append(c);
    return e;
  }
  function sv(tag, attrs) {
    const e = document.createElementNS(SVGNS, tag);
    if (attrs) for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
    return e;
  }
  function num(x) { return typeof x === 'number' && isFinite(x) ? x : 0; }
  // us numbers as the JSON writes them (exact decimals) and ns integers
  function fmtUs(us) {
    if (us == null || !isFinite(us)) return '-';
    const a = Math.abs(us);
    if (a >= 1000) return (us / 1000).toFixed(3) + ' ms';
    return (+us).toFixed(3) + ' us';
  }
  function fmtNs(ns, scale) { return fmtUs(num(ns) / Math.pow(10, scale == null ? 3 : scale)); }
  function pct(a, b) { return b > 0 ? (100 * num(a) / b).toFixed(2) + '%' : '0.00%'; }
  function txt(x) { return x == null || (typeof x === 'number' && !isFinite(x)) ? '-' : String(x); }
  function plural(n, w) { return n + ' ' + w + (n === 1 ? '' : 's'); }
  // a table in a box that scrolls sideways when it is wider than the page;
  // cells never break inside a word (wrap at spaces only)
  function table(head, rows, cls, opts) {
    const t = el('table', cls ? { class: cls } : null);
    const tr = el('tr');
    head.forEach((h, i) => tr.append(el('th', { class: i === 0 ? 'l' : '', text: h })));
    t.append(el('thead', null, tr));
    const tb = el('tbody');
    const wide = (opts && opts.wide) || [], stacks = (opts && opts.stacks) || [];
    for (const r of rows) {
      const row = el('tr');
      r.forEach((c, i) => {
        const td = el('td', { class: (i === 0 ? 'name' : '') + (wide.includes(i) ? ' prose' : '') });
        if (stacks.includes(i)) stackText(td, txt(c)); else wordsText(td, txt(c));
        row.append(td);
      });
      tb.append(row);
    }
    t.append(tb);
    return el('div', { class: 'tbox' }, t);
  }
  // text that wraps at its spaces only: each word a span that never breaks
  // (browsers would break after a '/' of a path, or anywhere in a long name)
  function wordsText(e, s) {
    const parts = s.split(/( +)/);
    for (const p of parts) if (p) e.append(/^ +$/.test(p) ? p : el('span', { class: 'w', text: p }));
    return e;
  }
  // a stack "a;b;c" as text that may also wrap after its separators (a
  // <wbr> after each ';' not followed by a space: names keep their own "; ")
  function stackText(e, s) {
    const parts = s.split(/(?<=;)(?! )/);
    parts.forEach((p, k) => { wordsText(e, p); if (k < parts.length - 1) e.append(el('wbr')); });
    return e;
  }
  function section(title, ...kids) { return el('section', null, el('h2', { text: title }), ...kids); }
  const ELIDED = / \u2026 \((\d+) bytes, middle elided\)/;
  // the full text of an elided name: the string, or null when the page does
  // not hold it (over its budget)
  function fullName(s) { return FULL.has(s) ? FULL.get(s) : null; }

  // ---- colours: text always meets 4.5:1 on its fill ----
  function rgbOf(s) {
    if (Array.isArray(s)) return s;
    let m = /^rgb\((\d+),\s*(\d+),\s*(\d+)\)$/.exec(s);
    if (m) return [+m[1], +m[2], +m[3]];
    m = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(s);
    return m ? [parseInt(m[1], 16), parseInt(m[2], 16), parseInt(m[3], 16)] : [200, 200, 200];
  }
  function lum(c) {
    const f = x => { x /= 255; return x <= 0.03928 ? x / 12.92 : Math.pow((x + 0.055) / 1.055, 2.4); };
    return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]);
  }
  function contrast(a, b) { const x = lum(a), y = lum(b); return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05); }
  function ink(c) { return contrast(c, [0, 0, 0]) >= contrast(c, [255, 255, 255]) ? '#000' : '#fff'; }
  function blend(c, a) { return c.map((x, k) => Math.round(a * x + (1 - a) * BG[k])); }
  function css(c) { return 'rgb(' + c[0] + ',' + c[1] + ',' + c[2] + ')'; }
  function hashOf(s) {
    let h = 0;
    for (let c = 0; c < s.length && c < 24; c++) h = (h * 31 + s.charCodeAt(c)) >>> 0;
    return h % 1000 / 1000;
  }
  // a labelled bar: rect and clipped text, the text's colour chosen for its fill
  function bar(x, y, w, h, fill, label, cls) {
    const g = sv('g', cls ? { class: cls } : null);
    g.append(sv('rect', { x: x.toFixed(1), y: y, width: Math.max(w, 0.5).toFixed(1), height: h, fill: css(fill), rx: 2 }));
    if (label && w > 28) {
      const chars = Math.floor((w - 6) / 6.6);
      const t = sv('text', { x: (x + 3).toFixed(1), y: y + h - 5, fill: ink(fill) });
      t.textContent = label.length <= chars ? label : label.slice(0, Math.max(chars - 2, 0)) + '..';
      g.append(t);
    }
    return g;
  }

  // ---- flame graph model ----
  function Graph(key, g, steps, opts) {
    const n = g.p.length;
    this.key = key; this.g = g; this.steps = steps || 0; this.opts = opts || {};
    this.before = false; // a diff graph drawn with BEFORE's widths
    this.zoom = 0; this.icicle = false; this.match = null; this.hlName = -1; this.svg = null;
    this.index = new Map(); // name -> name index
    g.names.forEach((s, k) => { if (k > 0 && !this.index.has(s)) this.index.set(s, k); });
    this.kids = [];
    for (let i = 0; i < n; i++) this.kids.push([]);
    this.d = new Int32Array(n);
    let maxd = 0;
    for (let i = 1; i < n; i++) {
      const p = g.p[i];
      this.d[i] = this.d[p] + 1; if (this.d[i] > maxd) maxd = this.d[i];
      this.kids[p].push(i);
    }
    this.maxd = maxd;
    this.layout();
    this.rows = this.aggregate();
  }
  Graph.prototype.w = function () { return this.before ? this.g.b : this.g.v; };
  Graph.prototype.layout = function () {
    const g = this.g, n = g.p.length, v = this.w();
    this.x = new Float64Array(n);
    const next = new Float64Array(n);
    for (let i = 1; i < n; i++) { const p = g.p[i]; this.x[i] = next[p]; next[p] += v[i]; next[i] = this.x[i]; }
    this.self = new Float64Array(n);
    for (let i = 0; i < n; i++) this.self[i] = v[i];
    for (let i = 1; i < n; i++) this.self[g.p[i]] -= v[i];
  };
  Graph.prototype.name = function (i) { return this.g.names[this.g.n[i]]; };
  // per name: total (counted once per stack), self, calls; for a diff, the
  // before column too
  Graph.prototype.aggregate = function () {
    const g = this.g, n = g.p.length, nn = g.names.length, diff = !!g.x;
    const cols = diff ? [g.v, g.b] : [g.v];
    const tot = cols.map(() => new Float64Array(nn)), self = cols.map(() => new Float64Array(nn));
    const on = new Int32Array(nn);
    const path = [];
    const selfOf = cols.map(c => { const s = Float64Array.from(c); for (let i = 1; i < n; i++) s[g.p[i]] -= c[i]; return s; });
    for (let i = 1; i < n; i++) {
      while (path.length && path[path.length - 1] !== g.p[i]) on[g.n[path.pop()]]--;
      const k = g.n[i];
      cols.forEach((c, j) => { if (!on[k]) tot[j][k] += c[i]; self[j][k] += selfOf[j][i]; });
      on[k]++; path.push(i);
    }
    const rows = [];
    for (let k = 1; k < nn; k++) {
      if (!(tot[0][k] > 0 || self[0][k] > 0 || (diff && (tot[1][k] > 0 || self[1][k] > 0)))) continue;
      const r = { k: k, name: g.names[k], total: tot[0][k], self: self[0][k], calls: g.calls ? g.calls[k] : -1 };
      if (diff) { r.before = tot[1][k]; r.change = tot[0][k] - tot[1][k]; r.selfBefore = self[1][k]; }
      rows.push(r);
    }
    return rows;
  };
  // the frames a search matches: a frame nested under a matching one counts once
  Graph.prototype.matchShare = function () {
    if (!this.match) return null;
    const g = this.g, n = g.p.length, under = new Uint8Array(n), v = this.w();
    let sum = 0, zs = 0;
    const z = this.zoom, zx0 = this.x[z], zx1 = zx0 + v[z];
    for (let i = 1; i < n; i++) {
      under[i] = under[g.p[i]] || this.match[g.p[i]];
      if (this.match[i] && !under[i]) {
        sum += v[i];
        const a = Math.max(this.x[i], zx0), b = Math.min(this.x[i] + v[i], zx1);
        if (b > a && this.inZoom(i)) zs += b - a;
      }
    }
    return { all: v[0] > 0 ? 100 * sum / v[0] : 0, zoom: v[z] > 0 ? 100 * zs / v[z] : 0 };
  };
  Graph.prototype.setSearch = function (re) {
    if (!re) { this.match = null; return; }
    const g = this.g, byName = g.names.map(s => re.test(s) ? 1 : 0);
    this.match = new Uint8Array(g.p.length);
    for (let i = 1; i < g.p.length; i++) this.match[i] = byName[g.n[i]];
  };
  // the frame's colour as drawn (a plain fill, a diff class fill, or the
  // search/selection highlight; faded ancestors of the zoomed frame blended)
  Graph.prototype.fill = function (i, faded) {
    const g = this.g;
    let c;
    if ((this.match && this.match[i]) || g.n[i] === this.hlName) c = HL;
    else if (g.x) c = rgbOf(g.fills[g.x[2 * i]]);
    else {
      const s = this.name(i);
      const v = hashOf(s);
      if (s.startsWith('[')) c = [200, 200, 200];
      else if (this.opts.kernels && this.opts.kernels.has(s)) c = [60 + Math.round(60 * v), 170 + Math.round(50 * v), 80 + Math.round(60 * v)];
      else if (/synchroni[sz]e|Memcpy|\.item|\.cpu|tolist|nonzero/i.test(s)) c = [215 + Math.round(30 * v), 60 + Math.round(40 * v), 60];
      else c = [205 + Math.round(50 * v), 90 + Math.round(120 * v), Math.round(55 * v)];
    }
    return faded ? blend(c, 0.45) : c;
  };
  // draws the frames visible at the current zoom into this.svg: the zoomed
  // frame and its ancestors at full width (ancestors faded), its
  // descendants scaled, frames narrower than 0.1 px left out
  Graph.prototype.draw = function () {
    const svg = this.svg, g = this.g, n = g.p.length, v = this.w();
    const W = Math.max(400, svg.parentNode.clientWidth || 1200) - 2;
    const z = this.zoom, zx = this.x[z], zw = v[z] || 1;
    const zs = z ? this.zoomSet() : null;
    const scale = W / zw;
    const H = (this.maxd + 2) * ROW_H;
    svg.setAttribute('viewBox', '0 0 ' + W + ' ' + H);
    svg.setAttribute('height', H);
    svg.textContent = '';
    const frag = document.createDocumentFragment();
    let drawn = 0;
    for (let i = 0; i < n; i++) {
      if (zs && !zs[i]) continue;
      const full = zs !== null && zs[i] === 1;
      const w = full ? W : v[i] * scale;
      if (w < 0.1) continue;
      const x = full ? 0 : (this.x[i] - zx) * scale;
      const row = this.d[i];
      const y = this.icicle ? row * ROW_H : H - (row + 1) * ROW_H;
      const faded = full && i !== z;
      const cls = 'fr' + (faded ? ' faded' : '') + (i === z && z ? ' zoomed' : '') +
        (this.match && this.match[i] ? ' match' : '') + (g.n[i] === this.hlName ? ' hl' : '');
      const label = i === 0 ? (this.opts.rootName || 'all') : this.name(i);
      const gr = bar(x, y, Math.max(w - 0.5, 0.1), ROW_H - 1, this.fill(i, faded), label, cls);
      gr.setAttribute('data-i', i);
      frag.append(gr);
      drawn++;
    }
    svg.append(frag);
    this.drawn = drawn;
  };
  // per node: 1 the zoomed frame or an ancestor, 2 a descendant, 0 elsewhere
  Graph.prototype.zoomSet = function () {
    if (this.zset) return this.zset;
    const p = this.g.p, z = this.zoom, zs = new Uint8Array(p.length);
    for (let a = z; ; a = p[a]) { zs[a] = 1; if (a === 0) break; }
    for (let k = z + 1; k < p.length; k++) if (p[k] === z || zs[p[k]] === 2) zs[k] = 2;
    this.zset = zs;
    return zs;
  };
  Graph.prototype.inZoom = function (i) { return this.zoom === 0 || i === this.zoom || this.zoomSet()[i] === 2; };
  Graph.prototype.setZoom = function (i) { this.zoom = i; this.zset = null; this.draw(); };
  // the table's row of a name (its numbers), or undefined
  Graph.prototype.row = function (k) {
    if (!this.rowOf) { this.rowOf = new Map(); for (const r of this.rows) this.rowOf.set(r.k, r); }
    return this.rowOf.get(k);
  };

  // ---- callers and callees of a name, merged across the graph ----
  // A merged tree: parallel arrays (parent, name, weight), node 0 the name.
  function Tree() { this.p = [-1]; this.n = [0]; this.v = [0]; this.kid = [new Map()]; }
  Tree.prototype.child = function (p, name) {
    let c = this.kid[p].get(name);
    if (c === undefined) {
      c = this.p.length;
      this.p.push(p); this.n.push(name); this.v.push(0); this.kid.push(new Map());
      this.kid[p].set(name, c);
    }
    return c;
  };
  // the outermost frames named k (no ancestor of that name): each stack once
  function outermost(G, k) {
    const g = G.g, n = g.p.length, under = new Uint8Array(n), out = [];
    for (let i = 1; i < n; i++) {
      under[i] = under[g.p[i]] || (g.n[g.p[i]] === k && g.p[i] > 0) ? 1 : 0;
      if (g.n[i] === k && !under[i]) out.push(i);
    }
    return out;
  }
  function sandwich(G, k) {
    const g = G.g, v = G.w(), occ = outermost(G, k);
    const callers = new Tree(), callees = new Tree();
    callers.n[0] = callees.n[0] = k;
    const inOcc = new Int32Array(g.p.length).fill(-1); // node -> callees tree node
    for (const i of occ) {
      callers.v[0] += v[i]; callees.v[0] += v[i];
      let t = 0;
      for (let a = g.p[i]; a > 0; a = g.p[a]) { t = callers.child(t, g.n[a]); callers.v[t] += v[i]; }
      inOcc[i] = 0;
    }
    for (let i = 1; i < g.p.length; i++) {
      const p = g.p[i];
      if (inOcc[p] < 0 || inOcc[i] === 0) continue;
      const t = callees.child(inOcc[p], g.n[i]);
      callees.v[t] += v[i];
      inOcc[i] = t;
    }
    return { callers: callers, callees: callees, occ: occ.length };
  }

  // ---- the tooltip ----
  const tip = el('div', { id: 'tip' });
  document.body.append(tip);
  function showTip(ev, lines) {
    tip.textContent = '';
    lines.forEach((l, k) => tip.append(el('div', { class: k === 0 ? 'tn' : '', text: l })));
    tip.style.display = 'block';
    const x = Math.min(ev.clientX + 14, window.innerWidth - 530), y = Math.min(ev.clientY + 14, window.innerHeight - tip.offsetHeight - 6);
    tip.style.left = Math.max(x, 0) + 'px'; tip.style.top = Math.max(y, 0) + 'px';
  }
  function hideTip() { tip.style.display = 'none'; }
  function elidedNote(name) {
    const m = ELIDED.exec(name);
    if (!m) return null;
    return fullName(name) != null ? 'a long name (' + m[1] + ' bytes): select it to read it whole'
      : 'a long name (' + m[1] + ' bytes): the page holds its ends only (over its budget of full names)';
  }

  function frameLines(G, i) {
    const g = G.g, sc = g.scale, name = i === 0 ? 'all' : G.name(i);
    const out = [name];
    const note = elidedNote(name);
    if (note) out.push(note);
    if (g.x) {
      const b = g.b[i], a = g.v[i];
      out.push('before ' + fmtNs(b, sc) + ', after ' + fmtNs(a, sc) + ', change ' + (a - b >= 0 ? '+' : '') + fmtNs(a - b, sc) +
        (b > 0 ? ' (' + (a - b >= 0 ? '+' : '') + (100 * (a - b) / b).toFixed(2) + '%)' : a > 0 ? ' (new)' : ''));
      out.push('class: ' + ['same', 'grew', 'shrank', 'noise', 'under the min share'][g.x[2 * i + 1]] + (a === 0 && b > 0 ? '; removed (only before)' : ''));
      return out;
    }
    out.push('total ' + fmtNs(g.v[i], sc) + ' (' + pct(g.v[i], g.v[0]) + '), self ' + fmtNs(G.self[i], sc));
    const c = g.calls ? g.calls[g.n[i]] : -1;
    if (G.steps > 0) out.push('per step ' + fmtNs(g.v[i] / G.steps, sc) + (c >= 0 ? ', calls per step ' + (c / G.steps).toFixed(2) : ''));
    if (c >= 0) out.push('calls ' + c + ' (every frame of this name in the steps)');
    const fam = G.opts.kernels && G.opts.kernels.get(name);
    if (fam && Array.isArray(fam.top)) {
      out.push('family of ' + plural(num(fam.kernels), 'kernel name') + '; top by GPU time:');
      for (const k of fam.top) out.push('  ' + fmtUs(k.us) + '  x' + k.count + '  ' + k.name + (k.cfg ? '  (' + txt(k.cfg) + ')' : ''));
    }
    return out;
  }

  // ---- a graph panel: toolbar, svg, details, table, callers/callees ----
  function graphPanel(G, title) {
    const panel = el('div', { class: 'panel', 'data-graph': G.key });
    const reset = el('button', { type: 'button', class: 'reset', text: 'Reset zoom' });
    const ici = el('input', { type: 'checkbox', class: 'icicle' });
    const matched = el('span', { class: 'matched' });
    const info = el('span', { class: 'note' });
    const g = G.g;
    const pruned = num(g.pruned_frames), coll = num(g.collapsed);
    info.textContent = 'total ' + fmtNs(g.v[0], g.scale) + (G.steps ? ' over ' + plural(G.steps, 'step') : '') +
      '; ' + num(g.frames) + ' frames drawn, ' + pruned + ' pruned (' + pct(g.pruned, g.total) + ' of the weight, shown as "[N frames < minwidth]")' +
      (coll ? '; ' + coll + ' frames of single-callee chains collapsed' : '');
    const bits = [reset, el('label', null, ici, ' icicle'), matched, info];
    let shape = null;
    if (g.x) {
      shape = el('select', { class: 'shape', 'aria-label': 'widths' },
        el('option', { value: 'after', text: 'widths: after' }), el('option', { value: 'before', text: 'widths: before (draws removed frames)' }));
      bits.splice(2, 0, shape);
    }
    panel.append(el('div', { class: 'toolbar' }, ...bits));
    const svg = sv('svg', { class: 'flame', 'data-graph': G.key, role: 'img' });
    svg.append(sv('title'));
    svg.firstChild.textContent = title;
    const details = el('div', { class: 'details', text: ' ' });
    const tb = el('div', { class: 'tablebox' });
    const sw = el('div', { class: 'sandwich' });
    panel.append(el('div', { class: 'graphrow' }, el('div', { class: 'graphbox' }, svg, details), tb), sw);
    G.svg = svg; G.matchedEl = matched; G.detailsEl = details; G.panel = panel; G.swEl = sw;
    reset.addEventListener('click', () => { G.setZoom(0); updateMatched(G); });
    ici.addEventListener('change', () => { G.icicle = ici.checked; G.draw(); });
    if (shape) shape.addEventListener('change', () => {
      G.before = shape.value === 'before'; G.zoom = 0; G.zset = null; G.layout(); G.draw(); updateMatched(G);
    });
    svg.addEventListener('click', ev => {
      const f = ev.target.closest('g.fr');
      if (!f) return;
      const i = +f.getAttribute('data-i');
      G.zoom = i === G.zoom ? 0 : i; G.zset = null;
      if (i > 0) select(G.name(i)); else G.draw(); // select() redraws the active graph once
      updateMatched(G);
    });
    svg.addEventListener('mousemove', ev => {
      const f = ev.target.closest('g.fr');
      if (!f) { hideTip(); return; }
      const lines = frameLines(G, +f.getAttribute('data-i'));
      details.textContent = lines.filter(l => !l.startsWith('a long name')).slice(0, 2).join(' \u2014 ');
      showTip(ev, lines);
    });
    svg.addEventListener('mouseleave', () => { hideTip(); details.textContent = ' '; });
    buildTable(G, tb);
    return panel;
  }

  function buildTable(G, box) {
    const sc = G.g.scale, diff = !!G.g.x;
    // numbers first, the name last: long names extend to the right and the
    // box scrolls, the numbers stay in view
    const cols = diff ? [['before', 'Before'], ['total', 'After'], ['change', 'Change'], ['name', 'Frame']]
      : [['total', 'Total'], ['self', 'Self'], ['calls', 'Calls/step'], ['name', 'Name']];
    const t = el('table', { class: 'calls' }), hr = el('tr'), tb = el('tbody');
    let sortKey = diff ? 'change' : 'self', dir = -1;
    const key = (r, k) => k === 'change' ? Math.abs(r.change) : r[k];
    cols.forEach(([k, h]) => {
      const th = el('th', { class: 'sort' + (k === 'name' ? ' l' : '') + (k === sortKey ? ' desc' : ''), 'data-key': k, text: h });
      th.addEventListener('click', () => {
        dir = sortKey === k ? -dir : (k === 'name' ? 1 : -1); sortKey = k;
        hr.querySelectorAll('th').forEach(x => x.classList.remove('asc', 'desc'));
        th.classList.add(dir > 0 ? 'asc' : 'desc');
        fill();
      });
      hr.append(th);
    });
    t.append(el('thead', null, hr), tb);
    box.append(t);
    const unit = diff && G.opts.perStep ? ' per step' : '';
    if (unit) box.prepend(el('p', { class: 'note boxnote', text: 'totals per step; change = after - before' }));
    function fill() {
      const rows = G.rows.slice().sort((a, b) => {
        const x = key(a, sortKey), y = key(b, sortKey);
        const c = typeof x === 'string' ? (x < y ? -1 : x > y ? 1 : 0) : x - y;
        return dir * c || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
      });
      tb.textContent = '';
      for (const r of rows.slice(0, MAX_ROWS)) {
        const tr = el('tr', { class: 'row' + (r.k === G.hlName ? ' selected' : ''), 'data-k': r.k });
        if (diff) {
          tr.append(el('td', { text: fmtNs(r.before, sc) }), el('td', { text: fmtNs(r.total, sc) }),
            el('td', { class: r.change > 0 ? 'grew' : r.change < 0 ? 'shrank' : '', text: (r.change > 0 ? '+' : '') + fmtNs(r.change, sc) }));
        } else {
          tr.append(el('td', { text: fmtNs(r.total, sc) }), el('td', { text: fmtNs(r.self, sc) }),
            el('td', { text: r.calls >= 0 && G.steps ? (r.calls / G.steps).toFixed(2) : (r.calls >= 0 ? String(r.calls) : '') }));
        }
        tr.append(el('td', { class: 'name nw', text: r.name }));
        tb.append(tr);
      }
      if (rows.length > MAX_ROWS) tb.append(el('tr', null, el('td', { class: 'note', colspan: 4, text: (rows.length - MAX_ROWS) + ' more names not listed (search finds them)' })));
    }
    tb.addEventListener('click', ev => {
      const tr = ev.target.closest('tr.row');
      if (!tr) return;
      const k = +tr.getAttribute('data-k');
      if (G.hlName === k) { select(null); return; }
      select(G.g.names[k]);
    });
    G.fillTable = fill;
    G.tbody = tb;
    fill();
  }
  function markRows(G) {
    const old = G.tbody.querySelector('tr.row.selected');
    if (old) old.classList.remove('selected');
    const tr = G.hlName >= 0 ? G.tbody.querySelector('tr.row[data-k="' + G.hlName + '"]') : null;
    if (tr) {
      tr.classList.add('selected');
      // scroll the table box only, never the page
      const box = G.tbody.closest('.tablebox');
      if (box) {
        const top = tr.offsetTop, h = tr.offsetHeight;
        if (top < box.scrollTop + 24 || top + h > box.scrollTop + box.clientHeight) box.scrollTop = Math.max(top - 40, 0);
      }
    }
  }
  function updateMatched(G) {
    const m = G.matchShare();
    if (!m) { G.matchedEl.textContent = ''; return; }
    G.matchedEl.textContent = 'Matched: ' + m.all.toFixed(2) + '%' + (G.zoom ? ' (' + m.zoom.toFixed(2) + '% of zoomed frame)' : '');
  }

  // ---- the selected name: highlighted in every graph, its callers and callees ----
  // (only the shown graph is drawn now; a tab draws its own when shown)
  function select(name) {
    state.sel = name;
    for (const G of state.graphs) {
      const k = name == null ? -1 : (G.index.has(name) ? G.index.get(name) : -1);
      G.hlName = k;
      if (G.tbody) markRows(G);
      if (G.svg && G.panel.classList.contains('active') && G.panel.isConnected) {
        G.draw();
        laterSandwich(G);
      }
    }
  }
  // the callers/callees are drawn just after the graph, so that a click
  // zooms at once; only the latest request runs
  let swTimer = 0;
  function laterSandwich(G) {
    clearTimeout(swTimer);
    G.swEl.setAttribute('data-pending', '1');
    swTimer = setTimeout(() => { drawSandwich(G); G.swEl.removeAttribute('data-pending'); }, 0);
  }
  // a merged tree drawn as a small flame graph; up: the root at the bottom
  function miniGraph(G, T, up, title, total) {
    const n = T.p.length, x = new Float64Array(n), d = new Int32Array(n), next = new Float64Array(n);
    let maxd = 0;
    for (let i = 1; i < n; i++) { const p = T.p[i]; x[i] = next[p]; next[p] += T.v[i]; next[i] = x[i]; d[i] = d[p] + 1; if (d[i] > maxd) maxd = d[i]; }
    const W = Math.max(400, (G.swEl.clientWidth || 1200) - 4), H = (maxd + 1) * ROW_H, scale = T.v[0] > 0 ? W / T.v[0] : 0;
    const svg = sv('svg', { class: 'mini ' + (up ? 'callers' : 'callees'), viewBox: '0 0 ' + W + ' ' + H, height: H, role: 'img' });
    const tt = sv('title'); tt.textContent = title; svg.append(tt);
    const names = G.g.names, sc = G.g.scale;
    for (let i = 0; i < n; i++) {
      const w = T.v[i] * scale;
      if (w < 0.3) continue;
      const y = up ? H - (d[i] + 1) * ROW_H : d[i] * ROW_H;
      const nm = names[T.n[i]];
      const c = i === 0 ? HL : [205 + Math.round(50 * hashOf(nm)), 90 + Math.round(120 * hashOf(nm + '.')), 40];
      const gr = bar(x[i] * scale, y, Math.max(w - 0.5, 0.3), ROW_H - 1, c, nm, 'mf');
      gr.setAttribute('data-i', i);
      svg.append(gr);
    }
    svg.addEventListener('mousemove', ev => {
      const f = ev.target.closest('g.mf');
      if (!f) { hideTip(); return; }
      const i = +f.getAttribute('data-i');
      showTip(ev, [names[T.n[i]], (up ? 'calls it: ' : 'called under it: ') + fmtNs(T.v[i], sc) + ' (' + pct(T.v[i], total) + ' of its total)']);
    });
    svg.addEventListener('mouseleave', hideTip);
    svg.addEventListener('click', ev => {
      const f = ev.target.closest('g.mf');
      if (f && +f.getAttribute('data-i') > 0) select(names[T.n[+f.getAttribute('data-i')]]);
    });
    return svg;
  }
  function drawSandwich(G) {
    const box = G.swEl;
    box.textContent = '';
    const name = state.sel;
    if (name == null) {
      box.append(el('p', { class: 'note', text: 'Callers and callees: select a frame (click it, a table row, or Enter in the search box) to see everything that called it and everything it called, merged across the graph.' }));
      return;
    }
    const head = el('h3', null, 'Callers and callees of ', el('code', { class: 'selname', text: name }));
    const clear = el('button', { type: 'button', class: 'unselect', text: 'Clear selection' });
    clear.addEventListener('click', () => select(null));
    box.append(el('div', { class: 'toolbar' }, head, clear));
    const m = ELIDED.exec(name);
    if (m) {
      const full = fullName(name);
      if (full != null) {
        const show = el('button', { type: 'button', class: 'showfull', text: 'Show the full name (' + m[1] + ' bytes)' });
        const pre = el('pre', { class: 'fullname' });
        show.addEventListener('click', () => { pre.textContent = full; show.remove(); });
        box.append(show, pre);
      } else {
        box.append(el('p', { class: 'note', text: 'This name is ' + m[1] + ' bytes long; the page holds its first and last 400 bytes only (its budget of full names is spent): gpuflame fold prints it whole.' }));
      }
    }
    // the name's figures under every weight
    const rows = [];
    for (const H of state.graphs) {
      if (H.rank !== G.rank || H.key === 'diff') continue;
      const k = H.index.has(name) ? H.index.get(name) : -1, r = k > 0 ? H.row(k) : null, sc = H.g.scale;
      rows.push([W_NAMES.get(H.key) || H.key, r ? fmtNs(r.total, sc) : 'not in this graph', r ? pct(r.total, H.g.v[0]) : '',
        r ? fmtNs(r.self, sc) : '', r && r.calls >= 0 && H.steps ? (r.calls / H.steps).toFixed(2) : '']);
    }
    if (rows.length) box.append(table(['weight', 'total', 'share', 'self', 'calls/step'], rows, 'selweights'));
    const k = G.index.has(name) ? G.index.get(name) : -1;
    if (k < 0) { box.append(el('p', { class: 'note', text: 'not in the ' + (W_NAMES.get(G.key) || 'this') + ' graph' })); return; }
    const s = sandwich(G, k), sc = G.g.scale, tot = s.callers.v[0];
    box.append(el('p', { class: 'note', text: (W_NAMES.get(G.key) || 'Weight') + ': total ' + fmtNs(tot, sc) + ' over ' + plural(s.occ, 'outermost frame') +
      ' (a frame under another of the same name counted once); self ' + fmtNs(G.row(k) ? G.row(k).self : 0, sc) + '. Click a frame to select it.' }));
    box.append(el('div', { class: 'minihead', text: 'Callers (what called it, merged; it is the bottom row)' }),
      miniGraph(G, s.callers, true, 'callers of ' + name, tot),
      el('div', { class: 'minihead', text: 'Callees (what it called, merged; it is the top row)' }),
      miniGraph(G, s.callees, false, 'callees of ' + name, tot));
  }

  // ---- the search box over every graph ----
  function searchBox() {
    const input = el('input', { type: 'text', id: 'search', placeholder: 'search: regular expression (Enter: select the heaviest)', spellcheck: 'false' });
    const all = el('span', { id: 'matched', class: 'matched' });
    const clear = el('button', { type: 'button', text: 'Clear' });
    function run() {
      let re = null;
      input.classList.remove('bad');
      if (input.value) {
        try { re = new RegExp(input.value); } catch (e) { input.classList.add('bad'); all.textContent = 'Invalid regular expression'; return; }
      }
      state.re = re;
      const parts = [];
      for (const G of state.graphs) {
        G.setSearch(re);
        if (G.svg && G.panel.classList.contains('active')) G.draw();
        updateMatched(G);
        const m = G.matchShare();
        if (m && G.rank === state.rank) parts.push((W_NAMES.get(G.key) || G.key) + ' ' + m.all.toFixed(2) + '%');
      }
      all.textContent = re ? 'Matched: ' + parts.join(', ') : '';
    }
    input.addEventListener('input', run);
    input.addEventListener('keydown', ev => {
      if (ev.key !== 'Enter' || !state.re) return;
      const G = state.graphs.find(x => x.rank === state.rank && x.panel && x.panel.classList.contains('active'));
      if (!G) return;
      let best = null;
      for (const r of G.rows) if (state.re.test(r.name) && (!best || r.total > best.total)) best = r;
      if (best) select(best.name);
    });
    state.runSearch = run;
    clear.addEventListener('click', () => { input.value = ''; run(); });
    return el('div', { class: 'toolbar' }, el('label', { for: 'search', text: 'Search ' }), input, clear, all);
  }

  // ---- tabs ----
  function tabs(list) {
    const bar_ = el('div', { class: 'tabs', role: 'tablist' });
    const box = el('div');
    list.forEach(([key, label, panel], k) => {
      const b = el('button', { type: 'button', role: 'tab', 'data-tab': key, text: label });
      b.addEventListener('click', () => activate(k));
      bar_.append(b); box.append(panel);
    });
    function activate(k) {
      bar_.querySelectorAll('button').forEach((b, j) => b.classList.toggle('active', j === k));
      list.forEach(([key, , panel, G], j) => {
        panel.classList.toggle('active', j === k);
        if (j === k && G) { state.tab = key; G.draw(); updateMatched(G); laterSandwich(G); }
      });
    }
    return { el: el('div', null, bar_, box), activate: activate };
  }

  // ---- patterns of the gap causes (colour and shape) ----
  function patternDefs(svg) {
    const defs = sv('defs');
    const shapes = new Map([['busy', null], ['other', null], ['compute', null], ['overlap', null], ['exposed', 'M0,0 l8,8']]);
    for (const c of V.causes) shapes.set(c.key, c.pattern);
    for (const [c, d] of shapes) {
      const p = sv('pattern', { id: 'pat-' + c, width: 8, height: 8, patternUnits: 'userSpaceOnUse' });
      p.append(sv('rect', { width: 8, height: 8, fill: CAUSE_COL.get(c) }));
      if (d) p.append(sv('path', { d: d, stroke: '#fff', 'stroke-width': 1.3, fill: 'none' }));
      defs.append(p);
    }
    svg.append(defs);
  }
  const defsSvg = sv('svg', { class: 'defs', width: 0, height: 0, 'aria-hidden': 'true' });
  document.body.append(defsSvg);
  patternDefs(defsSvg);
  function legendKey(c, label) {
    const s = sv('svg', { width: 16, height: 12 });
    s.append(sv('rect', { width: 16, height: 12, fill: 'url(#pat-' + c + ')' }));
    return el('span', { class: 'key' }, s, label);
  }
  function swatch(c, label) {
    const s = sv('svg', { width: 16, height: 12 });
    s.append(sv('rect', { width: 16, height: 12, fill: css(rgbOf(c)) }));
    return el('span', { class: 'key' }, s, label);
  }

  // ---- per-step bars ----
  function stepBars(R, onStep, marked) {
    const steps = R.steps || [];
    if (!steps.length) return el('p', { class: 'empty', text: 'no steps' });
    const W = 1100, H = 220, pad = 40, bw = Math.max(2, Math.min(40, (W - pad - 10) / steps.length - 2));
    const max = Math.max(...steps.map(s => num(s.wall_us)), 1e-9);
    const svg = sv('svg', { class: 'bars', width: W, height: H + 30, viewBox: '0 0 ' + W + ' ' + (H + 30), role: 'img' });
    const y = us => H - (H - 10) * us / max;
    const details = el('div', { class: 'details', text: ' ' });
    steps.forEach((s, k) => {
      const gx = pad + k * (bw + 2);
      const grp = sv('g', { class: 'step' + (s.warmup ? ' warmup' : '') + (marked.has(k) ? ' timeline' : ''), 'data-step': s.index == null ? k : s.index });
      const parts = s.compute_us == null ? [['busy', s.gpu_busy_us]] : COMM_SPLIT.map(([c, f]) => [c, s[f]]);
      if (s.gaps) for (const c of V.causes) parts.push([c.key, s.gaps[c.json]]);
      else parts.push(['other', s.idle_us]);
      let acc = 0;
      const lines = ['step ' + (s.index == null ? k : s.index) + (s.warmup ? ' (warm-up)' : '') + ': wall ' + fmtUs(s.wall_us)];
      for (const [c, v] of parts) {
        if (!(v > 0)) continue;
        grp.append(sv('rect', { x: gx, y: y(acc + v), width: bw, height: Math.max(y(acc) - y(acc + v), 0.5), fill: 'url(#pat-' + c + ')', class: 'seg-' + c, opacity: s.warmup ? 0.45 : 1 }));
        acc += v;
        lines.push(c + ' ' + fmtUs(v));
      }
      if (marked.has(k)) {
        grp.append(sv('rect', { x: gx - 1, y: y(num(s.wall_us)) - 1, width: bw + 2, height: H - y(num(s.wall_us)) + 2, fill: 'none', stroke: '#000', 'stroke-width': 1.5, class: 'tlmark' }));
        lines.push('its timeline is below (click)');
      }
      const tt = sv('title'); tt.textContent = lines.join('\n'); grp.append(tt);
      if (s.warmup) { const t = sv('text', { x: gx + bw / 2 - 3, y: H + 12 }); t.textContent = 'W'; grp.append(t); }
      grp.addEventListener('mouseenter', () => { details.textContent = lines.join(', '); });
      if (marked.has(k)) grp.addEventListener('click', () => onStep(k));
      svg.append(grp);
    });
    const med = R.summary && R.summary.steady_step_us;
    if (med > 0) {
      svg.append(sv('line', { x1: pad - 4, x2: W - 4, y1: y(med), y2: y(med), stroke: '#000', 'stroke-dasharray': '5 3', class: 'median' }));
      const t = sv('text', { x: 2, y: y(med) + 3 }); t.textContent = 'median'; svg.append(t);
    }
    const t0 = sv('text', { x: 2, y: 12 }); t0.textContent = fmtUs(max); svg.append(t0);
    const busyKeys = R.comm ? COMM_SPLIT.map(([c, , l]) => legendKey(c, l)) : [legendKey('busy', 'GPU busy')];
    const legend = el('div', { class: 'legend' }, ...busyKeys, ...CAUSES.map(c => legendKey(c, 'idle: ' + c)),
      el('span', { text: 'W = warm-up step (faded); dashed line = steady step (median)' + (marked.size ? '; outlined = its timeline is on the page' : '') }));
    return el('div', { class: 'barbox' }, legend, svg, details);
  }

  // ---- the step timeline ----
  const LANE_H = 18, LABEL_W = 190, AXIS_H = 22;
  const CALL_COL = [[142, 36, 170], [198, 40, 40], [170, 170, 170]];
  const KIND_COL = [[120, 144, 156], [255, 183, 77], [255, 138, 101], [170, 170, 170], [170, 170, 170]];
  function threadName(T) {
    const th = T.thread;
    return th ? (th.name != null ? th.name : 'thread ' + txt(th.tid)) : 'no host thread';
  }
  function laneLabel(L, T) {
    switch (L.kind) {
      case 'idle': return 'GPU ' + txt(T.device) + ' idle, by cause';
      case 'stream': return 'GPU ' + txt(T.device) + ' stream ' + txt(L.stream);
      case 'comm': return 'communication, stream ' + txt(L.stream);
      case 'streams': return 'other streams';
      case 'frames': return 'host: innermost frames';
      default: return 'host: runtime calls';
    }
  }
  function Timeline(T, R, P) {
    this.T = T; this.R = R; this.P = P;
    this.v0 = 0; this.v1 = Math.max(num(T.wall), 1);
    this.lanes = (T.lanes || []).filter(L => Array.isArray(L.s));
    this.kernels = new Map();
  }
  Timeline.prototype.segColour = function (L, i) {
    const c = CLS(L.c[i]);
    if (L.kind === 'idle') return rgbOf(CAUSE_COL.get(causeOf(c)) || '#999999');
    if (L.kind === 'calls') return CALL_COL[c] || CALL_COL[2];
    const nm = L.n[i] >= 0 ? this.T.names[L.n[i]] : '';
    if (L.kind === 'frames') { const v = hashOf(nm); const b = KIND_COL[c] || KIND_COL[4]; return b.map((x, k) => Math.min(255, Math.round(x + (k === 1 ? 40 : 20) * v))); }
    const v = hashOf(nm);
    if (L.kind === 'comm') return [30 + Math.round(40 * v), 100 + Math.round(60 * v), 200];
    return [60 + Math.round(60 * v), 150 + Math.round(70 * v), 80 + Math.round(60 * v)];
  };
  Timeline.prototype.label = function (L, i) {
    if (L.kind === 'idle') return causeOf(L.c[i]) + (L.k[i] > 1 ? ' +' + (L.k[i] - 1) : '');
    const nm = L.n[i] >= 0 ? this.T.names[L.n[i]] : '';
    return L.k[i] > 1 ? nm + ' +' + (L.k[i] - 1) : nm;
  };
  Timeline.prototype.lines = function (L, i) {
    const T = this.T, k = L.k[i], out = [];
    const span = fmtNs(L.d[i]) + ' at +' + fmtNs(L.s[i]) + ' in the step';
    if (L.kind === 'idle') {
      const c = causeOf(L.c[i]);
      if (k > 1) {
        out.push(plural(k, 'idle piece') + ' narrower than a pixel, merged: ' + fmtNs(L.b[i]) + ' idle over ' + span);
        const m = L.m && L.m[i];
        if (Array.isArray(m)) out.push(CAUSES.map((x, j) => [x, m[j]]).filter(x => x[1] > 0).map(x => x[0] + ' ' + fmtNs(x[1])).join(', '));
        out.push('the longest (' + c + '):');
      } else out.push('GPU idle ' + span + ': ' + c);
      if (Array.isArray(L.h) && L.h[i] >= 0) out.push('host work: ' + classOf(L.h[i]));
      out.push(T.texts[L.x[i]]);
      return out;
    }
    const nm = L.n[i] >= 0 ? T.names[L.n[i]] : '-';
    const n2 = L.n2 && L.n2[i] >= 0 ? T.names[L.n2[i]] : null;
    if (k > 1) out.push(plural(k, L.kind === 'frames' ? 'frame' : L.kind === 'calls' ? 'call' : 'activity') + ' narrower than a pixel, merged: ' +
      fmtNs(L.b[i]) + ' busy over ' + span + '; the longest:');
    if (L.kind === 'frames') {
      out.push(nm);
      if (k === 1) out.push(span);
      if (n2) out.push('Python site: ' + n2);
    } else if (L.kind === 'calls') {
      out.push(nm + ' (' + ['launch', 'blocking call', 'runtime call'][CLS(L.c[i])] + ')');
      if (k === 1) out.push(span);
      if (L.a[i] >= 0) out.push('its work started ' + fmtNs(L.a[i]) + ' after the call began');
      if (n2) out.push('Python site: ' + n2);
    } else {
      out.push(nm + (L.kind === 'comm' ? ' (communication)' : ''));
      if (n2 && n2 !== nm) out.push(n2);
      if (k === 1) out.push(span);
      out.push(L.a[i] >= 0 ? 'started ' + fmtNs(L.a[i]) + ' after its launch call began' : 'no launch call in the trace');
    }
    return out;
  };
  Timeline.prototype.build = function (box) {
    const T = this.T;
    const reset = el('button', { type: 'button', class: 'tlreset', text: 'Reset zoom' });
    const zin = el('button', { type: 'button', class: 'tlin', text: 'Zoom in' });
    const zout = el('button', { type: 'button', class: 'tlout', text: 'Zoom out' });
    this.range = el('span', { class: 'note tlrange' });
    box.append(el('div', { class: 'toolbar' }, reset, zin, zout, this.range,
      el('span', { class: 'note', text: 'Ctrl+wheel: zoom at the pointer; drag: pan; click a block: zoom to it' })));
    this.svg = sv('svg', { class: 'timeline', role: 'img' });
    this.details = el('div', { class: 'details tldetails', text: ' ' });
    box.append(el('p', { class: 'note', text: 'Host lanes: ' + threadName(T) + ', the thread that launched the device\'s work.' }),
      el('div', { class: 'tlbox' }, this.svg), this.details);
    // what was merged below a pixel, lane by lane
    const merged = this.lanes.filter(L => L.merged > 0).map(L => laneLabel(L, T) + ': ' + L.merged + ' of ' + L.items + ' (' + pct(L.merged_ns, L.items_ns) + ' of their time)');
    box.append(el('p', { class: 'note tlmerged', text: 'Below one pixel at the default zoom (' + fmtNs(T.px) + '), items were merged into blocks: ' +
      (merged.length ? merged.join('; ') : 'none') + '. Zoom shows the blocks, not their members; the flame graphs hold every kernel.' }));
    const legend = el('div', { class: 'legend' }, ...CAUSES.map(c => swatch(CAUSE_COL.get(c), 'idle: ' + c)),
      swatch(css(CALL_COL[0]), 'launch call'), swatch(css(CALL_COL[1]), 'blocking call'), swatch(css(CALL_COL[2]), 'other runtime call'),
      el('span', { text: 'kernels coloured by family (the GPU graph\'s leaves)' }));
    box.append(legend);
    reset.addEventListener('click', () => this.zoomTo(0, num(T.wall)));
    zin.addEventListener('click', () => this.zoomBy(0.5, 0.5));
    zout.addEventListener('click', () => this.zoomBy(2, 0.5));
    const at = ev => {
      const r = this.svg.getBoundingClientRect(), W = r.width - LABEL_W;
      return Math.min(Math.max((ev.clientX - r.left - LABEL_W) / Math.max(W, 1), 0), 1);
    };
    // Ctrl (or Cmd) + wheel zooms; the plain wheel keeps scrolling the page
    this.svg.addEventListener('wheel', ev => {
      if (!ev.ctrlKey && !ev.metaKey) return;
      ev.preventDefault();
      this.zoomBy(ev.deltaY < 0 ? 0.8 : 1.25, at(ev));
    }, { passive: false });
    let drag = null;
    this.svg.addEventListener('mousedown', ev => { drag = { x: ev.clientX, v0: this.v0, v1: this.v1, moved: false }; });
    window.addEventListener('mouseup', () => { setTimeout(() => { drag = null; }, 0); });
    this.svg.addEventListener('mousemove', ev => {
      if (drag && ev.buttons & 1) {
        const W = this.svg.getBoundingClientRect().width - LABEL_W, dx = (ev.clientX - drag.x) / Math.max(W, 1) * (drag.v1 - drag.v0);
        if (Math.abs(ev.clientX - drag.x) > 3) drag.moved = true;
        if (drag.moved) { this.pan(drag.v0 - dx, drag.v1 - dx); hideTip(); return; }
      }
      const f = ev.target.closest('g.seg');
      if (!f) { hideTip(); return; }
      const L = this.lanes[+f.getAttribute('data-l')], i = +f.getAttribute('data-s');
      const lines = this.lines(L, i);
      this.details.textContent = lines.join(' \u2014 ');
      showTip(ev, lines);
    });
    this.svg.addEventListener('mouseleave', hideTip);
    this.svg.addEventListener('click', ev => {
      if (drag && drag.moved) return;
      const f = ev.target.closest('g.seg');
      if (!f) return;
      const L = this.lanes[+f.getAttribute('data-l')], i = +f.getAttribute('data-s');
      const pad = Math.max(L.d[i] * 0.1, 1);
      this.zoomTo(L.s[i] - pad, L.s[i] + L.d[i] + pad);
    });
  };
  Timeline.prototype.pan = function (a, b) {
    const w = b - a, wall = num(this.T.wall);
    if (a < 0) { a = 0; b = w; }
    if (b > wall) { b = wall; a = Math.max(wall - w, 0); }
    this.v0 = a; this.v1 = b; this.draw();
  };
  Timeline.prototype.zoomTo = function (a, b) {
    const wall = num(this.T.wall);
    a = Math.max(a, 0); b = Math.min(b, wall);
    if (b - a < 10) { const m = (a + b) / 2; a = Math.max(m - 5, 0); b = Math.min(a + 10, wall); }
    this.v0 = a; this.v1 = b; this.draw();
  };
  Timeline.prototype.zoomBy = function (f, at) {
    const w = this.v1 - this.v0, c = this.v0 + at * w, nw = Math.min(Math.max(w * f, 10), num(this.T.wall));
    this.pan(c - at * nw, c - at * nw + nw);
  };
  Timeline.prototype.draw = function () {
    const svg = this.svg, T = this.T;
    const Wt = Math.max(600, (svg.parentNode && svg.parentNode.clientWidth) || 1200) - 2;
    const W = Wt - LABEL_W, H = AXIS_H + this.lanes.length * (LANE_H + 4) + 4;
    svg.setAttribute('viewBox', '0 0 ' + Wt + ' ' + H);
    svg.setAttribute('height', H);
    svg.textContent = '';
    const v0 = this.v0, v1 = this.v1, sc = W / Math.max(v1 - v0, 1);
    this.range.textContent = 'showing +' + fmtNs(v0) + ' to +' + fmtNs(v1) + ' of the step (' + fmtNs(v1 - v0) + ')';
    // the axis: about 8 ticks at a round step
    const raw = (v1 - v0) / 8, p10 = Math.pow(10, Math.floor(Math.log10(Math.max(raw, 1))));
    const step = [1, 2, 5, 10].map(m => m * p10).find(s => s >= raw) || raw;
    const ax = sv('g', { class: 'axis' });
    for (let t = Math.ceil(v0 / step) * step; t <= v1; t += step) {
      const x = LABEL_W + (t - v0) * sc;
      ax.append(sv('line', { x1: x, x2: x, y1: AXIS_H - 4, y2: H, stroke: '#e0e0e0' }));
      const l = sv('text', { x: x + 2, y: AXIS_H - 8 }); l.textContent = '+' + fmtNs(t); ax.append(l);
    }
    svg.append(ax);
    let drawn = 0;
    const frag = document.createDocumentFragment();
    this.lanes.forEach((L, li) => {
      const y = AXIS_H + li * (LANE_H + 4);
      const lab = sv('text', { x: 4, y: y + LANE_H - 5, class: 'lanelabel' });
      const name = laneLabel(L, T);
      lab.textContent = name.length > 28 ? name.slice(0, 26) + '..' : name;
      const tt = sv('title'); tt.textContent = name + ': ' + plural(num(L.items), 'item') + (L.merged ? ', ' + L.merged + ' merged below a pixel' : '');
      lab.append(tt);
      frag.append(lab, sv('rect', { x: LABEL_W, y: y, width: W, height: LANE_H, fill: '#f6f6f6', class: 'laneback' }));
      for (let i = 0; i < L.s.length; i++) {
        const a = L.s[i], b = a + L.d[i];
        if (b < v0 || a > v1) continue;
        const x = LABEL_W + (Math.max(a, v0) - v0) * sc, w = (Math.min(b, v1) - Math.max(a, v0)) * sc;
        const g = bar(x, y, Math.max(w, 1), LANE_H, this.segColour(L, i), this.label(L, i),
          'seg ' + L.kind + (L.kind === 'idle' ? ' cause-' + causeOf(L.c[i]) : '') + (L.k[i] > 1 ? ' merged' : ''));
        g.setAttribute('data-l', li); g.setAttribute('data-s', i);
        frag.append(g);
        drawn++;
      }
    });
    svg.append(frag);
    this.drawn = drawn;
  };
  function timelineView(R, P) {
    const list = Array.isArray(P.timeline) ? P.timeline : [];
    const box = el('div', { class: 'tlview' });
    if (!list.length) { box.append(el('p', { class: 'empty', text: 'no timeline embedded (gpuflame report --format html --timeline STEPS embeds the steps asked for)' })); return { el: box, show: () => {}, rows: new Set(), byRow: () => -1, redraw: () => {} }; }
    const head = el('p', { class: 'tlhead' });
    const sel = list.length > 1 ? el('select', { class: 'tlstep', 'aria-label': 'timeline step' }) : null;
    const holder = el('div');
    box.append(el('div', { class: 'toolbar' }, head, sel ? el('label', null, 'step ', sel) : null), holder);
    const steps = R.steps || [];
    list.forEach((T, k) => { if (sel) sel.append(el('option', { value: k, text: T.step == null ? 'whole trace' : 'step ' + T.step })); });
    const views = list.map(T => new Timeline(T, R, P));
    let cur = -1;
    function show(k) {
      if (k === cur) return;
      cur = k;
      const T = list[k], s = steps[T.row] || {};
      head.textContent = (T.step == null ? 'The whole trace (no step markers)' : 'Step ' + T.step) +
        (T.median && T.step != null ? ' (the median steady step)' : '') + ': wall ' + fmtNs(T.wall) + ', GPU busy ' + fmtUs(s.gpu_busy_us) + ', idle ' + fmtUs(s.idle_us) +
        '. Other steps: gpuflame report --format html --timeline A,B..C';
      holder.textContent = '';
      if (!views[k].box) { views[k].box = el('div'); views[k].build(views[k].box); }
      holder.append(views[k].box);
      views[k].draw();
      if (sel) sel.value = String(k);
      state.timeline = views[k];
    }
    if (sel) sel.addEventListener('change', () => show(+sel.value));
    const rows = new Set(list.map(T => T.row));
    return { el: box, show: show, rows: rows, byRow: row => list.findIndex(T => T.row === row), redraw: () => { if (cur >= 0) views[cur].draw(); } };
  }

  // ---- report sections from the report JSON (gpuflame.report/2) ----
  function verdict(R) {
    const s = R.summary || {};
    return el('div', { class: 'verdict' }, el('div', null, el('b', { text: 'Verdict: ' }), txt(s.verdict)),
      el('div', { class: 'next' }, el('b', { text: 'Next: ' }), txt(s.action)));
  }
  function metaLine(R, extra) {
    const w = R.warnings || {}, s = R.summary || {};
    const bits = ['file ' + txt(R.file), 'rank ' + txt(R.rank), 'world size ' + txt(R.world_size),
      'device ' + txt(R.device), 'steps ' + num(s.steps) + ' (' + num(s.warmup_steps) + ' warm-up, ' + num(s.steady_steps) + ' steady)'];
    if (extra && extra.ts_gen) bits.push('trace generation: ' + extra.ts_gen);
    const warn = [];
    if (w.unattributed_activities) warn.push(w.unattributed_activities + ' GPU activities without a launch (' + num(w.launched_before_window) + ' launched before the window)');
    if (w.clipped_ranges) warn.push(w.clipped_ranges + ' host ranges clipped');
    if (w.steps_left_out) warn.push(w.steps_left_out + ' steps left out');
    if (w.truncated) warn.push('the trace file was cut off');
    return el('div', null, el('p', { class: 'meta', text: bits.join(' \u00b7 ') }),
      warn.length ? el('p', { class: 'note', text: 'Warnings: ' + warn.join('; ') }) : null);
  }
  function steadyTable(R) {
    const s = R.summary || {};
    const rows = [['wall', fmtUs(s.steady_step_us)], ['GPU busy', fmtUs(s.gpu_busy_us) + ' (' + (100 * num(s.gpu_busy_share)).toFixed(1) + '%)'],
      ['kernel', fmtUs(s.kernel_us)], ['memcpy', fmtUs(s.memcpy_us)], ['memset', fmtUs(s.memset_us)], ['idle', fmtUs(s.idle_us)],
      ['sync wait', fmtUs(s.sync_wait_us)], ['syncs', s.syncs], ['launches', s.launches], ['kernels', s.kernels], ['median kernel', fmtUs(s.median_kernel_us)]];
    return table(['steady step (median)', ''], rows, 'steady');
  }
  function gapTable(R) {
    const g = R.gaps;
    if (!g) return el('p', { class: 'empty', text: 'not computed' });
    const idle = (R.summary && R.summary.idle_us) || 0;
    const rows = V.causes.map(c => [c.key, fmtUs(g[c.json]), idle > 0 ? pct(g[c.json], idle) : '']);
    const t = table(['cause (steady step)', 'idle', 'share of idle'], rows, 'gaps');
    t.querySelectorAll('tbody tr').forEach((tr, k) => tr.firstChild.prepend(legendKey(CAUSES[k], '')));
    const keys = [];
    for (const c of V.causes.filter(c => c.keys))
      for (const x of (Array.isArray(g[c.keys]) ? g[c.keys] : [])) keys.push([x[c.key_field], c.key, fmtUs(x.idle_per_step_us), (100 * num(x.share)).toFixed(2) + '%']);
    return el('div', null, t, keys.length ? table(['where', 'cause', 'idle per step', 'share of the cause'], keys, 'gapkeys') : null,
      el('p', { class: 'note', text: 'median launch-to-start latency ' + fmtUs(g.latency && g.latency.median_launch_to_start_us) + ' over ' + num(g.latency && g.latency.launches) + ' launches' }));
  }
  function syncTable(R) {
    const s = Array.isArray(R.syncs) ? R.syncs : [];
    if (!s.length) return el('p', { class: 'empty', text: 'no blocking calls in the steps' });
    return table(['site', 'op', 'api', 'copy', 'per step', 'wait', 'bubble per step', 'fix'],
      s.map(x => [x.site, x.op, x.api, (x.copy == null ? '-' : x.copy) + (x.pageable ? ' (pageable)' : ''), x.count_per_step, fmtUs(x.wait_us), fmtUs(x.bubble_per_step_us), x.fix]),
      'syncs', { wide: [7] });
  }
  function launchPanel(R) {
    const l = R.launch;
    if (!l) return el('p', { class: 'empty', text: 'not computed' });
    const rows = [['kernels per step', l.kernels_per_step], ['launches per step', l.launches_per_step], ['graph launches', l.graph_launches],
      ['median kernel', fmtUs(l.median_kernel_us)], ['median launch call', fmtUs(l.median_launch_us)],
      ['short kernels', txt(l.short_kernels) + ' of ' + txt(l.compared_kernels)], ['launch-bound', l.launch_bound ? 'yes' : 'no']];
    return el('div', null, table(['launches', ''], rows, 'launch'), l.recommendation ? el('p', { text: l.recommendation }) : null);
  }
  function commPanel(R) {
    const c = R.comm;
    if (!c) return el('p', { class: 'empty', text: 'no communication kernels' });
    const t = table(['communication (mean steady step)', ''], [['kernels', c.kernels], ['wall', fmtUs(c.wall_us)], ['GPU busy', fmtUs(c.busy_us)],
      ['compute', fmtUs(c.compute_us)], ['NCCL overlapped', fmtUs(c.overlap_us)], ['NCCL exposed', fmtUs(c.exposed_us) + ' (' + (100 * c.exposed_share).toFixed(1) + '% of the step)'],
      ['HTA comm', fmtUs(c.hta_comm_us)], ['HTA overlap ratio', c.hta_overlap_ratio]], 'comm');
    const colls = (c.collectives || []).map(x => [x.collective, x.stream == null ? '-' : x.stream, x.calls_per_step, fmtUs(x.comm_us), fmtUs(x.exposed_us), x.kernel]);
    return el('div', null, t, colls.length ? table(['collective', 'stream', 'calls per step', 'comm', 'exposed', 'kernel'], colls, 'colls') : null);
  }
  function linesPanel(R) {
    const out = [];
    if (R.overhead) out.push(el('p', { text: 'Profiler overhead: the steady step ' + fmtUs(R.summary.steady_step_us) + ' vs ' + fmtUs(R.overhead.unprofiled_step_us) + ' unprofiled: ' + fmtUs(R.overhead.overhead_us) + ' per step' }));
    if (R.expect) out.push(el('p', { text: 'Speed of light: expected ' + fmtUs(R.expect.expect_us) + ', distance ' + fmtUs(R.expect.distance_us) + ' per step' }));
    return out.length ? el('div', null, ...out) : null;
  }
  function topTable(R) {
    const t = Array.isArray(R.top_calls) ? R.top_calls : [];
    if (!t.length) return el('p', { class: 'empty', text: 'none' });
    return table(['call', 'kind', 'per step', 'count'], t.map(x => [x.name, x.kind, x.per_step, x.count]), 'topcalls');
  }
  function idleTable(R) {
    const t = Array.isArray(R.idle_stacks) ? R.idle_stacks : [];
    if (!t.length) return el('p', { class: 'empty', text: 'none' });
    return table(['host stack while the GPU idled', 'idle per step', 'idle'], t.map(x => [x.stack, fmtUs(x.idle_per_step_us), fmtUs(x.idle_us)]), 'idlestacks', { stacks: [0] });
  }
  function baseName(f) { const s = txt(f); const i = s.lastIndexOf('/'); return i >= 0 && i < s.length - 1 ? s.slice(i + 1) : s; }

  function ranksTable(reps, strag) {
    const head = ['figure'].concat(reps.map((r, k) => 'rank ' + (r.rank == null ? k : r.rank) + (strag && strag.index === k ? ' (straggler)' : '')));
    const per = k => (strag && Array.isArray(strag.per_rank) && strag.per_rank[k]) || {};
    const f = [['file', r => baseName(r.file)], ['steady step', r => fmtUs(r.summary.steady_step_us)], ['GPU busy', r => fmtUs(r.summary.gpu_busy_us)],
      ['idle', r => fmtUs(r.summary.idle_us)], ['sync wait', r => fmtUs(r.summary.sync_wait_us)], ['syncs', r => r.summary.syncs],
      ['launches', r => r.summary.launches], ['verdict', r => r.summary.verdict_cause]];
    if (strag) f.push(['collective wait', (r, k) => fmtUs(per(k).wait_us)], ['arrived last', (r, k) => per(k).arrived_last]);
    const box = table(head, f.map(([n, fn]) => [n].concat(reps.map((r, k) => fn(r, k)))), 'ranks');
    const t = box.querySelector('table');
    if (strag) t.querySelectorAll('tr').forEach(tr => { const c = tr.children[strag.index + 1]; if (c) c.classList.add('straggler'); });
    return el('div', null, box, el('p', { class: 'note files', text: 'files: ' + reps.map((r, k) => 'rank ' + (r.rank == null ? k : r.rank) + ' = ' + txt(r.file)).join('; ') }),
      el('p', { class: 'note', text: strag ? 'straggler: ' + txt(strag.file) + (strag.clear ? '' : ' (not clear-cut)') + ', over ' + num(strag.matched) + ' matched collectives' : 'no straggler: no matched collectives' }));
  }

  // ---- pages ----
  function rankView(R, P, k) {
    const box = el('div', { class: 'rank', 'data-rank': k });
    const kernels = new Map();
    for (const f of (Array.isArray(P.families) ? P.families : [])) kernels.set(f.name, f);
    const list = [];
    const graphs = P.graphs || {};
    const why = new Map(Object.entries(P.why || {}));
    for (const key of W_KEYS) {
      const g = graphs[key];
      if (!g) { list.push([key, W_NAMES.get(key), el('div', { class: 'panel', 'data-graph': key }, el('p', { class: 'empty', text: why.get(key) || 'no weight' })), null]); continue; }
      const G = new Graph(key, g, P.steps, { kernels: KERNEL_LEAVES.has(key) ? kernels : null });
      G.rank = k;
      state.graphs.push(G);
      if (state.re) G.setSearch(state.re);
      list.push([key, W_NAMES.get(key), graphPanel(G, W_NAMES.get(key) + ' flame graph'), G]);
    }
    const tb = tabs(list);
    const tl = timelineView(R, P);
    const parts = [section('Flame graphs', tb.el),
      section('Per step', stepBars(R, row => { const j = tl.byRow(row); if (j >= 0) tl.show(j); }, tl.rows)),
      Array.isArray(P.timeline) ? section('Step timeline', tl.el) : null, // a rank summary's page (the ranks page) has none
      el('div', { class: 'grid2' }, section('Steady step', steadyTable(R)), section('GPU idle by cause', gapTable(R))),
      section('Hidden syncs', syncTable(R)),
      el('div', { class: 'grid2' }, section('Launches', launchPanel(R)), section('Communication', commPanel(R))),
      linesPanel(R) ? section('Targets', linesPanel(R)) : null,
      el('div', { class: 'grid2' }, section('Top calls per step', topTable(R)), section('Host stacks while the GPU idled', idleTable(R))),
      section('Trace', metaLine(R, P))];
    for (const c of parts) if (c) box.append(c);
    const first = list.findIndex(x => x[3]);
    box.activate = () => { tb.activate(first < 0 ? 0 : first); if (tl.rows.size) tl.show(0); };
    box.timeline = tl;
    return box;
  }

  function reportPage() {
    const rep = D.report || {};
    const reps = Array.isArray(rep.ranks) ? rep.ranks : [rep];
    app.append(el('h1', { text: txt(D.title) }));
    if (reps.length > 1) {
      app.append(ranksTable(reps, rep.straggler), verdict(reps[rep.straggler ? rep.straggler.index : 0]));
    } else {
      app.append(verdict(reps[0]));
    }
    app.append(searchBox());
    const views = reps.map((R, k) => rankView(R, D.ranks[k], k));
    state.views = views;
    if (reps.length > 1) {
      const sel = el('select', { id: 'rank' });
      reps.forEach((R, k) => sel.append(el('option', { value: k, text: 'rank ' + (R.rank == null ? k : R.rank) + ': ' + txt(R.file) })));
      sel.addEventListener('change', () => show(+sel.value));
      app.append(el('div', { class: 'toolbar' }, el('label', { for: 'rank', text: 'Figures below for ' }), sel));
    }
    const holder = el('div');
    app.append(holder);
    function show(k) {
      state.rank = k;
      holder.textContent = '';
      holder.append(views[k]);
      views[k].activate();
      if (state.runSearch && state.re) state.runSearch();
    }
    show(0);
  }

  function diffPage() {
    app.append(el('h1', { text: txt(D.title) }));
    const n = D.noise || {};
    const steps = Array.isArray(D.steps) ? D.steps : [0, 0];
    const wname = D.weight == null ? 'not stated by the inputs (plain folded stacks)' :
      (D.weight_title ? D.weight_title + ' (' + D.weight + ')' : D.weight);
    const unit = D.unit == null ? '' : ', in ' + D.unit;
    const run = (f, s) => txt(f) + (s > 0 ? ' (' + plural(s, 'step') + ')' : '');
    app.append(el('p', { class: 'weightline' }, el('b', { text: 'Weight compared: ' }), wname + unit + (D.per_step ? ', per step' : '')),
      el('p', { class: 'runs' }, el('b', { text: 'Before: ' }), run(D.before, steps[0]), el('b', { text: ' \u2192 after: ' }), run(D.after, steps[1])),
      el('p', { class: 'meta', text: txt(D.scale_note) }),
      el('p', { class: 'note', text: 'widths: after (or before, with the selector: frames the change removed are drawn there); fill: change of the frame\'s total, red = grew, blue = shrank, grey = noise or under ' + (100 * num(n.min_share)).toFixed(2) + '% in both' +
        (n.sampled ? '; noise test: two-proportion z-test at alpha ' + n.alpha : n.steps_test ? '; grey = within step-to-step noise' : '; exact durations: classed by the sign of the change') }),
      ...(n.summary ? [el('p', { class: 'note noise', text: txt(n.summary) })] : []), // (append() would print a null)
      el('p', { class: 'meta', text: num(n.grew) + ' frames grew, ' + num(n.shrank) + ' shrank, ' + num(n.noise) + ' noise, ' + num(n.small) + ' under the min share; ' + num(n.only_before) + ' only before, ' + num(n.only_after) + ' only after' }));
    app.append(searchBox());
    const G = new Graph('diff', D.graph, 0, { rootName: 'all', perStep: !!D.per_step });
    G.rank = 0;
    state.graphs.push(G);
    const panel = graphPanel(G, 'Differential flame graph');
    panel.classList.add('active');
    app.append(panel);
    const sc = D.graph.scale;
    // the frames the change removed: drawn only before (after 0), tops of such subtrees
    const g = D.graph, removed = [];
    for (let i = 1; i < g.p.length; i++) if (g.v[i] === 0 && g.b[i] > 0 && g.v[g.p[i]] > 0) removed.push(i);
    removed.sort((a, b) => g.b[b] - g.b[a]);
    const path = i => { const s = []; for (; i > 0; i = g.p[i]) s.push(g.names[g.n[i]]); return s.reverse().join(';'); };
    app.append(section('Removed frames (only before)' + (D.per_step ? ', per step' : ''), removed.length ?
      table(['frame', 'before'], removed.slice(0, 25).map(i => [path(i), fmtNs(g.b[i], sc)]), 'removed', { stacks: [0] }) :
      el('p', { class: 'empty', text: 'none drawn (frames only before and wide enough to draw: none)' })));
    const changes = Array.isArray(D.changes) ? D.changes : [];
    const rows = changes.map(r => [r.frame, r.self ? 'self' : 'total', fmtNs(r.before, sc), fmtNs(r.after, sc),
      (r.after - r.before >= 0 ? '+' : '') + fmtNs(r.after - r.before, sc), r.before > 0 ? (100 * (r.after - r.before) / r.before).toFixed(2) + '%' : 'new',
      ['same', 'grew', 'shrank', 'noise', 'small'][r.cls] || '-', r.p == null ? '' : String(r.p)]);
    app.append(section('Biggest changes' + (D.per_step ? ' (per step)' : ''), table(['frame', 'weight', 'before', 'after', 'change', 'change %', 'class', 'p'], rows, 'changes', { stacks: [0] })));
    G.draw();
    drawSandwich(G);
  }

  if (D.kind === 'diff') diffPage();
  else if (D.kind === 'ranks') window.gfRanksPage({ D, app, el, sv, table, section, fmtUs, showTip, hideTip, rankView, searchBox, state }); // page_ranks.js
  else reportPage();
  window.addEventListener('resize', () => {
    for (const G of state.graphs) if (G.panel && G.panel.classList.contains('active') && G.panel.isConnected) G.draw();
    if (state.timeline && state.timeline.svg.isConnected) state.timeline.draw();
  });
  document.documentElement.setAttribute('data-ready', '1');
})();
