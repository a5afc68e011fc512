// page_ranks.js: the rank view of gpuflame's page for many ranks (report of
// several traces, report --from-summaries; the data: "gpuflame.ranks/1" as
// D.report, the ranks shown in full as D.ranks). It draws the verdict, the
// stragglers by process group, the distribution of each per-rank figure with
// its outlying ranks, a heat map of ranks x steps on one canvas (a row per
// rank: 1,024 ranks stay one screen tall; the rank, step and value under the
// pointer are shown), the step skew, every rank's figures, and the ranks
// shown in full with page_assets.js's single-rank view (flame graphs,
// tables). Names are untrusted: they only ever become text, and no plain
// object is keyed by one. Written before page_assets.js, which calls
// window.gfRanksPage for a page of kind "ranks".
'use strict';
window.gfRanksPage = function (A) {
  const { D, app, el, sv, table, section, fmtUs, showTip, hideTip } = A;
  const R = D.report;
  const P = R.per_rank;
  const FIG_LABEL = new Map([['step_wall_us', 'step wall'], ['gpu_busy_us', 'GPU busy'], ['gpu_busy_share', 'GPU busy %'],
    ['idle_us', 'GPU idle'], ['sync_wait_us', 'sync wait'], ['syncs', 'syncs'], ['launches', 'launches'], ['kernels', 'kernels'],
    ['comm_us', 'NCCL'], ['comm_overlap_us', 'NCCL overlap'], ['comm_exposed_us', 'NCCL exposed'],
    ['collective_wait_us', 'collective wait (all steps)'], ['arrived_last', 'arrived last (all steps)'],
    ['idle_edge_us', 'idle: edge'], ['idle_sync_us', 'idle: sync'], ['idle_host_us', 'idle: host'],
    ['idle_untraced_us', 'idle: untraced'], ['idle_queued_us', 'idle: queued'], ['idle_launch_us', 'idle: launch']]);
  const unitOf = new Map(R.figures.map(f => [f.figure, f.unit]));
  function name(k) { const p = P[k]; return p.rank == null ? '#' + (k + 1) + ' (' + p.file + ')' : 'rank ' + p.rank; }
  function fmt(unit, v) {
    if (v == null) return '-';
    if (unit === 'us') return fmtUs(v);
    if (unit === 'share') return (100 * v).toFixed(2) + '%';
    return String(v);
  }

  // ---- verdict ----
  app.append(el('h1', { text: D.title }));
  app.append(el('div', { class: 'verdict', id: 'ranks-verdict' }, el('div', null, el('b', { text: 'Verdict: ' }), R.verdict),
    el('div', { class: 'next' }, el('b', { text: 'Next: ' }), R.action)));
  app.append(el('p', { class: 'meta', text: R.ranks + ' ranks' + (R.world_size != null ? ' of world size ' + R.world_size : '') +
    (R.partial ? ' (not every rank of the world)' : '') + (R.options ? ' \u00b7 summarised with ' + R.options : '') + ' \u00b7 never merged' }));

  // ---- stragglers by process group ----
  const groups = R.groups.map((g, i) => [g, i]).sort((a, b) => b[0].waited_us - a[0].waited_us || a[1] - b[1]);
  const gt = table(['group', 'description', 'ranks', 'matched', 'unmatched', 'mismatched', 'straggler', 'arrived last', 'others waited', 'max wait'],
    groups.slice(0, 500).map(([g]) => [R.fallback_group ? '(all ranks, by kernel name)' : g.name, g.desc == null ? '-' : g.desc, g.members, g.matched,
      g.unmatched, g.mismatched, g.straggler == null ? '-' : name(g.straggler) + (g.clear ? '' : ' (not clear)'),
      g.straggler == null ? '-' : g.arrived_last + ' of ' + g.matched, g.straggler == null ? '-' : fmtUs(g.waited_us), fmtUs(g.max_wait_us)]), 'groups');
  gt.querySelectorAll('tbody tr').forEach((tr, k) => { if (groups[k][0].straggler != null && groups[k][0].clear) tr.children[6].classList.add('straggler'); });
  app.append(section(R.fallback_group ? 'Straggler (no process group in the traces: collectives matched by kernel name and order)'
    : 'Stragglers by process group (minimum-wait rule, matched by group and sequence number)', gt,
  groups.length > 500 ? el('p', { class: 'note', text: (groups.length - 500) + ' more groups in the JSON' }) : null));

  // ---- distributions ----
  const figs = R.figures.filter(f => f.ranks > 0);
  const figSel = el('select', { id: 'fig' });
  figs.forEach(f => figSel.append(el('option', { value: f.figure, text: FIG_LABEL.get(f.figure) || f.figure })));
  const histBox = el('div', { class: 'histbox' });
  function drawHist() {
    const f = figs.find(x => x.figure === figSel.value);
    histBox.textContent = '';
    if (!f) return;
    const vals = [];
    P.forEach((p, k) => { const v = p[f.figure]; if (v != null) vals.push([+v, k]); });
    const lo = +f.min, hi = +f.max, nb = lo === hi ? 1 : 40, W = 760, H = 140;
    const bins = Array.from({ length: nb }, () => []);
    for (const [v, k] of vals) bins[Math.min(nb - 1, hi > lo ? Math.floor((v - lo) / (hi - lo) * nb) : 0)].push(k);
    const top = Math.max(1, ...bins.map(b => b.length));
    const svg = sv('svg', { class: 'hist', width: W, height: H + 34, role: 'img' });
    const bw = W / nb;
    bins.forEach((b, i) => {
      if (!b.length) return;
      const h = Math.max(2, Math.round(b.length / top * H));
      const out = b.some(k => f.outliers.includes(k));
      const r = sv('rect', { x: (i * bw).toFixed(1), y: H - h, width: Math.max(1, bw - 1).toFixed(1), height: h, class: out ? 'bin out' : 'bin' });
      const a = lo + (hi - lo) * i / nb, z = lo + (hi - lo) * (i + 1) / nb;
      r.addEventListener('mousemove', ev => showTip(ev, [b.length + ' rank' + (b.length === 1 ? '' : 's') + ' in ' + fmt(f.unit, a) + ' .. ' + fmt(f.unit, z)]
        .concat(b.slice(0, 8).map(k => name(k) + ': ' + fmt(f.unit, P[k][f.figure]))).concat(b.length > 8 ? ['and ' + (b.length - 8) + ' more'] : [])));
      r.addEventListener('mouseleave', hideTip);
      svg.append(r);
    });
    for (const [q, lab] of [[f.median, 'median'], [f.p90, 'p90']]) {
      const x = hi > lo ? (q - lo) / (hi - lo) * W : W / 2;
      svg.append(sv('line', { x1: x, x2: x, y1: 0, y2: H, class: 'mark' }));
      const t = sv('text', { x: Math.min(W - 40, x + 3), y: 12, class: 'marklab' }); t.textContent = lab; svg.append(t);
    }
    const l0 = sv('text', { x: 0, y: H + 14 }); l0.textContent = fmt(f.unit, f.min); svg.append(l0);
    const l1 = sv('text', { x: W, y: H + 14, 'text-anchor': 'end' }); l1.textContent = fmt(f.unit, f.max); svg.append(l1);
    histBox.append(svg, table(['ranks', 'min', 'median', 'p90', 'max', 'outlying ranks'],
      [[f.ranks, fmt(f.unit, f.min), fmt(f.unit, f.median), fmt(f.unit, f.p90), fmt(f.unit, f.max),
        f.outliers.length ? f.outliers.slice(0, 20).map(k => name(k) + ' (' + fmt(f.unit, P[k][f.figure]) + ')').join(', ') +
          (f.outliers.length > 20 ? ', ' + (f.outliers.length - 20) + ' more' : '') : '-']], 'dist'));
  }
  figSel.addEventListener('change', drawHist);
  app.append(section('Per-rank figures (the steady step of each rank)', el('div', { class: 'toolbar' }, el('label', { for: 'fig', text: 'Figure ' }), figSel), histBox));
  drawHist();

  // ---- heat map of ranks x steps ----
  const G = R.grid, S = R.steps, N = P.length;
  const heatSel = el('select', { id: 'heatfig' });
  [['wall_us', 'step wall'], ['busy_us', 'GPU busy'], ['idle_us', 'GPU idle'], ['exposed_us', 'NCCL exposed']].forEach(([k, t]) => heatSel.append(el('option', { value: k, text: t })));
  const sortBox = el('input', { type: 'checkbox', id: 'heatsort' });
  const canvas = el('canvas', { id: 'heat', class: 'heat' });
  const legend = el('div', { class: 'meta', id: 'heatlegend' });
  const rowH = N <= 40 ? 14 : N <= 150 ? 5 : N <= 500 ? 2 : 1;
  const cellW = Math.max(3, Math.min(40, Math.floor(900 / Math.max(1, S.length))));
  const GUTTER = 14;
  const marked = new Set();
  R.groups.forEach(g => { if (g.straggler != null) marked.add(g.straggler); });
  let order = P.map((p, k) => k);
  function colour(t) { // light to dark red
    const r = Math.round(255 - 57 * t), g = Math.round(243 - 203 * t), b = Math.round(224 - 184 * t);
    return 'rgb(' + r + ',' + g + ',' + b + ')';
  }
  function drawHeat() {
    const M = G[heatSel.value];
    let lo = Infinity, hi = -Infinity;
    for (const row of M) for (const v of row) if (v != null) { lo = Math.min(lo, +v); hi = Math.max(hi, +v); }
    order = P.map((p, k) => k);
    if (sortBox.checked) {
      const mean = M.map(row => { const x = row.filter(v => v != null).map(Number); return x.length ? x.reduce((a, b) => a + b, 0) / x.length : -Infinity; });
      order.sort((a, b) => mean[b] - mean[a] || a - b);
    }
    canvas.width = GUTTER + cellW * S.length;
    canvas.height = rowH * N;
    canvas.setAttribute('data-rows', N);
    canvas.setAttribute('data-steps', S.length);
    const cx = canvas.getContext('2d');
    cx.fillStyle = '#fff';
    cx.fillRect(0, 0, canvas.width, canvas.height);
    order.forEach((k, y) => {
      if (marked.has(k)) { cx.fillStyle = '#c62828'; cx.fillRect(0, y * rowH, GUTTER - 3, rowH); }
      M[k].forEach((v, s) => {
        cx.fillStyle = v == null ? '#d9d9d9' : colour(hi > lo ? (v - lo) / (hi - lo) : 0.5);
        cx.fillRect(GUTTER + s * cellW, y * rowH, cellW - (cellW > 4 ? 1 : 0), rowH);
      });
    });
    legend.textContent = (lo === Infinity ? 'no values' : 'light ' + fmtUs(lo) + ' \u2192 dark ' + fmtUs(hi)) +
      ' \u00b7 grey: no such step \u00b7 red mark: a group\'s straggler \u00b7 ' + N + ' ranks x ' + S.length + ' steps';
  }
  canvas.addEventListener('mousemove', ev => {
    const b = canvas.getBoundingClientRect();
    const y = Math.floor((ev.clientY - b.top) / rowH), s = Math.floor((ev.clientX - b.left - GUTTER) / cellW);
    if (y < 0 || y >= N || s < 0 || s >= S.length) { hideTip(); return; }
    const k = order[y], v = G[heatSel.value][k][s];
    showTip(ev, [name(k), P[k].file, 'step ' + (S[s].index == null ? '(trace)' : S[s].index) + ': ' + heatSel.options[heatSel.selectedIndex].text + ' ' + (v == null ? '-' : fmtUs(v))]);
  });
  canvas.addEventListener('mouseleave', hideTip);
  heatSel.addEventListener('change', drawHeat);
  sortBox.addEventListener('change', drawHeat);
  app.append(section('Ranks x steps', el('div', { class: 'toolbar' }, el('label', { for: 'heatfig', text: 'Colour by ' }), heatSel,
    el('label', { for: 'heatsort', text: 'sort rows by their mean' }), sortBox), el('div', { class: 'heatbox' }, canvas), legend));
  drawHeat();

  // ---- steps, verdicts, every rank ----
  app.append(section('Step wall across ranks (skew)', el('div', { class: 'scroll' }, table(['step', 'ranks', 'min', 'median', 'max', 'spread', 'slowest'],
    S.map(s => [s.index == null ? '(trace)' : s.index, s.ranks, fmtUs(s.min_us), fmtUs(s.median_us), fmtUs(s.max_us), fmtUs(s.spread_us), name(s.slowest)]), 'skew'))));
  app.append(section('Verdicts across ranks', table(['verdict', 'ranks', 'e.g.'], R.verdicts.map(v => [v.cause == null ? 'no verdict' : v.cause, v.ranks, name(v.example)]), 'verdicts')));
  const cmp = R.straggler_vs_median;
  if (cmp) app.append(section('The straggler, ' + name(cmp.straggler) + ', against the median rank of its group, ' + name(cmp.median),
    table(['kernel', name(cmp.straggler) + ' per step', name(cmp.median) + ' per step', 'difference'],
      cmp.kernels.map(x => [x.name, fmtUs(x.straggler_per_step_us), fmtUs(x.median_per_step_us), fmtUs(x.straggler_per_step_us - x.median_per_step_us)]), 'kdiff')));
  const cols = ['step_wall_us', 'gpu_busy_share', 'idle_us', 'comm_exposed_us', 'collective_wait_us', 'arrived_last'];
  app.append(section('Every rank (steady step)', el('div', { class: 'scroll' }, table(['rank', 'file'].concat(cols.map(c => FIG_LABEL.get(c))).concat(['verdict']),
    P.map((p, k) => [name(k), p.file].concat(cols.map(c => fmt(unitOf.get(c), p[c]))).concat([p.verdict_cause == null ? '-' : p.verdict_cause])), 'everyrank'))));

  // ---- the ranks shown in full ----
  if (!D.ranks.length) return;
  const pick = el('select', { id: 'rankpick' });
  D.ranks.forEach((x, i) => pick.append(el('option', { value: i, text: name(x.index) + ': ' + x.why })));
  const holder = el('div');
  const views = D.ranks.map((x, i) => A.rankView(x.report, x.page || { graphs: {}, why: { gpu: 'the summary holds no flame graphs (summarise --no-flames)', cpu: 'idem', wall: 'idem', idle: 'idem' }, families: [], steps: 0 }, i));
  function show(i) {
    A.state.rank = i;
    holder.textContent = '';
    holder.append(views[i]);
    views[i].activate();
    if (A.state.runSearch && A.state.re) A.state.runSearch();
  }
  pick.addEventListener('change', () => show(+pick.value));
  app.append(section('Ranks in full', el('div', { class: 'toolbar' }, el('label', { for: 'rankpick', text: 'Rank ' }), pick), A.searchBox(), holder));
  show(0);
};
