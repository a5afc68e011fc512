// page_test.mjs — the HTML page of `gpuflame report --format html` and
// `gpuflame diff --format html` in headless Chromium (playwright-core driving
// Debian's /usr/bin/chromium). Prints PASS/FAIL lines, and the first-paint
// and zoom times (printed, not asserted).
//
// usage: node page_test.mjs DIR
// DIR holds what run.sh made:
//   report.html  the page of a corpus trace (or the shipped decode trace)
//   wall.folded  `gpuflame fold -w wall` of the same trace: the truth of the
//                matched share (computed here from the stack lines, not from
//                the page)
//   ranks.html   a page of two ranks (the corpus: no process group), pg2.html
//                8 ranks of two process groups (stragglers ranks 1 and 5),
//                k1024.html 1,024 ranks (stragglers 170 and 682),
//                diff.html a diff page of two traces,
//   hostile.html the page of a trace with hostile names, hdiff.html a diff
//                page of folded files with hostile names and invalid UTF-8
// Screenshots of each view go to DIR/shots/ and are compared structurally
// (element counts, text); GF_SCREENSHOT=FILE also writes the view of the
// shipped decode trace's page (the demo's demo/report.html: wall graph,
// "item" searched) there: docs/report.png is made so.
import { chromium } from 'playwright-core';
import { mkdtempSync, rmSync, readFileSync, mkdirSync, copyFileSync } from 'node:fs';
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

// the data block as the page embeds it (read from the file, parsed here)
function pageData(file) {
  const s = readFileSync(file, 'utf8');
  const m = s.match(/<script type="application\/json" id="gf-data">([\s\S]*?)<\/script>/);
  return JSON.parse(m[1]);
}

// share of the folded weight whose stack has a frame matching re (each stack once),
// in percent with 2 decimals: flamegraph.pl's "Matched:" over the stack lines
function foldedShare(file, re) {
  let all = 0n, hit = 0n;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const sp = line.lastIndexOf(' ');
    const [iu, fr = ''] = line.slice(sp + 1).split('.');
    const ns = BigInt(iu) * 1000n + BigInt((fr + '000').slice(0, 3));
    all += ns;
    if (line.slice(0, sp).split(';').some(f => re.test(f))) hit += ns;
  }
  return Number((hit * 20000n / all + 1n) / 2n) / 100; // rounded half up
}

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
  await page.goto(url);
  await page.waitForSelector('html[data-ready]', { timeout: 10000 });
  return { page, rec };
}

const frames = (page, graph) => page.evaluate(g => [...document.querySelectorAll(`svg.flame[data-graph="${g}"] g.fr`)].map(e => ({
  i: +e.getAttribute('data-i'), cls: e.getAttribute('class'),
  x: +e.querySelector('rect').getAttribute('x'), w: +e.querySelector('rect').getAttribute('width'),
})), graph);

