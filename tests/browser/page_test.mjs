// page_test.mjs — the HTML page of `gpuflame report --format html` and
// `gpuflame diff --format html` in headless Chromium (playwright-core driving
// Debian's /usr/bin/chromium), as a user sees it at 1400x900. Prints
// PASS/FAIL lines, and the first-paint, zoom and timeline-zoom times
// (printed, not asserted).
//
// usage: node page_test.mjs DIR
// DIR holds what run.sh made:
//   report.html  the page of a real corpus trace (or the shipped decode trace)
//   wall.folded  `gpuflame fold -w wall` of the same trace: the truth of the
//                matched share (computed here from the stack lines, not from
//                the page)
//   decode.html  the shipped decode trace's page (nothing pruned), with
//                decode-wall.folded and decode.txt (the text report)
//   ranks.html   a page of two ranks (the corpus: no process group), pg2.html
//                8 ranks of two process groups (stragglers ranks 1 and 5),
//                k1024.html 1,024 ranks (stragglers 170 and 682),
//                diff.html a diff page of two traces,
//   hostile.html the page of a trace with hostile names, hdiff.html a diff
//                page of folded files with hostile names and invalid UTF-8,
//   proto0.html, proto1.html, pdiff.html: every Object.prototype name
//                (toString, __proto__, ...) in every name slot,
//   stress-*.html: pages that used to be unbounded (100k kernel families,
//                two 10 MB names, a 40,000-deep stack, a 5 KB name)
// and writes vocab.html itself: decode.html with a vocabulary the script has
// never seen (two new gap causes, one with keys, and a new class of host
// work, as issue 24 adds them), which must show wherever causes show.
// Every page gets the layout checks (layout()): no text null, undefined or
// NaN; nothing wider than the window; no table cell breaking a word or
// narrower than it; text on frames and timeline blocks at 4.5:1 contrast or
// more, computed from the colours. Screenshots of each view go to DIR/shots/;
// GF_SCREENSHOT=FILE also writes the view of the shipped decode trace's page
// (the demo's demo/report.html: wall graph, "item" searched, aten::item's
// callers and callees) there, and its step timeline with a gap hovered to
// FILE-timeline.png: docs/report.png and docs/report-timeline.png are made so.
import { chromium } from 'playwright-core';
import { mkdtempSync, rmSync, readFileSync, writeFileSync, mkdirSync, copyFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const dir = resolve(process.argv[2]);
const shots = join(dir, 'shots');
mkdirSync(shots, { recursive: true });
let failed = 0;
const ok = (name, cond, why) => {
  if (cond) console.log(`PASS ${name}`);
  else { failed++; console.log(`FAIL ${name}: ${why ?? ''}`); }
};
const has = f => { try { statSync(join(dir, f)); return true; } catch { return false; } };

// the data block as the page embeds it (read from the file, parsed here)
function pageData(file) {
  const s = readFileSync(join(dir, file), 'utf8');
  const m = s.match(/<script type="application\/json" id="gf-data">([\s\S]*?)<\/script>/);
  return JSON.parse(m[1]);
}

// folded stacks as [frames, ns] (BigInt ns from the decimal us text)
function folded(file) {
  const out = [];
  for (const line of readFileSync(join(dir, file), 'utf8').split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const sp = line.lastIndexOf(' ');
    const [iu, fr = ''] = line.slice(sp + 1).split('.');
    out.push([line.slice(0, sp).split(';'), BigInt(iu) * 1000n + BigInt((fr + '000').slice(0, 3))]);
  }
  return out;
}
// share of the folded weight whose stack has a frame matching re (each stack once),
// in percent with 2 decimals: flamegraph.pl's "Matched:" over the stack lines
function foldedShare(file, re) {
  let all = 0n, hit = 0n;
  for (const [fr, ns] of folded(file)) { all += ns; if (fr.some(f => re.test(f))) hit += ns; }
  return Number((hit * 20000n / all + 1n) / 2n) / 100; // rounded half up
}
// the page's duration format, for comparing what it shows with the folded truth
const fmtNs = ns => { const us = Number(ns) / 1000; return Math.abs(us) >= 1000 ? (us / 1000).toFixed(3) + ' ms' : us.toFixed(3) + ' us'; };

const profile = mkdtempSync(join(tmpdir(), 'gf-chromium-'));
const browser = await chromium.launchPersistentContext(profile, {
  executablePath: '/usr/bin/chromium',
  headless: true,
  viewport: { width: 1400, height: 900 },
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
         '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});

// opens a page, recording console errors, page errors, dialogs and every request
async function open(file) {
  const page = await browser.newPage();
  const rec = { errors: [], requests: [], dialogs: [] };
  page.on('console', m => { if (m.type() === 'error') rec.errors.push(m.text()); });
  page.on('pageerror', e => rec.errors.push(String(e)));
  page.on('dialog', d => { rec.dialogs.push(d.message()); d.dismiss().catch(() => {}); });
  const url = pathToFileURL(join(dir, file)).href;
  page.on('request', r => { if (r.url() !== url) rec.requests.push(r.url()); });
  const t0 = Date.now();
  await page.goto(url);
  await page.waitForSelector('html[data-ready]', { timeout: 60000 });
  rec.loadMs = Date.now() - t0;
  return { page, rec };
}

const frames = (page, graph) => page.evaluate(g => [...document.querySelectorAll(`svg.flame[data-graph="${g}"] g.fr`)].map(e => ({
  i: +e.getAttribute('data-i'), cls: e.getAttribute('class'),
  x: +e.querySelector('rect').getAttribute('x'), w: +e.querySelector('rect').getAttribute('width'),
})), graph);

// The layout checks of issue 27, on what is on the page now, and a screenshot.
async function layout(page, label) {
  const r = await page.evaluate(() => {
    const out = { text: [], wide: 0, words: [], contrast: [], cells: 0, labels: 0 };
    // 1. no text null / undefined / NaN (the data block and the script are not text)
    const w = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let n; (n = w.nextNode());) {
      if (n.parentElement && n.parentElement.closest('script,style')) continue;
      if (/\b(null|undefined|NaN)\b/.test(n.nodeValue)) out.text.push(n.nodeValue.slice(0, 80));
    }
    // 2. nothing wider than the window
    const de = document.documentElement;
    if (de.scrollWidth > de.clientWidth) out.wide = de.scrollWidth;
    // 3. a table cell never breaks a word nor is narrower than one: every
    //    run of non-space text of a text node lies on one line, inside its cell
    const range = document.createRange();
    for (const t of document.querySelectorAll('table')) {
      const rows = [...t.rows].slice(0, 150);
      for (const row of rows) for (const cell of row.cells) {
        const cr = cell.getBoundingClientRect();
        if (!cr.width) continue; // not displayed
        out.cells++;
        const tw = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
        for (let n; (n = tw.nextNode());) {
          for (const m of n.nodeValue.matchAll(/\S+/g)) {
            range.setStart(n, m.index); range.setEnd(n, m.index + m[0].length);
            const rs = [...range.getClientRects()].filter(x => x.width > 0);
            if (!rs.length) continue;
            const lines = new Set(rs.map(x => Math.round(x.top)));
            const left = Math.min(...rs.map(x => x.left)), right = Math.max(...rs.map(x => x.right));
            if (lines.size > 1 || left < cr.left - 1 || right > cr.right + 1)
              out.words.push(`${t.className}: '${m[0].slice(0, 40)}' ${lines.size} lines, cell ${cr.width.toFixed(0)} px`);
          }
        }
      }
    }
    // 4. text on a frame or block: the contrast of its fill and its rect's fill
    const rgb = s => { const m = /rgba?\((\d+), (\d+), (\d+)/.exec(s); return m ? [+m[1], +m[2], +m[3]] : null; };
    const lum = c => { const f = x => { x /= 255; return x <= 0.03928 ? x / 12.92 : Math.pow((x + 0.055) / 1.055, 2.4); };
      return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]); };
    const ratio = (a, b) => { const x = lum(a), y = lum(b); return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05); };
    for (const g of document.querySelectorAll('svg g')) {
      const rect = g.querySelector(':scope > rect'), text = g.querySelector(':scope > text');
      if (!rect || !text) continue;
      const a = rect.getBBox(), b = text.getBBox();
      if (b.x >= a.x + a.width || b.x + b.width <= a.x || b.y >= a.y + a.height || b.y + b.height <= a.y) continue; // text beside its rect
      out.labels++;
      const rs = getComputedStyle(rect), ts = getComputedStyle(text);
      let f = rgb(rs.fill);
      const bg = rgb(getComputedStyle(g.ownerSVGElement).backgroundColor) || [255, 255, 255];
      const op = +rs.opacity * +getComputedStyle(g).opacity;
      if (f && op < 1) f = f.map((x, k) => op * x + (1 - op) * bg[k]);
      const t = rgb(ts.fill);
      if (!f || !t) { out.contrast.push(`unreadable colours ${rs.fill} / ${ts.fill}`); continue; }
      const c = ratio(f, t);
      if (c < 4.5) out.contrast.push(`${text.textContent.slice(0, 30)}: ${c.toFixed(2)} (${rs.fill} / ${ts.fill})`);
    }
    return out;
  });
  ok(`layout-text ${label}`, r.text.length === 0, r.text.slice(0, 5).join(' | '));
  ok(`layout-width ${label}`, !r.wide, `page ${r.wide} px wide in a 1400 px window`);
  ok(`layout-words ${label}`, r.words.length === 0 && r.cells > 0 || r.cells === 0 && label.includes('no-table'), r.words.slice(0, 4).join(' | ') + ` (${r.cells} cells)`);
  ok(`layout-contrast ${label}`, r.contrast.length === 0, `${r.contrast.length} of ${r.labels}: ` + r.contrast.slice(0, 4).join(' | '));
  await page.screenshot({ path: join(shots, label.replace(/[^A-Za-z0-9._-]/g, '_') + '.png') });
}

