// page_assets.js: the script of gpuflame's HTML page (report and diff).
// It reads the one JSON block (#gf-data), builds every element with the DOM
// API (names only ever become text nodes, never markup) and draws the
// flame graphs, the tables and the per-step bars. No library, no network.
'use strict';
(function () {
  const SVGNS = 'http://www.w3.org/2000/svg';
  const D = JSON.parse(document.getElementById('gf-data').textContent);
  const app = document.getElementById('app');
  // the weights and the gap causes come from the page's JSON (the C tables
  // stacks/weight.h and trace/analysis/causes.h): no list of them here
  const V = D.vocab || { weights: [], causes: [] };
  const WEIGHTS = V.weights.map(w => w.key);
  const KERNEL_LEAVES = new Set(V.weights.filter(w => w.kernels).map(w => w.key)); // leaves are kernel families
  const W_NAMES = {};
  for (const w of V.weights) W_NAMES[w.key] = w.title;
  const CAUSES = V.causes.map(c => c.key);
  // busy split by communication (comm.h): compute, NCCL under compute, NCCL alone
  const CAUSE_COL = { busy: '#2e7d32', idle: '#bdbdbd', compute: '#2e7d32', overlap: '#81c784', exposed: '#6a1b9a' };
  const COMM_SPLIT = [['compute', 'compute_us', 'GPU busy: compute'], ['overlap', 'comm_overlap_us', 'GPU busy: NCCL overlapped with compute'],
    ['exposed', 'comm_exposed_us', 'GPU busy: NCCL exposed (no compute)']];
  for (const c of V.causes) CAUSE_COL[c.key] = c.color;
  const ROW_H = 17;
  const MAX_ROWS = 3000;
  const state = { re: null, rank: 0, tab: null, graphs: [] };

  // ---- small DOM helpers (text only) ----
  function el(tag, attrs, ...kids) {
    const e = document.createElement(tag);
    if (attrs) for (const k in attrs) {
      if (k === 'class') e.className = attrs[k];
      else if (k === 'text') e.textContent = attrs[k];
      else e.setAttribute(k, attrs[k]);
    }
    for (const c of kids) if (c != null) e.append(c);
    return e;
  }
  function sv(tag, attrs) {
    const e = document.createElementNS(SVGNS, tag);
    if (attrs) for (const k in attrs) e.setAttribute(k, attrs[k]);
    return e;
  }
  // us numbers as the JSON writes them (exact decimals) and ns integers
  function fmtUs(us) {
    if (us == null) return '';
    const a = Math.abs(us);
    if (a >= 1000) return (us / 1000).toFixed(3) + ' ms';
    return (+us).toFixed(3) + ' us';
  }
  function fmtNs(ns, scale) { return fmtUs(ns / Math.pow(10, scale || 3) * 1); }
  function pct(a, b) { return b > 0 ? (100 * a / b).toFixed(2) + '%' : '0.00%'; }
  function table(head, rows, cls) {
    const t = el('table', cls ? { class: cls } : null);
    const tr = el('tr');
    head.forEach((h, i) => tr.append(el('th', { class: i === 0 ? 'l' : '', text: h })));
    t.append(el('thead', null, tr));
    const tb = el('tbody');
    for (const r of rows) {
      const row = el('tr');
      r.forEach((c, i) => row.append(el('td', { class: i === 0 ? 'name' : '', text: c == null ? '' : String(c) })));
      tb.append(row);
    }
    t.append(tb);
    return t;
  }
  function section(title, ...kids) { return el('section', null, el('h2', { text: title }), ...kids); }

  // ---- flame graph model ----
  function Graph(key, g, steps, opts) {
    const n = g.p.length;
    this.key = key; this.g = g; this.steps = steps || 0; this.opts = opts || {};
    this.x = new Float64Array(n); this.d = new Int32Array(n); this.kids = [];
    const next = new Float64Array(n);
    let maxd = 0;
    for (let i = 0; i < n; i++) this.kids.push([]);
    for (let i = 1; i < n; i++) {
      const p = g.p[i];
      this.x[i] = next[p]; next[p] += g.v[i]; next[i] = this.x[i];
      this.d[i] = this.d[p] + 1; if (this.d[i] > maxd) maxd = this.d[i];
      this.kids[p].push(i);
    }
    this.maxd = maxd;
    this.self = new Float64Array(n);
    for (let i = 0; i < n; i++) this.self[i] = g.v[i];
    for (let i = 1; i < n; i++) this.self[g.p[i]] -= g.v[i];
    this.zoom = 0; this.icicle = false; this.match = null; this.hlName = -1; this.svg = null;
    this.rows = this.aggregate();
  }
  Graph.prototype.name = function (i) { return this.g.names[this.g.n[i]]; };
  // per name: total (counted once per stack), self, calls
  Graph.prototype.aggregate = function () {
    const g = this.g, n = g.p.length, nn = g.names.length;
    const tot = new Float64Array(nn), self = new Float64Array(nn), on = new Int32Array(nn);
    const path = [];
    for (let i = 1; i < n; i++) {
      while (path.length && path[path.length - 1] !== g.p[i]) on[g.n[path.pop()]]--;
      if (g.p[i] === 0) while (path.length) on[g.n[path.pop()]]--;
      const k = g.n[i];
      if (!on[k]) tot[k] += g.v[i];
      self[k] += this.self[i];
      on[k]++; path.push(i);
    }
    const rows = [];
    for (let k = 1; k < nn; k++) if (tot[k] > 0 || self[k] > 0)
      rows.push({ k: k, name: g.names[k], total: tot[k], self: self[k], calls: g.calls ? g.calls[k] : -1 });
    rows.sort((a, b) => b.total - a.total || (a.name < b.name ? -1 : 1));
    return rows;
  };
  Graph.prototype.matchShare = function () {
    if (!this.match) return null;
    const g = this.g, n = g.p.length, under = new Uint8Array(n);
    let sum = 0, zs = 0;
    const z = this.zoom, zx0 = this.x[z], zx1 = zx0 + g.v[z];
    for (let i = 1; i < n; i++) {
      under[i] = under[g.p[i]] || this.match[g.p[i]];
      if (this.match[i] && !under[i]) {
        sum += g.v[i];
        const a = Math.max(this.x[i], zx0), b = Math.min(this.x[i] + g.v[i], zx1);
        if (b > a && this.inZoom(i)) zs += b - a;
      }
    }
    return { all: g.v[0] > 0 ? 100 * sum / g.v[0] : 0, zoom: g.v[z] > 0 ? 100 * zs / g.v[z] : 0 };
  };
  Graph.prototype.setSearch = function (re) {
    if (!re) { this.match = null; return; }
    const g = this.g, byName = g.names.map(s => re.test(s) ? 1 : 0);
    this.match = new Uint8Array(g.p.length);
    for (let i = 1; i < g.p.length; i++) this.match[i] = byName[g.n[i]];
  };
  Graph.prototype.fill = function (i) {
    const g = this.g;
    if (g.x) return g.fills[g.x[2 * i]];
    const s = this.name(i);
    if (s.startsWith('[')) return 'rgb(200,200,200)';
    let h = 0;
    for (let c = 0; c < s.length && c < 24; c++) h = (h * 31 + s.charCodeAt(c)) >>> 0;
    const v = h % 1000 / 1000;
    if (this.opts.kernels && this.opts.kernels[s]) return 'rgb(' + (60 + Math.round(60 * v)) + ',' + (170 + Math.round(50 * v)) + ',' + (80 + Math.round(60 * v)) + ')';
    if (/synchroni[sz]e|Memcpy|\.item|\.cpu|tolist|nonzero/i.test(s)) return 'rgb(' + (215 + Math.round(30 * v)) + ',' + (60 + Math.round(40 * v)) + ',60)';
    return 'rgb(' + (205 + Math.round(50 * v)) + ',' + (90 + Math.round(120 * v)) + ',' + Math.round(55 * v) + ')';
  };
  // draws the frames visible at the current zoom into this.svg: the zoomed
  // frame and its ancestors at full width (ancestors faded), its
  // descendants scaled, frames narrower than 0.1 px left out
  Graph.prototype.draw = function () {
    const svg = this.svg, g = this.g, n = g.p.length;
    const W = Math.max(400, svg.parentNode.clientWidth || 1200) - 2;
    const z = this.zoom, zx = this.x[z], zw = g.v[z] || 1;
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
      const w = full ? W : g.v[i] * scale;
      if (w < 0.1) continue;
      const x = full ? 0 : (this.x[i] - zx) * scale;
      const row = this.d[i];
      const y = this.icicle ? row * ROW_H : H - (row + 1) * ROW_H;
      const cls = 'fr' + (full && i !== z ? ' faded' : '') + (i === z && z ? ' zoomed' : '') +
        (this.match && this.match[i] ? ' match' : '') + (g.n[i] === this.hlName ? ' hl' : '');
      const gr = sv('g', { class: cls, 'data-i': i });
      gr.append(sv('rect', { x: x.toFixed(1), y: y, width: Math.max(w - 0.5, 0.1).toFixed(1), height: ROW_H - 1, fill: this.fill(i), rx: 2 }));
      const label = i === 0 ? (this.opts.rootName || 'all') : this.name(i);
      if (w > 28) {
        const chars = Math.floor((w - 6) / 6.6);
        const t = sv('text', { x: (x + 3).toFixed(1), y: y + ROW_H - 5 });
        t.textContent = label.length <= chars ? label : label.slice(0, Math.max(chars - 2, 0)) + '..';
        gr.append(t);
      }
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

  function frameLines(G, i) {
    const g = G.g, sc = g.scale, name = i === 0 ? 'all' : G.name(i);
    const out = [name];
    if (g.x) {
      const b = g.b[i], a = g.v[i];
      out.push('before ' + fmtNs(b, sc) + ', after ' + fmtNs(a, sc) + ', change ' + (a - b >= 0 ? '+' : '') + fmtNs(a - b, sc) +
        (b > 0 ? ' (' + (a - b >= 0 ? '+' : '') + (100 * (a - b) / b).toFixed(2) + '%)' : ''));
      out.push('class: ' + ['same', 'grew', 'shrank', 'noise', 'under the min share'][g.x[2 * i + 1]]);
      return out;
    }
    out.push('total ' + fmtNs(g.v[i], sc) + ' (' + pct(g.v[i], g.v[0]) + '), self ' + fmtNs(G.self[i], sc));
    const c = g.calls ? g.calls[g.n[i]] : -1;
    if (G.steps > 0) out.push('per step ' + fmtNs(g.v[i] / G.steps, sc) + (c >= 0 ? ', calls per step ' + (c / G.steps).toFixed(2) : ''));
    if (c >= 0) out.push('calls ' + c + ' (every frame of this name in the steps)');
    const fam = G.opts.kernels && G.opts.kernels[name];
    if (fam) {
      out.push('family of ' + fam.kernels + ' kernel name' + (fam.kernels === 1 ? '' : 's') + '; top by GPU time:');
      for (const k of fam.top) out.push('  ' + fmtUs(k.us) + '  x' + k.count + '  ' + k.name + (k.cfg ? '  (' + k.cfg + ')' : ''));
    }
    return out;
  }

  // ---- a graph panel: toolbar, svg, details, table ----
  function graphPanel(G, title) {
    const panel = el('div', { class: 'panel', 'data-graph': G.key });
    const reset = el('button', { type: 'button', class: 'reset', text: 'Reset zoom' });
    const ici = el('input', { type: 'checkbox', class: 'icicle' });
    const matched = el('span', { class: 'matched' });
    const info = el('span', { class: 'note' });
    const g = G.g;
    info.textContent = 'total ' + fmtNs(g.v[0], g.scale) + (G.steps ? ' over ' + G.steps + ' step' + (G.steps === 1 ? '' : 's') : '') +
      '; ' + g.frames + ' frames drawn, ' + g.pruned_frames + ' pruned (' + pct(g.pruned, g.total) + ' of the weight, shown as "[N frames < minwidth]")';
    panel.append(el('div', { class: 'toolbar' }, reset, el('label', null, ici, ' icicle'), matched, info));
    const svg = sv('svg', { class: 'flame', 'data-graph': G.key, role: 'img' });
    svg.append(sv('title'));
    svg.firstChild.textContent = title;
    const details = el('div', { class: 'details', text: ' ' });
    const tb = el('div', { class: 'tablebox' });
    panel.append(el('div', { class: 'graphrow' }, el('div', { class: 'graphbox' }, svg, details), tb));
    G.svg = svg; G.matchedEl = matched; G.detailsEl = details; G.panel = panel;
    reset.addEventListener('click', () => { G.setZoom(0); updateMatched(G); });
    ici.addEventListener('change', () => { G.icicle = ici.checked; G.draw(); });
    svg.addEventListener('click', ev => {
      const f = ev.target.closest('g.fr');
      if (!f) return;
      const i = +f.getAttribute('data-i');
      selectRow(G, G.g.n[i]);
      G.setZoom(i === G.zoom ? 0 : i);
      updateMatched(G);
    });
    svg.addEventListener('mousemove', ev => {
      const f = ev.target.closest('g.fr');
      if (!f) { hideTip(); return; }
      const lines = frameLines(G, +f.getAttribute('data-i'));
      details.textContent = lines.slice(0, 2).join(' \u2014 ');
      showTip(ev, lines);
    });
    svg.addEventListener('mouseleave', () => { hideTip(); details.textContent = ' '; });
    buildTable(G, tb);
    return panel;
  }

  function buildTable(G, box) {
    const sc = G.g.scale, diff = !!G.g.x;
    const cols = diff ? [['name', 'Frame'], ['total', 'After'], ['self', 'Self after']]
      : [['name', 'Name'], ['calls', 'Calls/step'], ['total', 'Total'], ['self', 'Self']];
    const t = el('table', { class: 'calls' }), hr = el('tr'), tb = el('tbody');
    let sortKey = 'total', dir = -1;
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
    function fill() {
      const rows = G.rows.slice().sort((a, b) => {
        const x = a[sortKey], y = b[sortKey];
        const c = typeof x === 'string' ? (x < y ? -1 : x > y ? 1 : 0) : x - y;
        return dir * c || (a.name < b.name ? -1 : 1);
      });
      tb.textContent = '';
      for (const r of rows.slice(0, MAX_ROWS)) {
        const tr = el('tr', { class: 'row' + (r.k === G.hlName ? ' selected' : ''), 'data-k': r.k });
        tr.append(el('td', { class: 'name', text: r.name }));
        if (!diff) tr.append(el('td', { text: r.calls >= 0 && G.steps ? (r.calls / G.steps).toFixed(2) : (r.calls >= 0 ? String(r.calls) : '') }));
        tr.append(el('td', { text: fmtNs(r.total, sc) }), el('td', { text: fmtNs(r.self, sc) }));
        tb.append(tr);
      }
      if (rows.length > MAX_ROWS) tb.append(el('tr', null, el('td', { class: 'name note', colspan: 4, text: (rows.length - MAX_ROWS) + ' more names not listed (search finds them)' })));
    }
    tb.addEventListener('click', ev => {
      const tr = ev.target.closest('tr.row');
      if (!tr) return;
      const k = +tr.getAttribute('data-k');
      G.hlName = G.hlName === k ? -1 : k;
      markRows(G);
      G.draw();
    });
    G.fillTable = fill;
    G.tbody = tb;
    fill();
  }
  function markRows(G) {
    const old = G.tbody.querySelector('tr.row.selected');
    if (old) old.classList.remove('selected');
    const tr = G.hlName >= 0 ? G.tbody.querySelector('tr.row[data-k="' + G.hlName + '"]') : null;
    if (tr) tr.classList.add('selected');
  }
  // selects the row of name k (the caller redraws the graph)
  function selectRow(G, k) {
    G.hlName = k;
    markRows(G);
    const tr = G.tbody.querySelector('tr.row[data-k="' + k + '"]');
    if (tr && tr.scrollIntoView) tr.scrollIntoView({ block: 'nearest' });
  }
  function updateMatched(G) {
    const m = G.matchShare();
    if (!m) { G.matchedEl.textContent = ''; return; }
    G.matchedEl.textContent = 'Matched: ' + m.all.toFixed(2) + '%' + (G.zoom ? ' (' + m.zoom.toFixed(2) + '% of zoomed frame)' : '');
  }

  // ---- the search box over every graph ----
  function searchBox() {
    const input = el('input', { type: 'text', id: 'search', placeholder: 'search: regular expression', spellcheck: 'false' });
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
        if (m && G.rank === state.rank) parts.push((W_NAMES[G.key] || G.key) + ' ' + m.all.toFixed(2) + '%');
      }
      all.textContent = re ? 'Matched: ' + parts.join(', ') : '';
    }
    input.addEventListener('input', run);
    state.runSearch = run;
    clear.addEventListener('click', () => { input.value = ''; run(); });
    return el('div', { class: 'toolbar' }, el('label', { for: 'search', text: 'Search ' }), input, clear, all);
  }

  // ---- tabs ----
  function tabs(list) {
    const bar = el('div', { class: 'tabs', role: 'tablist' });
    const box = el('div');
    list.forEach(([key, label, panel], k) => {
      const b = el('button', { type: 'button', role: 'tab', 'data-tab': key, text: label });
      b.addEventListener('click', () => activate(k));
      bar.append(b); box.append(panel);
    });
    function activate(k) {
      bar.querySelectorAll('button').forEach((b, j) => b.classList.toggle('active', j === k));
      list.forEach(([key, , panel, G], j) => {
        panel.classList.toggle('active', j === k);
        if (j === k && G) { state.tab = key; G.draw(); updateMatched(G); }
      });
    }
    return { el: el('div', null, bar, box), activate: activate };
  }

  // ---- per-step bars ----
  function patternDefs(svg) {
    if (document.getElementById('pat-busy')) return;
    const defs = sv('defs');
    const shapes = { busy: null, idle: null, compute: null, overlap: null, exposed: 'M0,0 l8,8' };
    for (const c of V.causes) shapes[c.key] = c.pattern;
    for (const c in shapes) {
      const p = sv('pattern', { id: 'pat-' + c, width: 8, height: 8, patternUnits: 'userSpaceOnUse' });
      p.append(sv('rect', { width: 8, height: 8, fill: CAUSE_COL[c] }));
      if (shapes[c]) p.append(sv('path', { d: shapes[c], stroke: '#fff', 'stroke-width': 1.3, fill: 'none' }));
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
  function stepBars(R) {
    const steps = R.steps || [];
    if (!steps.length) return el('p', { class: 'empty', text: 'no steps' });
    const W = 1100, H = 220, pad = 40, bw = Math.max(2, Math.min(40, (W - pad - 10) / steps.length - 2));
    const max = Math.max(...steps.map(s => s.wall_us), 1e-9);
    const svg = sv('svg', { class: 'bars', width: W, height: H + 30, viewBox: '0 0 ' + W + ' ' + (H + 30), role: 'img' });
    const y = us => H - (H - 10) * us / max;
    const details = el('div', { class: 'details', text: ' ' });
    steps.forEach((s, k) => {
      const gx = pad + k * (bw + 2);
      const grp = sv('g', { class: 'step' + (s.warmup ? ' warmup' : ''), 'data-step': s.index == null ? k : s.index });
      const parts = s.compute_us == null ? [['busy', s.gpu_busy_us]] : COMM_SPLIT.map(([c, f]) => [c, s[f]]);
      if (s.gaps) for (const c of V.causes) parts.push([c.key, s.gaps[c.json]]);
      else parts.push(['idle', s.idle_us]);
      let acc = 0;
      const lines = ['step ' + (s.index == null ? k : s.index) + (s.warmup ? ' (warm-up)' : '') + ': wall ' + fmtUs(s.wall_us)];
      for (const [c, v] of parts) {
        if (!(v > 0)) continue;
        grp.append(sv('rect', { x: gx, y: y(acc + v), width: bw, height: Math.max(y(acc) - y(acc + v), 0.5), fill: 'url(#pat-' + c + ')', class: 'seg-' + c, opacity: s.warmup ? 0.45 : 1 }));
        acc += v;
        lines.push(c + ' ' + fmtUs(v));
      }
      const tt = sv('title'); tt.textContent = lines.join('\n'); grp.append(tt);
      if (s.warmup) { const t = sv('text', { x: gx + bw / 2 - 3, y: H + 12 }); t.textContent = 'W'; grp.append(t); }
      grp.addEventListener('mouseenter', () => { details.textContent = lines.join(', '); });
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
      el('span', { text: 'W = warm-up step (faded); dashed line = steady step (median)' }));
    return el('div', null, legend, svg, details);
  }

  // ---- report sections from the report JSON (gpuflame.report/2) ----
  function verdict(R) {
    const s = R.summary || {};
    return el('div', { class: 'verdict' }, el('div', null, el('b', { text: 'Verdict: ' }), s.verdict || ''),
      el('div', { class: 'next' }, el('b', { text: 'Next: ' }), s.action || ''));
  }
  function metaLine(R, extra) {
    const w = R.warnings || {}, s = R.summary || {};
    const bits = ['file ' + R.file, 'rank ' + (R.rank == null ? '-' : R.rank), 'world size ' + (R.world_size == null ? '-' : R.world_size),
      'device ' + (R.device == null ? '-' : R.device), 'steps ' + (s.steps || 0) + ' (' + (s.warmup_steps || 0) + ' warm-up, ' + (s.steady_steps || 0) + ' steady)'];
    if (extra && extra.ts_gen) bits.push('trace generation: ' + extra.ts_gen);
    const warn = [];
    if (w.unattributed_activities) warn.push(w.unattributed_activities + ' GPU activities without a launch (' + w.launched_before_window + ' launched before the window)');
    if (w.clipped_ranges) warn.push(w.clipped_ranges + ' host ranges clipped');
    if (w.steps_left_out) warn.push(w.steps_left_out + ' steps left out');
    if (w.truncated) warn.push('the trace file was cut off');
    return el('div', null, el('p', { class: 'meta', text: bits.join(' \u00b7 ') }),
      warn.length ? el('p', { class: 'note', text: 'Warnings: ' + warn.join('; ') }) : null);
  }
  function steadyTable(R) {
    const s = R.summary || {};
    const rows = [['wall', fmtUs(s.steady_step_us)], ['GPU busy', fmtUs(s.gpu_busy_us) + ' (' + (100 * (s.gpu_busy_share || 0)).toFixed(1) + '%)'],
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
      for (const x of g[c.keys] || []) keys.push([c.key, x[c.key_field], fmtUs(x.idle_per_step_us), (100 * x.share).toFixed(2) + '%']);
    return el('div', null, t, keys.length ? table(['cause', 'where', 'idle per step', 'share of the cause'], keys.map(r => [r[1], r[0], r[2], r[3]]), 'gapkeys') : null,
      el('p', { class: 'note', text: 'median launch-to-start latency ' + fmtUs(g.latency && g.latency.median_launch_to_start_us) + ' over ' + ((g.latency && g.latency.launches) || 0) + ' launches' }));
  }
  function syncTable(R) {
    const s = R.syncs || [];
    if (!s.length) return el('p', { class: 'empty', text: 'no blocking calls in the steps' });
    return table(['site', 'op', 'api', 'copy', 'per step', 'wait', 'bubble per step', 'fix'],
      s.map(x => [x.site, x.op, x.api, x.copy + (x.pageable ? ' (pageable)' : ''), x.count_per_step, fmtUs(x.wait_us), fmtUs(x.bubble_per_step_us), x.fix]), 'syncs');
  }
  function launchPanel(R) {
    const l = R.launch;
    if (!l) return el('p', { class: 'empty', text: 'not computed' });
    const rows = [['kernels per step', l.kernels_per_step], ['launches per step', l.launches_per_step], ['graph launches', l.graph_launches],
      ['median kernel', fmtUs(l.median_kernel_us)], ['median launch call', fmtUs(l.median_launch_us)],
      ['short kernels', l.short_kernels + ' of ' + l.compared_kernels], ['launch-bound', l.launch_bound ? 'yes' : 'no']];
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
    const t = R.top_calls || [];
    if (!t.length) return el('p', { class: 'empty', text: 'none' });
    return table(['call', 'kind', 'per step', 'count'], t.map(x => [x.name, x.kind, x.per_step, x.count]), 'topcalls');
  }
  function idleTable(R) {
    const t = R.idle_stacks || [];
    if (!t.length) return el('p', { class: 'empty', text: 'none' });
    return table(['host stack while the GPU idled', 'idle per step', 'idle'], t.map(x => [x.stack, fmtUs(x.idle_per_step_us), fmtUs(x.idle_us)]), 'idlestacks');
  }

  function ranksTable(reps, strag) {
    const head = ['figure'].concat(reps.map((r, k) => 'rank ' + (r.rank == null ? k : r.rank) + (strag && strag.index === k ? ' (straggler)' : '')));
    const f = [['file', r => r.file], ['steady step', r => fmtUs(r.summary.steady_step_us)], ['GPU busy', r => fmtUs(r.summary.gpu_busy_us)],
      ['idle', r => fmtUs(r.summary.idle_us)], ['sync wait', r => fmtUs(r.summary.sync_wait_us)], ['syncs', r => r.summary.syncs],
      ['launches', r => r.summary.launches], ['verdict', r => r.summary.verdict_cause]];
    if (strag) f.push(['collective wait', r => fmtUs(strag.per_rank[reps.indexOf(r)].wait_us)], ['arrived last', r => strag.per_rank[reps.indexOf(r)].arrived_last]);
    const t = table(head, f.map(([n, fn]) => [n].concat(reps.map(fn))), 'ranks');
    if (strag) {
      t.querySelectorAll('tr').forEach(tr => { const c = tr.children[strag.index + 1]; if (c) c.classList.add('straggler'); });
    }
    return el('div', null, t, el('p', { class: 'note', text: strag ? 'straggler: ' + strag.file + (strag.clear ? '' : ' (not clear-cut)') + ', over ' + strag.matched + ' matched collectives' : 'no straggler: no matched collectives' }));
  }

  // ---- pages ----
  function rankView(R, P, k) {
    const box = el('div', { class: 'rank', 'data-rank': k });
    const kernels = {};
    for (const f of P.families || []) kernels[f.name] = f;
    const list = [];
    for (const key of WEIGHTS) {
      const g = P.graphs[key];
      if (!g) { list.push([key, W_NAMES[key], el('div', { class: 'panel', 'data-graph': key }, el('p', { class: 'empty', text: P.why[key] || 'no weight' })), null]); continue; }
      const G = new Graph(key, g, P.steps, { kernels: KERNEL_LEAVES.has(key) ? kernels : null });
      G.rank = k;
      state.graphs.push(G);
      if (state.re) G.setSearch(state.re);
      list.push([key, W_NAMES[key], graphPanel(G, W_NAMES[key] + ' flame graph'), G]);
    }
    const tb = tabs(list);
    box.append(section('Flame graphs', tb.el),
      section('Per step', stepBars(R)),
      el('div', { class: 'grid2' }, section('Steady step', steadyTable(R)), section('GPU idle by cause', gapTable(R))),
      section('Hidden syncs', syncTable(R)),
      el('div', { class: 'grid2' }, section('Launches', launchPanel(R)), section('Communication', commPanel(R))),
      linesPanel(R) ? section('Targets', linesPanel(R)) : null,
      el('div', { class: 'grid2' }, section('Top calls per step', topTable(R)), section('Host stacks while the GPU idled', idleTable(R))),
      section('Trace', metaLine(R, P)));
    const first = list.findIndex(x => x[3]);
    box.activate = () => tb.activate(first < 0 ? 0 : first);
    return box;
  }

  function reportPage() {
    const rep = D.report;
    const reps = rep.ranks || [rep];
    app.append(el('h1', { text: D.title }));
    if (reps.length > 1) {
      app.append(ranksTable(reps, rep.straggler), verdict(reps[rep.straggler ? rep.straggler.index : 0]));
    } else {
      app.append(verdict(reps[0]));
    }
    app.append(searchBox());
    const views = reps.map((R, k) => rankView(R, D.ranks[k], k));
    if (reps.length > 1) {
      const sel = el('select', { id: 'rank' });
      reps.forEach((R, k) => sel.append(el('option', { value: k, text: 'rank ' + (R.rank == null ? k : R.rank) + ': ' + R.file })));
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
    app.append(el('h1', { text: D.title }));
    const n = D.noise;
    app.append(el('p', { class: 'meta', text: 'before ' + D.before + ' \u2192 after ' + D.after + ' \u00b7 ' + D.scale_note }),
      el('p', { class: 'note', text: 'widths: after; fill: change of the frame\'s total, red = grew, blue = shrank, grey = noise or under ' + (100 * n.min_share).toFixed(2) + '% in both' +
        (n.sampled ? '; noise test: two-proportion z-test at alpha ' + n.alpha : n.steps_test ? '; grey = within step-to-step noise' : '; exact durations: classed by the sign of the change') }),
      n.summary ? el('p', { class: 'note noise', text: n.summary }) : null,
      el('p', { class: 'meta', text: n.grew + ' frames grew, ' + n.shrank + ' shrank, ' + n.noise + ' noise, ' + n.small + ' under the min share; ' + n.only_before + ' only before, ' + n.only_after + ' only after' }));
    app.append(searchBox());
    const G = new Graph('diff', D.graph, 0, { rootName: 'all' });
    G.rank = 0;
    state.graphs.push(G);
    const panel = graphPanel(G, 'Differential flame graph');
    panel.classList.add('active');
    app.append(panel);
    const rows = D.changes.map(r => [r.frame, r.self ? 'self' : 'total', fmtNs(r.before, D.graph.scale), fmtNs(r.after, D.graph.scale),
      (r.after - r.before >= 0 ? '+' : '') + fmtNs(r.after - r.before, D.graph.scale), r.before > 0 ? (100 * (r.after - r.before) / r.before).toFixed(2) + '%' : 'new',
      ['same', 'grew', 'shrank', 'noise', 'small'][r.cls], r.p == null ? '' : String(r.p)]);
    app.append(section('Biggest changes' + (D.per_step ? ' (per step)' : ''), table(['frame', 'weight', 'before', 'after', 'change', 'change %', 'class', 'p'], rows, 'changes')));
    G.draw();
  }

  if (D.kind === 'diff') diffPage();
  else if (D.kind === 'ranks') window.gfRanksPage({ D, app, el, sv, table, section, fmtUs, showTip, hideTip, rankView, searchBox, state }); // page_ranks.js
  else reportPage();
  window.addEventListener('resize', () => { for (const G of state.graphs) if (G.panel && G.panel.classList.contains('active') && G.panel.isConnected) G.draw(); });
  document.documentElement.setAttribute('data-ready', '1');
})();