try {
  // ---- the report page of one trace ----
  {
    const D = pageData(join(dir, 'report.html'));
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
    await page.screenshot({ path: join(shots, 'report-gpu.png') });

    // search "item": the sync frames highlighted in the wall graph, the matched share shown
    await page.locator('#search').fill('item');
    await page.locator('.tabs button[data-tab="wall"]').click();
    const wall = await frames(page, 'wall');
    const G = D.ranks[0].graphs.wall;
    const hit = wall.filter(f => f.cls.includes('match'));
    ok('page-search-highlights', hit.length > 0 && hit.every(f => /item/.test(G.names[G.n[f.i]])) &&
       wall.filter(f => !f.cls.includes('match')).every(f => !/item/.test(G.names[G.n[f.i]])),
       `${hit.length} of ${wall.length}`);
    const want = foldedShare(join(dir, 'wall.folded'), /item/);
    console.log(`INFO wall frames matching /item/: ${want.toFixed(2)}% of the wall time (from the folded stacks)`);
    const m = await page.locator('.panel.active .matched').textContent();
    const got = +m.replace(/^Matched: ([0-9.]+)%$/, '$1');
    const prunedPct = 100 * G.pruned / G.total;
    // pruned frames (stated on the panel) can hide matches, never add them
    ok('page-search-share', /^Matched: [0-9.]+%$/.test(m) && got <= want + 0.005 && want - got <= prunedPct + 0.005 &&
       (G.pruned > 0 || got === want), `${m} vs ${want.toFixed(2)}% from the folded stacks, ${prunedPct.toFixed(2)}% pruned`);
    const all = await page.locator('#matched').textContent();
    ok('page-search-all-graphs', all.includes(`Wall time ${got.toFixed(2)}%`) && /GPU time \d/.test(all) && /Host CPU time \d/.test(all) && /GPU idle time \d/.test(all), all);
    await page.screenshot({ path: join(shots, 'report-wall-search.png') });

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
    const mz = await page.locator('.panel.active .matched').textContent();
    ok('page-zoom-matched', mz.startsWith(`Matched: ${got.toFixed(2)}% (`) && mz.endsWith('% of zoomed frame)'), mz);
    await page.screenshot({ path: join(shots, 'report-zoom.png') });
    await page.locator('.panel.active button.reset').click();
    const back = await frames(page, 'wall');
    ok('page-reset-zoom', back.length === wall.length && back.every((f, k) => f.x === wall[k].x && f.w === wall[k].w), `${back.length}`);

    // icicle: the root goes to the top
    const rootY = async () => page.evaluate(() => +document.querySelector('.panel.active svg.flame g.fr[data-i="0"] rect').getAttribute('y'));
    const y0 = await rootY();
    await page.locator('.panel.active input.icicle').check();
    ok('page-icicle', (await rootY()) === 0 && y0 > 0, `${y0}`);
    await page.locator('.panel.active input.icicle').uncheck();

    // clear the search; a table row highlights its frames
    await page.locator('#search').fill('');
    const name = 'aten::item';
    const k = G.names.indexOf(name);
    await page.locator('.panel.active tr.row', { has: page.locator('td.name', { hasText: /^aten::item$/ }) }).click();
    const hl = (await frames(page, 'wall')).filter(f => f.cls.includes(' hl'));
    const nodes = G.n.filter(x => x === k).length;
    ok('page-row-highlights', k > 0 && hl.length === nodes && hl.every(f => G.n[f.i] === k), `${hl.length} highlighted, ${nodes} nodes`);
    ok('page-row-selected', (await page.locator('.panel.active tr.selected td.name').textContent()) === name);

    // the table: sortable, calls per step equal the JSON's calls / steps
    await page.locator('.panel.active th[data-key="self"]').click();
    const selfs = await page.evaluate(() => [...document.querySelectorAll('.panel.active table.calls tbody tr')].slice(0, 3).map(r => r.children[0].textContent));
    const bySelf = (() => { const s = new Map(); const self = G.v.slice(); for (let i = 1; i < G.p.length; i++) self[G.p[i]] -= G.v[i];
      for (let i = 1; i < G.p.length; i++) s.set(G.names[G.n[i]], (s.get(G.names[G.n[i]]) || 0) + self[i]);
      return [...s].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, 3).map(x => x[0]); })();
    ok('page-table-sort-self', selfs.join('|') === bySelf.join('|'), `${selfs} vs ${bySelf}`);
    const callsCell = await page.evaluate(() => [...document.querySelectorAll('.panel.active table.calls tbody tr')].find(r => r.children[0].textContent === 'aten::item')?.children[1].textContent);
    ok('page-table-calls', callsCell === (G.calls[k] / D.ranks[0].steps).toFixed(2), `${callsCell} vs ${G.calls[k]}/${D.ranks[0].steps}`);

    // tabs switch
    await page.locator('.tabs button[data-tab="idle"]').click();
    const idle = await frames(page, 'idle');
    const act = await page.evaluate(() => document.querySelector('.panel.active').getAttribute('data-graph'));
    ok('page-tab-switch', act === 'idle' && idle.length > 1, `${act} ${idle.length}`);
    await page.screenshot({ path: join(shots, 'report-idle.png') });

    // per-step bars: one group per step, warm-up marked, the median line
    const bars = await page.evaluate(() => ({ steps: document.querySelectorAll('svg.bars g.step').length,
      warm: document.querySelectorAll('svg.bars g.step.warmup').length, med: document.querySelectorAll('svg.bars line.median').length,
      title: document.querySelector('svg.bars g.step title')?.textContent || '' }));
    const steps = D.report.steps;
    ok('page-step-bars', bars.steps === steps.length && bars.warm === steps.filter(s => s.warmup).length && bars.med === 1 &&
       bars.title.includes('wall'), JSON.stringify(bars));
    const sites = await page.locator('table.syncs tbody tr').count();
    ok('page-sync-table', sites === D.report.syncs.length, `${sites}`);
    ok('page-no-console-errors', rec.errors.length === 0, rec.errors.join(' | '));
    ok('page-no-network', rec.requests.length === 0, rec.requests.join(' '));
    await page.close();
  }

  // ---- the matched share exactly, on a page with nothing pruned (the shipped decode trace) ----
  {
    const D = pageData(join(dir, 'decode.html'));
    const { page, rec } = await open('decode.html');
    await page.locator('.tabs button[data-tab="wall"]').click();
    await page.locator('#search').fill('item|synchroni');
    const want = foldedShare(join(dir, 'decode-wall.folded'), /item|synchroni/);
    const m = await page.locator('.panel.active .matched').textContent();
    ok('page-search-share-exact', D.ranks[0].graphs.wall.pruned === 0 && m === `Matched: ${want.toFixed(2)}%`, `${m} vs ${want.toFixed(2)}%`);
    await page.locator('#search').fill('item');
    await page.screenshot({ path: join(shots, 'decode-wall-item.png') });
    if (process.env.GF_SCREENSHOT) copyFileSync(join(shots, 'decode-wall-item.png'), process.env.GF_SCREENSHOT);
    // the targets' lines, the JSON's figures
    const tgt = await page.evaluate(() => [...document.querySelectorAll('section')].find(x => x.querySelector('h2')?.textContent === 'Targets')?.textContent || '');
    const R = D.report;
    ok('page-targets', tgt.includes('Profiler overhead') && tgt.includes((R.overhead.overhead_us).toFixed(3) + ' us') &&
       tgt.includes('Speed of light') && tgt.includes((R.expect.distance_us).toFixed(3) + ' us'), tgt);
    // the tooltip of a kernel family: total, self, calls, per step, its top real kernel names
    await page.locator('.tabs button[data-tab="gpu"]').click();
    const GG = D.ranks[0].graphs.gpu, gi = GG.n.indexOf(GG.names.indexOf('gemm'));
    await page.locator(`.panel.active svg.flame g.fr[data-i="${gi}"] rect`).hover();
    const tipText = await page.locator('#tip').textContent();
    const fam = D.ranks[0].families.find(f => f.name === 'gemm');
    ok('page-tooltip-family', gi > 0 && tipText.startsWith('gemm') && /total .*self /.test(tipText) && tipText.includes('per step') &&
       tipText.includes('calls ') && fam.top.every(k => tipText.includes(k.name)), tipText.slice(0, 300));
    // each top kernel with its launch configuration (grid, block, registers, occupancy; issue 26)
    ok('page-tooltip-launch-config', fam.top.some(k => k.cfg) && fam.top.every(k => !k.cfg || tipText.includes(k.name + '  (' + k.cfg + ')')),
       tipText.slice(0, 400));
    ok('page-decode-no-errors', rec.errors.length === 0 && rec.requests.length === 0, rec.errors.join(' | '));
    await page.close();
  }

  // ---- many ranks: two corpus ranks (no process group: the fallback) ----
  {
    const D = pageData(join(dir, 'ranks.html'));
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
    await page.screenshot({ path: join(shots, 'ranks.png') });
    ok('page-ranks-no-errors', rec.errors.length === 0 && rec.requests.length === 0, rec.errors.join(' | '));
    await page.close();
  }

  // ---- two process groups, each with its own straggler (ranks 1 and 5) ----
  {
    const D = pageData(join(dir, 'pg2.html'));
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
    // the pointer over the middle of row 682 (one px a row), exactly
    await page.evaluate(() => { const e = document.getElementById('heat'), r = e.getBoundingClientRect();
      e.dispatchEvent(new MouseEvent('mousemove', { clientX: r.left + 30, clientY: r.top + 682.5, bubbles: true })); });
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

  // ---- diff: the red/blue graph, the change table, the noise line ----
  {
    const D = pageData(join(dir, 'diff.html'));
    const { page, rec } = await open('diff.html');
    const f = await page.evaluate(() => [...document.querySelectorAll('svg.flame g.fr rect')].map(r => r.getAttribute('fill')));
    const fills = new Set(D.graph.fills);
    ok('page-diff-graph', f.length > 1 && f.every(x => fills.has(x)) && f.some(x => /^rgb\(255,/.test(x) || /,255\)$/.test(x)), `${f.length}`);
    const rows = await page.locator('table.changes tbody tr').count();
    ok('page-diff-changes', rows === D.changes.length && rows > 0, `${rows}`);
    const meta = await page.evaluate(() => [...document.querySelectorAll('p.meta, p.note')].map(p => p.textContent).join(' '));
    ok('page-diff-noise', meta.includes(`${D.noise.grew} frames grew`) && meta.includes('red = grew'), meta);
    await page.locator('#search').fill('nccl|gemm');
    const hits = await page.locator('svg.flame g.fr.match').count();
    ok('page-diff-search', hits > 0, `${hits}`);
    await page.screenshot({ path: join(shots, 'diff.png') });
    ok('page-diff-no-errors', rec.errors.length === 0 && rec.requests.length === 0, rec.errors.join(' | '));
    await page.close();
  }

  // ---- hostile names: nothing becomes markup or script ----
  for (const file of ['hostile.html', 'hdiff.html']) {
    const { page, rec } = await open(file);
    for (const t of ['wall', 'gpu', 'cpu']) {
      const b = page.locator(`.tabs button[data-tab="${t}"]`);
      if (await b.count()) await b.click();
    }
    await page.locator('#search').fill('script|img');
    const counts = await page.evaluate(() => ({ img: document.querySelectorAll('img').length, iframe: document.querySelectorAll('iframe').length,
      script: document.scripts.length, b: document.querySelectorAll('b:not(.verdict b)').length,
      svgOnload: document.querySelectorAll('svg[onload]').length,
      text: document.body.textContent }));
    ok(`page-hostile-no-elements ${file}`, counts.img === 0 && counts.iframe === 0 && counts.script === 2 && counts.svgOnload === 0 && counts.b === 0,
       JSON.stringify({ ...counts, text: undefined }));
    ok(`page-hostile-names-as-text ${file}`, counts.text.includes(file === 'hdiff.html' ? '<img src=x onerror=alert(4)>' : '</script><script>alert(1)</script>'),
       'the hostile name is not shown as text');
    if (file === 'hdiff.html') ok('page-hostile-invalid-utf8', counts.text.includes('\ufffd\ufffd bad'), 'U+FFFD not shown');
    ok(`page-hostile-no-dialog ${file}`, rec.dialogs.length === 0, rec.dialogs.join(' | '));
    ok(`page-hostile-no-errors ${file}`, rec.errors.length === 0 && rec.requests.length === 0, rec.errors.join(' | ') + rec.requests.join(' '));
    await page.screenshot({ path: join(shots, file.replace('.html', '.png')) });
    await page.close();
  }
} catch (e) {
  failed++;
  console.log(`FAIL page-run: ${String(e).split('\n')[0]}`);
} finally {
  await browser.close();
  rmSync(profile, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