// Hovers the centre of an element's rect and returns the tooltip's text.
async function hoverTip(page, sel) {
  await page.locator(sel).first().hover({ force: true });
  return (await page.locator('#tip').textContent()) || '';
}

// The step timeline: drawn, a gap hovered shows its explanation, zoom and pan.
async function timeline(page, label, D, P, text) {
  const T = P.timeline[0];
  const n = await page.locator('svg.timeline g.seg').count();
  ok(`timeline-drawn ${label}`, n > 0 && n <= P.timeline[0].lanes.reduce((a, L) => a + L.s.length, 0), `${n} blocks`);
  const head = await page.locator('.tlhead').textContent();
  ok(`timeline-head ${label}`, head.includes(T.step == null ? 'whole trace' : `Step ${T.step}`) && (!T.median || T.step == null || head.includes('median steady step')), head);
  // a gap: its tooltip has the explanation the report's words give
  const L = T.lanes.find(x => x.kind === 'idle');
  if (L) {
    // the causes are the page's vocabulary (its JSON); hover the most telling one drawn
    const causes = D.vocab.causes.map(c => c.key);
    const want = ['sync', 'host', 'queued', 'launch', 'untraced', ...causes].find(c => L.c.some(x => causes[x & 255] === c));
    const keys = { sync: 'sync_sites', host: 'host_stacks', queued: 'queued_waits' }[want];
    const R = D.report.ranks ? D.report.ranks[0] : D.report;
    const table = keys ? R.gaps[keys].map(k => k.stack ?? k.wait) : [];
    // the first block of that cause whose words name a row of the report's key table (the table
    // lists the largest keys only), else the first of that cause
    const of = L.c.map((x, j) => causes[x & 255] === want && L.k[j] === 1 ? j : -1).filter(j => j >= 0);
    const named = of.find(j => table.some(k => T.texts[L.x[j]].includes(k)));
    const i = named ?? L.c.findIndex(x => causes[x & 255] === want);
    const li = T.lanes.indexOf(L);
    const tip = await hoverTip(page, `svg.timeline g.seg.idle[data-l="${li}"][data-s="${i}"] rect`);
    const words = T.texts[L.x[i]];
    ok(`timeline-gap-hover ${label}`, tip.includes(words) && (tip.startsWith('GPU idle') || tip.includes('merged')), tip.slice(0, 300));
    // the cause's words are the text report's gap table line, and a keyed cause names the report's key
    const causeLine = words.split('. ')[0];
    ok(`timeline-gap-words ${label}`, !text || text.includes(causeLine), causeLine);
    if (keys && table.length) ok(`timeline-gap-key ${label}`, table.some(k => words.includes(k)), words);
  }
  // zoom in, pan, reset: the shown range follows
  const range = () => page.locator('.tlrange').textContent();
  const r0 = await range();
  const ms = await page.evaluate(() => { const b = document.querySelector('button.tlin'); const t = performance.now(); b.click(); return performance.now() - t; });
  const r1 = await range();
  console.log(`INFO timeline zoom: ${ms.toFixed(1)} ms (${label}, ${n} blocks)`);
  const box = await page.locator('svg.timeline').boundingBox();
  await page.mouse.move(box.x + box.width * 0.6, box.y + box.height / 2);
  await page.mouse.down(); await page.mouse.move(box.x + box.width * 0.3, box.y + box.height / 2, { steps: 4 }); await page.mouse.up();
  const r2 = await range();
  await page.mouse.move(box.x + box.width * 0.5, box.y + box.height / 2);
  await page.keyboard.down('Control');
  await page.mouse.wheel(0, -300);
  await page.keyboard.up('Control');
  const r3 = await range();
  await page.locator('button.tlreset').click();
  const r4 = await range();
  ok(`timeline-zoom ${label}`, r1 !== r0 && r2 !== r1 && r3 !== r2 && r4 === r0, [r0, r1, r2, r3, r4].join(' | '));
}

// Callers and callees of a name on a graph against the folded stacks: the
// name's total, its direct callers and callees with their weights, as the
// tooltips of the two small graphs show them.
async function sandwichCheck(page, label, foldedFile, name, exact) {
  await page.waitForSelector('.panel.active .sandwich:not([data-pending]) svg.mini.callees', { timeout: 10000 });
  const st = folded(foldedFile);
  let total = 0n;
  const callers = new Map(), callees = new Map();
  for (const [fr, ns] of st) {
    const k = fr.indexOf(name);
    if (k < 0) continue;
    total += ns;
    const c = k > 0 ? fr[k - 1] : null;
    if (c) callers.set(c, (callers.get(c) || 0n) + ns);
    if (k + 1 < fr.length) callees.set(fr[k + 1], (callees.get(fr[k + 1]) || 0n) + ns);
  }
  const head = await page.locator('.panel.active .sandwich h3').textContent();
  ok(`sandwich-head ${label}`, head.includes(name), head);
  const note = await page.locator('.panel.active .sandwich p.note').last().textContent();
  const drawn = await page.evaluate(() => ['callers', 'callees'].map(c => document.querySelectorAll(`.panel.active svg.mini.${c} g.mf`).length));
  ok(`sandwich-drawn ${label}`, drawn[0] > 1 || drawn[1] > 1, `${drawn}`);
  if (!exact) return; // a pruned graph: pruned callees are aggregates there
  ok(`sandwich-total ${label}`, note.includes(`total ${fmtNs(total)}`), `${note} vs ${fmtNs(total)}`);
  for (const [cls, want, y] of [['callers', callers, 'up'], ['callees', callees, 'down']]) {
    const first = await page.evaluate(c => {
      const svg = document.querySelector(`.panel.active svg.mini.${c}`);
      const H = +svg.getAttribute('height');
      return [...svg.querySelectorAll('g.mf')].filter(g => { const y = +g.querySelector('rect').getAttribute('y');
        return c === 'callers' ? y === H - 2 * 17 : y === 17; }).map(g => +g.getAttribute('data-i'));
    }, cls);
    const got = new Map();
    for (const i of first) {
      const t = await page.evaluate(([c, i]) => {
        const g = document.querySelector(`.panel.active svg.mini.${c} g.mf[data-i="${i}"] rect`);
        const r = g.getBoundingClientRect();
        g.dispatchEvent(new MouseEvent('mousemove', { bubbles: true, clientX: r.x + 1, clientY: r.y + 2 }));
        return [...document.querySelectorAll('#tip div')].map(d => d.textContent);
      }, [cls, i]);
      got.set(t[0], t[1].replace(/^[a-z ]+: /, '').replace(/ \(.*$/, ''));
    }
    const exp = new Map([...want].map(([k, v]) => [k, fmtNs(v)]));
    const same = got.size === exp.size && [...exp].every(([k, v]) => got.get(k) === v);
    ok(`sandwich-${cls} ${label}`, same, `page ${JSON.stringify([...got])} vs folded ${JSON.stringify([...exp])}`);
  }
}

try {
  // ---- the report page of one real trace ----
  if (has('report.html')) {
    const D = pageData('report.html');
    const { page, rec } = await open('report.html');
    const paint = await page.evaluate(() => {
      const p = performance.getEntriesByType('paint').find(e => e.name === 'first-contentful-paint');
      return p ? p.startTime : -1;
    });
    console.log(`INFO page first paint: ${paint.toFixed(1)} ms (report.html, ${(readFileSync(join(dir, 'report.html')).length / 1024).toFixed(0)} KiB)`);
    const csp = await page.evaluate(() => document.querySelector('meta[http-equiv="Content-Security-Policy"]')?.content || '');
    ok('page-csp', /default-src 'none'/.test(csp) && /script-src 'sha256-[A-Za-z0-9+/=]{44}'/.test(csp) &&
       !/unsafe-inline|https?:/.test(csp), csp);
    const tabs = await page.evaluate(() => [...document.querySelectorAll('.tabs button')].map(b => b.textContent));
    // the SVG's titles of the same weights (stacks/weight.h: one table)
    ok('page-four-tabs', tabs.join(',') === 'GPU time,Host CPU time,Wall time,GPU idle time', tabs.join(','));
    ok('page-verdict', (await page.locator('.verdict').textContent()).includes(D.report.summary.verdict), 'verdict text');
    const gpu = await frames(page, 'gpu');
    ok('page-gpu-drawn', gpu.length > 10 && gpu.some(f => f.i === 0), String(gpu.length));
    await layout(page, 'report-gpu');

    // search "item": the sync frames highlighted in the wall graph, the matched share shown
    await page.locator('#search').fill('item');
    await page.locator('.tabs button[data-tab="wall"]').click();
    const wall = await frames(page, 'wall');
    const G = D.ranks[0].graphs.wall;
    const hit = wall.filter(f => f.cls.includes('match'));
    ok('page-search-highlights', hit.length > 0 && hit.every(f => /item/.test(G.names[G.n[f.i]])) &&
       wall.filter(f => !f.cls.includes('match')).every(f => !/item/.test(G.names[G.n[f.i]])),
       `${hit.length} of ${wall.length}`);
    const want = foldedShare('wall.folded', /item/);
    console.log(`INFO wall frames matching /item/: ${want.toFixed(2)}% of the wall time (from the folded stacks)`);
    const m = await page.locator('.panel.active .matched').textContent();
    const got = +m.replace(/^Matched: ([0-9.]+)%$/, '$1');
    const prunedPct = 100 * G.pruned / G.total;
    // pruned frames (stated on the panel) can hide matches, never add them
    ok('page-search-share', /^Matched: [0-9.]+%$/.test(m) && got <= want + 0.005 && want - got <= prunedPct + 0.005 &&
       (G.pruned > 0 || got === want), `${m} vs ${want.toFixed(2)}% from the folded stacks, ${prunedPct.toFixed(2)}% pruned`);
    const all = await page.locator('#matched').textContent();
    ok('page-search-all-graphs', all.includes(`Wall time ${got.toFixed(2)}%`) && /GPU time \d/.test(all) && /Host CPU time \d/.test(all) && /GPU idle time \d/.test(all), all);
    await layout(page, 'report-wall-search');

    // click a frame: it zooms to the full width, its descendants rescale, the rest goes
    const W = await page.evaluate(() => +document.querySelector('.panel.active svg.flame').getAttribute('viewBox').split(' ')[2]);
    const target = hit.sort((a, b) => b.w - a.w)[0];
    const ms = await page.evaluate(i => {
      const g = document.querySelector(`.panel.active svg.flame g.fr[data-i="${i}"]`);
      const t0 = performance.now();
      g.querySelector('rect').dispatchEvent(new MouseEvent('click', { bubbles: true }));
      return performance.now() - t0;
    }, target.i);
    console.log(`INFO zoom: ${ms.toFixed(1)} ms (${wall.length} frames)`);
    const z = await frames(page, 'wall');
    const zt = z.find(f => f.i === target.i);
    ok('page-zoom-full-width', zt && Math.abs(zt.w - (W - 0.5)) < 0.2 && zt.x === 0 && zt.cls.includes('zoomed'), JSON.stringify(zt));
    const isUnder = (i, a) => { for (; i > 0; i = G.p[i]) if (i === a) return true; return a === 0; };
    const isAnc = (a, i) => isUnder(i, a);
    ok('page-zoom-only-branch', z.every(f => isUnder(f.i, target.i) || isAnc(f.i, target.i)) && z.length < wall.length,
       `${z.length} drawn`);
    const selRow = await page.locator('.panel.active tr.selected td.name').textContent().catch(() => '');
    ok('page-frame-selects-row', selRow === G.names[G.n[target.i]], selRow);
    // the click selected the name: its callers and callees, against the folded stacks
    await sandwichCheck(page, 'report-wall-click', 'wall.folded', G.names[G.n[target.i]], G.pruned === 0);
    const mz = await page.locator('.panel.active .matched').textContent();
    ok('page-zoom-matched', mz.startsWith(`Matched: ${got.toFixed(2)}% (`) && mz.endsWith('% of zoomed frame)'), mz);
    await layout(page, 'report-zoom-sandwich');
    await page.locator('.panel.active button.reset').click();
    const back = await frames(page, 'wall');
    ok('page-reset-zoom', back.length === wall.length && back.every((f, k) => f.x === wall[k].x && f.w === wall[k].w), `${back.length}`);

    // icicle: the root goes to the top
    const rootY = async () => page.evaluate(() => +document.querySelector('.panel.active svg.flame g.fr[data-i="0"] rect').getAttribute('y'));
    const y0 = await rootY();
    await page.locator('.panel.active input.icicle').check();
    ok('page-icicle', (await rootY()) === 0 && y0 > 0, `${y0}`);
    await page.locator('.panel.active input.icicle').uncheck();

    // the table sorts by self first (root frames do not fill its top), by any column on a click
    await page.locator('#search').fill('');
    const selfOrder = (() => { const s = new Map(); const self = G.v.slice(); for (let i = 1; i < G.p.length; i++) self[G.p[i]] -= G.v[i];
      for (let i = 1; i < G.p.length; i++) s.set(G.names[G.n[i]], (s.get(G.names[G.n[i]]) || 0) + self[i]);
      return [...s].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, 3).map(x => x[0]); })();
    const top3 = () => page.evaluate(() => [...document.querySelectorAll('.panel.active table.calls tbody tr')].slice(0, 3).map(r => r.querySelector('td.name').textContent));
    ok('page-table-default-self', (await top3()).join('|') === selfOrder.join('|'), `${await top3()} vs ${selfOrder}`);
    await page.locator('.panel.active th[data-key="total"]').click();
    const byTotal = (() => { const t = new Map(); for (const [fr, ns] of folded('wall.folded')) for (const f of new Set(fr)) t.set(f, (t.get(f) || 0n) + ns);
      return [...t].sort((a, b) => (b[1] > a[1]) - (b[1] < a[1]) || (a[0] < b[0] ? -1 : 1))[0][0]; })();
    ok('page-table-sort-total', (await top3())[0] === byTotal, `${await top3()} vs ${byTotal} from the folded stacks`);
    await page.locator('.panel.active th[data-key="self"]').click();
    ok('page-table-sort-self', (await top3()).join('|') === selfOrder.join('|'), `${await top3()} vs ${selfOrder}`);

    // a table row highlights its frames and selects the name
    const name = G.names.find(s => /^aten::/.test(s) && G.calls[G.names.indexOf(s)] > 0) || G.names[1];
    const k = G.names.indexOf(name);
    await page.locator('.panel.active tr.row', { has: page.locator('td.name', { hasText: new RegExp('^' + name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&') + '$') }) }).click();
    const hl = (await frames(page, 'wall')).filter(f => f.cls.includes(' hl'));
    const nodes = G.n.filter(x => x === k).length;
    ok('page-row-highlights', k > 0 && hl.length === nodes && hl.every(f => G.n[f.i] === k), `${hl.length} highlighted, ${nodes} nodes`);
    ok('page-row-selected', (await page.locator('.panel.active tr.selected td.name').textContent()) === name);
    const callsCell = await page.evaluate(n => [...document.querySelectorAll('.panel.active table.calls tbody tr')].find(r => r.querySelector('td.name').textContent === n)?.children[2].textContent, name);
    ok('page-table-calls', callsCell === (G.calls[k] / D.ranks[0].steps).toFixed(2), `${callsCell} vs ${G.calls[k]}/${D.ranks[0].steps}`);
    // the selection holds on every weight: the other tabs show its callers and callees too
    await page.locator('.tabs button[data-tab="cpu"]').click();
    await page.waitForSelector('.panel.active .sandwich:not([data-pending]) h3', { timeout: 10000 });
    const cpuHead = await page.locator('.panel.active .sandwich h3').textContent();
    const weights = await page.locator('.panel.active table.selweights tbody tr').count();
    ok('page-sandwich-every-weight', cpuHead.includes(name) && weights === 4, `${cpuHead} ${weights}`);

    // tabs switch
    await page.locator('.tabs button[data-tab="idle"]').click();
    const idle = await frames(page, 'idle');
    const act = await page.evaluate(() => document.querySelector('.panel.active').getAttribute('data-graph'));
    ok('page-tab-switch', act === 'idle' && idle.length > 1, `${act} ${idle.length}`);
    await layout(page, 'report-idle');

    // per-step bars: one group per step, warm-up marked, the median line, the timeline's step outlined
    const bars = await page.evaluate(() => ({ steps: document.querySelectorAll('svg.bars g.step').length,
      warm: document.querySelectorAll('svg.bars g.step.warmup').length, med: document.querySelectorAll('svg.bars line.median').length,
      tl: document.querySelectorAll('svg.bars g.step.timeline').length,
      title: document.querySelector('svg.bars g.step title')?.textContent || '' }));
    const steps = D.report.steps;
    ok('page-step-bars', bars.steps === steps.length && bars.warm === steps.filter(s => s.warmup).length && bars.med === 1 &&
       bars.tl === D.ranks[0].timeline.length && bars.title.includes('wall'), JSON.stringify(bars));
    const sites = await page.locator('table.syncs tbody tr').count();
    ok('page-sync-table', sites === D.report.syncs.length, `${sites}`);
    await page.locator('section h2', { hasText: 'Step timeline' }).scrollIntoViewIfNeeded();
    await timeline(page, 'report', D, D.ranks[0], null);
    await layout(page, 'report-timeline');
    ok('page-no-console-errors', rec.errors.length === 0, rec.errors.join(' | '));
    ok('page-no-network', rec.requests.length === 0, rec.requests.join(' '));
    await page.close();
  }

  // ---- the shipped decode trace (nothing pruned): exact shares, the timeline of a sync ----
  if (has('decode.html')) {
    const D = pageData('decode.html');
    const text = readFileSync(join(dir, 'decode.txt'), 'utf8');
    const { page, rec } = await open('decode.html');
    await layout(page, 'decode-gpu');
    await page.locator('.tabs button[data-tab="wall"]').click();
    await page.locator('#search').fill('item|synchroni');
    const want = foldedShare('decode-wall.folded', /item|synchroni/);
    const m = await page.locator('.panel.active .matched').textContent();
    ok('page-search-share-exact', D.ranks[0].graphs.wall.pruned === 0 && m === `Matched: ${want.toFixed(2)}%`, `${m} vs ${want.toFixed(2)}%`);
    // Enter in the search box selects the heaviest matching name: its callers and callees, exactly
    await page.locator('#search').fill('aten::item');
    await page.locator('#search').press('Enter');
    await sandwichCheck(page, 'decode-search-enter', 'decode-wall.folded', 'aten::item', true);
    await page.locator('.panel.active button.unselect').click();
    await page.locator('#search').fill('item');
    await page.locator('section h2', { hasText: 'Step timeline' }).scrollIntoViewIfNeeded();
    await timeline(page, 'decode', D, D.ranks[0], text);
    await page.evaluate(() => window.scrollTo(0, 0));
    await layout(page, 'decode-wall-item');
    if (process.env.GF_SCREENSHOT) {
      // the README's view: the wall graph with "item" searched and aten::item
      // selected (its callers and callees below it); beside it, for docs/report.md,
      // FILE-timeline.png: the step timeline with its sync gap hovered
      const shot = process.env.GF_SCREENSHOT, base = shot.replace(/\.png$/, '');
      await page.locator('.tabs button[data-tab="wall"]').click();
      await page.locator('#search').fill('aten::item');
      await page.locator('#search').press('Enter');
      await page.waitForSelector('.panel.active .sandwich:not([data-pending]) svg.mini.callees', { timeout: 10000 });
      await page.locator('#search').fill('item');
      await page.evaluate(() => { document.querySelector('.tabs').scrollIntoView(); window.scrollBy(0, -40); });
      await page.screenshot({ path: shot });
      await page.evaluate(() => { document.querySelector('.tlview').closest('section').scrollIntoView(); window.scrollBy(0, -20); });
      const widest = await page.evaluate(() => { const r = [...document.querySelectorAll('svg.timeline g.seg.idle.cause-sync rect')];
        return r.indexOf(r.reduce((a, b) => +b.getAttribute('width') > +a.getAttribute('width') ? b : a)); });
      await page.locator('svg.timeline g.seg.idle.cause-sync rect').nth(widest).hover({ force: true });
      await page.screenshot({ path: base + '-timeline.png' });
      await page.locator('.panel.active button.unselect').click();
      await page.locator('#search').fill('item');
      await page.evaluate(() => window.scrollTo(0, 0));
    }
    // the targets' lines, the JSON's figures
    const tgt = await page.evaluate(() => [...document.querySelectorAll('section')].find(x => x.querySelector('h2')?.textContent === 'Targets')?.textContent || '');
    const R = D.report;
    ok('page-targets', tgt.includes('Profiler overhead') && tgt.includes((R.overhead.overhead_us).toFixed(3) + ' us') &&
       tgt.includes('Speed of light') && tgt.includes((R.expect.distance_us).toFixed(3) + ' us'), tgt);
    // the tooltip of a kernel family: total, self, calls, per step, its top real kernel names
    await page.locator('.tabs button[data-tab="gpu"]').click();
    await page.locator('#search').fill('');
    const GG = D.ranks[0].graphs.gpu, gi = GG.n.indexOf(GG.names.indexOf('gemm'));
    await page.locator(`.panel.active svg.flame g.fr[data-i="${gi}"] rect`).hover();
    const tipText = await page.locator('#tip').textContent();
    const fam = D.ranks[0].families.find(f => f.name === 'gemm');
    ok('page-tooltip-family', gi > 0 && tipText.startsWith('gemm') && /total .*self /.test(tipText) && tipText.includes('per step') &&
       tipText.includes('calls ') && fam.top.every(k => tipText.includes(k.name)), tipText.slice(0, 300));
    ok('page-decode-families-drawn', D.ranks[0].families.every(f => GG.names.includes(f.name)), 'a family the GPU graph does not draw');
    // each top kernel with its launch configuration (grid, block, registers, occupancy; issue 26)
    ok('page-tooltip-launch-config', fam.top.some(k => k.cfg) && fam.top.every(k => !k.cfg || tipText.includes(k.name + '  (' + k.cfg + ')')),
       tipText.slice(0, 400));
    ok('page-decode-no-errors', rec.errors.length === 0 && rec.requests.length === 0, rec.errors.join(' | '));
    await page.close();
  }

  // ---- many ranks: two corpus ranks (no process group: the fallback) ----
  {
    const D = pageData('ranks.html');
    const { page, rec } = await open('ranks.html');
    ok('page-ranks-kind', D.kind === 'ranks' && D.report.schema === 'gpuflame.ranks/1', D.kind);
    const g = await page.evaluate(() => [...document.querySelectorAll('table.groups tbody tr')].map(t => t.textContent));
    ok('page-ranks-fallback-group', g.length === 1 && g[0].startsWith('(all ranks, by kernel name)'), g.join('|'));
    const opts = await page.locator('#rankpick option').count();
    ok('page-ranks-full-views', opts === D.ranks.length && opts >= 1, `${opts}`);
    const meta0 = await page.locator('.rank p.meta').textContent();
    ok('page-ranks-full-view-file', meta0.includes(D.ranks[0].report.file), meta0);
    ok('page-ranks-graphs', (await frames(page, 'gpu')).length > 1);
    if (opts > 1) {
      await page.locator('#rankpick').selectOption('1');
      const meta1 = await page.locator('.rank p.meta').textContent();
      ok('page-ranks-switch', meta1.includes(D.ranks[1].report.file), meta1);
    }
    // the ranks in full come from summaries: no step timeline there (--timeline is refused with several ranks)
    const tlv = await page.locator('.tlview').count();
    ok('page-ranks-no-timeline', tlv === 0 && D.ranks.every(x => !x.page || !('timeline' in x.page)), `${tlv} timeline views`);
    await layout(page, 'ranks');
    await page.screenshot({ path: join(shots, 'ranks.png') });
    ok('page-ranks-no-errors', rec.errors.length === 0 && rec.requests.length === 0, rec.errors.join(' | '));
    await page.close();
  }

  // ---- two process groups, each with its own straggler (ranks 1 and 5) ----
  {
    const D = pageData('pg2.html');
    const { page, rec } = await open('pg2.html');
    const rows = await page.evaluate(() => [...document.querySelectorAll('table.groups tbody tr')].map(t => [...t.children].map(c => c.textContent)));
    const strag = await page.evaluate(() => [...document.querySelectorAll('table.groups td.straggler')].map(c => c.textContent));
    ok('page-pg2-both-stragglers', rows.length === 2 && strag.includes('rank 1') && strag.includes('rank 5') &&
      rows.some(r => r[0] === '1' && r[6] === 'rank 1') && rows.some(r => r[0] === '2' && r[6] === 'rank 5'), JSON.stringify(rows));
    const v = await page.locator('#ranks-verdict').textContent();
    ok('page-pg2-verdict', v.includes("rank 1 is the straggler of process group '1'") && v === 'Verdict: ' + D.report.verdict + 'Next: ' + D.report.action, v);
    const c = await page.evaluate(() => { const e = document.getElementById('heat'); return [+e.dataset.rows, +e.dataset.steps, e.height]; });
    ok('page-pg2-heat-grid', c[0] === 8 && c[1] === 6 && c[2] === 8 * 14, c.join(','));
    // the row of rank 5 (rows by rank: the sixth row, 14 px each) names rank 5 under the pointer
    const box = await page.locator('#heat').boundingBox();
    await page.mouse.move(box.x + 40, box.y + 5 * 14 + 7);
    const tipText = await page.locator('#tip').textContent();
    ok('page-pg2-heat-hover', tipText.startsWith('rank 5') && tipText.includes('step 1'), tipText);
    await page.locator('#fig').selectOption('arrived_last');
    const dist = await page.locator('table.dist tbody td:last-child').textContent();
    ok('page-pg2-outliers', dist.includes('rank 1 (6)') && dist.includes('rank 5 (6)'), dist);
    const full = await page.evaluate(() => [...document.querySelectorAll('#rankpick option')].map(o => o.textContent));
    ok('page-pg2-stragglers-in-full', full.some(t => t.startsWith("rank 1: straggler of group '1'")) && full.some(t => t.startsWith("rank 5: straggler of group '2'")), full.join('|'));
    await page.screenshot({ path: join(shots, 'pg2.png'), fullPage: true });
    ok('page-pg2-no-errors', rec.errors.length === 0 && rec.requests.length === 0, rec.errors.join(' | '));
    await page.close();
  }

  // ---- 1,024 ranks: one canvas row per rank, readable, fast ----
  {
    const t0 = Date.now();
    const { page, rec } = await open('k1024.html');
    const ready = Date.now() - t0;
    const c = await page.evaluate(() => { const e = document.getElementById('heat'); return [+e.dataset.rows, e.height, e.width]; });
    ok('page-1024-heat-rows', c[0] === 1024 && c[1] === 1024, c.join(','));
    const strag = await page.evaluate(() => [...document.querySelectorAll('table.groups td.straggler')].map(c => c.textContent));
    ok('page-1024-stragglers', strag.join(',') === 'rank 170,rank 682', strag.join(','));
    const box = await page.locator('#heat').boundingBox();
    // the pointer over row 682 (one px a row), exactly: Chromium keeps a MouseEvent's clientY whole, and
    // the canvas's top may be fractional, so the whole y inside [top + 682, top + 683)
    await page.evaluate(() => { const e = document.getElementById('heat'), r = e.getBoundingClientRect();
      e.dispatchEvent(new MouseEvent('mousemove', { clientX: Math.ceil(r.left + 30), clientY: Math.ceil(r.top + 682), bubbles: true })); });
    const tipText = await page.locator('#tip').textContent();
    ok('page-1024-heat-hover', tipText.startsWith('rank 682'), tipText);
    const every = await page.locator('table.everyrank tbody tr').count();
    ok('page-1024-every-rank', every === 1024, `${every}`);
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    ok('page-1024-width', width <= 1600, `${width} px wide`);
    console.log(`note: the 1,024-rank page was ready in ${ready} ms, ${width} px wide, its heat map ${c[2]} x ${c[1]} px (${box ? 'visible' : 'hidden'})`);
    ok('page-1024-no-errors', rec.errors.length === 0 && rec.requests.length === 0, rec.errors.join(' | '));
    await page.close();
  }

  // ---- diff: its weight and both runs, the red/blue graph, removed frames, before/after/change ----
  if (has('diff.html')) {
    const D = pageData('diff.html');
    const { page, rec } = await open('diff.html');
    const f = await page.evaluate(() => [...document.querySelectorAll('svg.flame g.fr rect')].map(r => r.getAttribute('fill')));
    const fills = new Set(D.graph.fills.map(x => x.replace(/ /g, '')));
    const drawnFills = f.map(x => x.replace(/ /g, ''));
    ok('page-diff-graph', f.length > 1 && drawnFills.filter(x => x !== 'rgb(230,0,230)').every(x => fills.has(x)) && drawnFills.some(x => /^rgb\(255,/.test(x) || /,255\)$/.test(x)), `${f.length}`);
    const wl = await page.locator('p.weightline').textContent(), runs = await page.locator('p.runs').textContent();
    ok('page-diff-names-weight', D.weight && wl.includes(D.weight) && wl.includes('per step'), wl);
    ok('page-diff-names-runs', runs.includes(D.before) && runs.includes(D.after) && runs.includes(`${D.steps[0]} step`), runs);
    const heads = await page.evaluate(() => [...document.querySelectorAll('table.calls thead th')].map(t => t.textContent));
    ok('page-diff-table-before-after-change', heads.join(',') === 'Before,After,Change,Frame', heads.join(','));
    // the table's numbers: per name, each stack once, from the JSON (widths after, b before)
    const row1 = await page.evaluate(() => [...document.querySelector('table.calls tbody tr').children].map(c => c.textContent));
    ok('page-diff-table-change', row1.length === 4 && /^[+-]?\d/.test(row1[2]), row1.join(' | '));
    const g = D.graph, removed = [];
    for (let i = 1; i < g.p.length; i++) if (g.v[i] === 0 && g.b[i] > 0) removed.push(i);
    const removedRows = await page.locator('table.removed tbody tr').count();
    ok('page-diff-removed-list', removed.length > 0 && removedRows > 0, `${removed.length} removed in the data, ${removedRows} listed`);
    await layout(page, 'diff-after');
    await page.locator('select.shape').selectOption('before');
    const drawn = new Set((await frames(page, 'diff')).map(x => x.i));
    ok('page-diff-draws-removed', removed.some(i => drawn.has(i)), `${removed.length} removed frames, none drawn`);
    await layout(page, 'diff-before');
    await page.locator('select.shape').selectOption('after');
    const rows = await page.locator('table.changes tbody tr').count();
    ok('page-diff-changes', rows === D.changes.length && rows > 0, `${rows}`);
    const meta = await page.evaluate(() => [...document.querySelectorAll('p.meta, p.note')].map(p => p.textContent).join(' '));
    ok('page-diff-noise', meta.includes(`${D.noise.grew} frames grew`) && meta.includes('red = grew'), meta.slice(0, 200));
    // issue 28's step-to-step noise sentence: shown as the JSON writes it, and no stray text when empty
    const nl = await page.locator('p.noise').count();
    ok('page-diff-noise-line', D.noise.summary ? nl === 1 && (await page.locator('p.noise').textContent()) === D.noise.summary : nl === 0,
       `${nl} noise lines for summary '${D.noise.summary}'`);
    await page.locator('#search').fill('nccl|gemm');
    const hits = await page.locator('svg.flame g.fr.match').count();
    ok('page-diff-search', hits > 0, `${hits}`);
    // callers/callees on the diff page too
    await page.locator('#search').press('Enter');
    await page.waitForSelector('.sandwich:not([data-pending]) svg.mini.callers', { timeout: 10000 }).catch(() => {});
    ok('page-diff-sandwich', (await page.locator('svg.mini.callers').count()) === 1, 'no callers graph');
    await layout(page, 'diff-search-sandwich');
    ok('page-diff-no-errors', rec.errors.length === 0 && rec.requests.length === 0, rec.errors.join(' | '));
    await page.close();
  }

  // ---- hostile names: nothing becomes markup or script ----
  for (const file of ['hostile.html', 'hdiff.html']) {
    if (!has(file)) continue;
    const { page, rec } = await open(file);
    for (const t of ['wall', 'gpu', 'cpu']) {
      const b = page.locator(`.tabs button[data-tab="${t}"]`);
      if (await b.count()) await b.click();
    }
    await page.locator('#search').fill('script|img');
    await page.locator('#search').press('Enter');
    await page.waitForSelector('.sandwich:not([data-pending]) svg.mini', { timeout: 10000 }).catch(() => {});
    const counts = await page.evaluate(() => ({ img: document.querySelectorAll('img').length, iframe: document.querySelectorAll('iframe').length,
      script: document.scripts.length, b: document.querySelectorAll('b:not(.verdict b):not(.weightline b):not(.runs b)').length,
      svgOnload: document.querySelectorAll('svg[onload]').length,
      text: document.body.textContent }));
    ok(`page-hostile-no-elements ${file}`, counts.img === 0 && counts.iframe === 0 && counts.script === 2 && counts.svgOnload === 0 && counts.b === 0,
       JSON.stringify({ ...counts, text: undefined }));
    ok(`page-hostile-names-as-text ${file}`, counts.text.includes(file === 'hdiff.html' ? '<img src=x onerror=alert(4)>' : '</script><script>alert(1)</script>'),
       'the hostile name is not shown as text');
    if (file === 'hdiff.html') ok('page-hostile-invalid-utf8', counts.text.includes('\ufffd\ufffd bad'), 'U+FFFD not shown');
    ok(`page-hostile-no-dialog ${file}`, rec.dialogs.length === 0, rec.dialogs.join(' | '));
    ok(`page-hostile-no-errors ${file}`, rec.errors.length === 0 && rec.requests.length === 0, rec.errors.join(' | ') + rec.requests.join(' '));
    await layout(page, file.replace('.html', ''));
    await page.close();
  }

  // ---- Object.prototype names in every name slot: every view works on hover, click and search ----
  for (const file of ['proto0.html', 'proto1.html', 'pdiff.html']) {
    if (!has(file)) continue;
    const D = pageData(file);
    const { page, rec } = await open(file);
    const keys = D.kind === 'diff' ? ['diff'] : ['gpu', 'cpu', 'wall', 'idle'];
    let hovered = 0, tipsOk = 0;
    for (const key of keys) {
      const b = page.locator(`.tabs button[data-tab="${key}"]`);
      if (await b.count()) await b.click();
      const g = D.kind === 'diff' ? D.graph : D.ranks[0].graphs[key];
      if (!g) continue;
      // every frame: hover (the tooltip names it), then click the deepest one
      const res = await page.evaluate(k => {
        const out = [];
        for (const f of document.querySelectorAll(`svg.flame[data-graph="${k}"] g.fr`)) {
          const r = f.querySelector('rect').getBoundingClientRect();
          f.querySelector('rect').dispatchEvent(new MouseEvent('mousemove', { bubbles: true, clientX: r.x + 1, clientY: r.y + 1 }));
          out.push([+f.getAttribute('data-i'), document.querySelector('#tip .tn')?.textContent || '']);
        }
        return out;
      }, key);
      for (const [i, t] of res) { hovered++; if (t === (i === 0 ? 'all' : g.names[g.n[i]])) tipsOk++; }
      // click (zoom and select) the last frames drawn, each from the full view
      for (const [i] of res.slice(-3)) {
        if (i <= 0) continue;
        await page.evaluate(i => document.querySelector(`.panel.active svg.flame g.fr[data-i="${i}"] rect`)?.dispatchEvent(new MouseEvent('click', { bubbles: true })), i);
        await page.locator('.panel.active button.reset').click();
      }
      for (const r of (await page.locator('.panel.active tr.row').all()).slice(0, 12)) await r.click();
    }
    ok(`page-proto-hover ${file}`, hovered > 10 && tipsOk === hovered, `${tipsOk} of ${hovered} tooltips name their frame`);
    const names = ['__proto__', 'constructor', 'toString', 'valueOf', 'hasOwnProperty', 'isPrototypeOf', 'propertyIsEnumerable',
      'toLocaleString', '__defineGetter__', '__defineSetter__', '__lookupGetter__', '__lookupSetter__'];
    let searched = 0;
    for (const n of names) {
      await page.locator('#search').fill('^' + n + '$');
      await page.locator('#search').press('Enter');
      searched += (await page.locator('.panel.active svg.flame g.fr.match').count()) > 0 ? 1 : 0;
    }
    ok(`page-proto-search ${file}`, searched >= 6, `${searched} of ${names.length} names found by search`);
    if (D.kind !== 'diff') {
      const segs = await page.evaluate(() => {
        let n = 0;
        for (const g of document.querySelectorAll('svg.timeline g.seg')) {
          const r = g.querySelector('rect').getBoundingClientRect();
          g.querySelector('rect').dispatchEvent(new MouseEvent('mousemove', { bubbles: true, clientX: r.x + 0.5, clientY: r.y + 1 }));
          if ((document.querySelector('#tip')?.textContent || '').length) n++;
        }
        return n;
      });
      ok(`page-proto-timeline ${file}`, segs > 0, `${segs} timeline blocks with a tooltip`);
    }
    await layout(page, file.replace('.html', ''));
    ok(`page-proto-no-errors ${file}`, rec.errors.length === 0 && rec.requests.length === 0, rec.errors.slice(0, 3).join(' | '));
    await page.close();
  }

  // ---- a vocabulary the script has never seen: new causes and classes show without a page change ----
  if (has('decode.html')) {
    const D = pageData('decode.html');
    const html = readFileSync(join(dir, 'decode.html'), 'utf8');
    const R = D.report, V = D.vocab;
    const NEW = [{ key: 'alloc_wait', json: 'alloc_wait_us', label: 'allocator wait', rule: 'a rule this page does not know',
      color: '#00897b', pattern: 'M0,0 L8,0', keys: 'alloc_sites', key_field: 'stack' },
    { key: 'cold_start', json: 'cold_start_us', label: 'cold start', rule: 'another', color: '#5d4037', pattern: 'M0,8 L8,8' }];
    V.causes.push(...NEW);
    (V.classes = V.classes || []).push({ key: 'kv_cache', label: 'KV-cache management' });
    R.gaps.alloc_wait_us = 12.345; R.gaps.cold_start_us = 0;
    R.gaps.alloc_sites = [{ stack: 'engine.py(9): grow_kv_cache', idle_per_step_us: 12.345, share: 1 }];
    // each step: half of its largest cause becomes the new cause (the bar keeps its height)
    for (const st of R.steps) {
      if (!st.gaps) continue;
      const big = V.causes.slice(0, -2).reduce((a, c) => (st.gaps[c.json] || 0) > (st.gaps[a.json] || 0) ? c : a);
      const half = st.gaps[big.json] / 2;
      st.gaps[big.json] -= half; st.gaps.alloc_wait_us = half; st.gaps.cold_start_us = 0;
    }
    // the longest single idle block of the timeline becomes the new cause, with its words and a new class
    const T = D.ranks[0].timeline[0], L = T.lanes.find(x => x.kind === 'idle');
    let j = -1;
    L.k.forEach((k, i) => { if (k === 1 && (j < 0 || L.d[i] > L.d[j])) j = i; });
    const words = 'alloc_wait: the host waited for the caching allocator to grow the KV cache.';
    L.c[j] = V.causes.findIndex(c => c.key === 'alloc_wait');
    L.x[j] = T.texts.push(words) - 1;
    L.h = L.k.map(() => -1); L.h[j] = V.classes.length - 1;
    const json = JSON.stringify(D).replace(/</g, '\\u003c');
    const m = html.match(/(<script type="application\/json" id="gf-data">)[\s\S]*?(<\/script>)/);
    writeFileSync(join(dir, 'vocab.html'), html.slice(0, m.index) + m[1] + json + m[2] + html.slice(m.index + m[0].length));
    const { page, rec } = await open('vocab.html');
    const legends = await page.evaluate(() => [...document.querySelectorAll('.legend')].map(l => l.textContent));
    ok('page-vocab-legends', legends.filter(t => t.includes('idle: alloc_wait') && t.includes('idle: cold_start')).length >= 2, legends.join(' | ').slice(0, 300));
    const gaps = await page.evaluate(() => [...document.querySelectorAll('table.gaps tbody tr')].map(tr => [...tr.cells].map(c => c.textContent)));
    const row = gaps.find(r => r[0] === 'alloc_wait');
    ok('page-vocab-gap-table', gaps.length === V.causes.length && row && row[1] === '12.345 us' && gaps.some(r => r[0] === 'cold_start'), JSON.stringify(gaps));
    const pat = await page.evaluate(() => { const p = document.querySelector('#pat-alloc_wait rect'); return p ? p.getAttribute('fill') : null; });
    ok('page-vocab-pattern', pat === '#00897b', String(pat));
    const keys = await page.evaluate(() => [...document.querySelectorAll('table.gapkeys tbody tr')].map(tr => [...tr.cells].map(c => c.textContent)));
    ok('page-vocab-keys', keys.some(r => r[0] === 'engine.py(9): grow_kv_cache' && r[1] === 'alloc_wait' && r[2] === '12.345 us'), JSON.stringify(keys));
    const bars = await page.locator('svg.bars rect.seg-alloc_wait').count();
    ok('page-vocab-step-bars', bars === R.steps.filter(st => st.gaps && st.gaps.alloc_wait_us > 0).length && bars > 0, `${bars} bars`);
    const seg = page.locator('svg.timeline g.seg.idle.cause-alloc_wait rect');
    const fill = (await seg.count()) === 1 ? await seg.getAttribute('fill') : null;
    ok('page-vocab-timeline-block', fill === 'rgb(0,137,123)', String(fill));
    const tip = await hoverTip(page, 'svg.timeline g.seg.idle.cause-alloc_wait rect');
    ok('page-vocab-timeline-hover', tip.includes(': alloc_wait') && tip.includes('host work: KV-cache management') && tip.includes(words), tip.slice(0, 300));
    await layout(page, 'vocab');
    ok('page-vocab-no-errors', rec.errors.length === 0 && rec.requests.length === 0, rec.errors.slice(0, 3).join(' | '));
    await page.close();
  }

  // ---- pages that used to be unbounded: bounded by what they draw ----
  for (const [file, maxKiB, what] of [['stress-families.html', 1024, '100k kernel families'], ['stress-longnames.html', 1024, 'two 10 MB names'],
    ['stress-deep.html', 1024, 'a 40,000-deep stack'], ['stress-deepdiff.html', 1024, 'a diff of 40,000-deep stacks'], ['stress-name5k.html', 1024, 'a 5 KB name']]) {
    if (!has(file)) continue;
    const kib = statSync(join(dir, file)).size / 1024;
    const { page, rec } = await open(file);
    console.log(`INFO ${file}: ${kib.toFixed(0)} KiB, ready in ${rec.loadMs} ms (${what})`);
    ok(`page-stress-size ${file}`, kib <= maxKiB, `${kib.toFixed(0)} KiB for ${what}`);
    const key = file.includes('diff') ? 'diff' : 'wall';
    const b = page.locator(`.tabs button[data-tab="${key}"]`);
    if (await b.count()) await b.click();
    const h = await page.evaluate(k => +document.querySelector(`svg.flame[data-graph="${k}"]`).getAttribute('height'), key);
    const ms = await page.evaluate(() => { const i = document.getElementById('search'); const t = performance.now();
      i.value = 'f1|rec|B'; i.dispatchEvent(new Event('input')); return performance.now() - t; });
    console.log(`INFO ${file}: graph ${h} px high, search ${ms.toFixed(1)} ms`);
    ok(`page-stress-height ${file}`, h <= 520 * 17, `${h} px`);
    if (file === 'stress-longnames.html' || file === 'stress-name5k.html') {
      // the long name: elided in the graph, the full text on demand within the budget
      const G = pageData(file).ranks[0].graphs.wall;
      const fr = G.n.findIndex(k => G.names[k].startsWith('AAAA'));
      ok(`page-longname-elided ${file}`, fr > 0 && G.names[G.n[fr]].length < 1000, `${fr}`);
      await page.evaluate(i => document.querySelector(`.panel.active svg.flame g.fr[data-i="${i}"] rect`)?.dispatchEvent(new MouseEvent('click', { bubbles: true })), fr);
      await page.waitForSelector('.panel.active .sandwich:not([data-pending]) h3', { timeout: 10000 }).catch(() => {});
      const sw = await page.locator('.panel.active .sandwich').textContent();
      if (file === 'stress-name5k.html') {
        await page.locator('.panel.active button.showfull').click();
        const full = await page.locator('.panel.active pre.fullname').textContent();
        ok('page-longname-full-on-demand', fr > 0 && full === 'A'.repeat(5000), `${fr} ${full.length}`);
      } else {
        ok('page-longname-over-budget', fr > 0 && /10485760 bytes long; the page holds its first and last 400 bytes/.test(sw), sw.slice(0, 200));
      }
    }
    await layout(page, file.replace('.html', ''));
    ok(`page-stress-no-errors ${file}`, rec.errors.length === 0, rec.errors.slice(0, 3).join(' | '));
    await page.close();
  }
} catch (e) {
  failed++;
  console.log(`FAIL page-run: ${String(e).split("\n").slice(0, 12).join(" / ")}`);
} finally {
  await browser.close();
  rmSync(profile, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
