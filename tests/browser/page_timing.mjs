// page_timing.mjs — first paint, the time to draw every graph tab, the zoom
// click of the widest-drawn graph's widest non-root frame, a search, and a
// zoom of the step timeline, on one page (bench/bench_html.sh runs it on the
// benchmark trace's page). Printed, not asserted.
//
// usage: node page_timing.mjs PAGE.html
import { chromium } from 'playwright-core';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const file = resolve(process.argv[2]);
const profile = mkdtempSync(join(tmpdir(), 'gf-chromium-'));
const browser = await chromium.launchPersistentContext(profile, {
  executablePath: '/usr/bin/chromium', headless: true, viewport: { width: 1400, height: 900 },
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
});
let rc = 0;
try {
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', e => errors.push(String(e)));
  page.on('console', m => { if (m.type() === 'error') errors.push(m.text()); });
  const t0 = Date.now();
  await page.goto(pathToFileURL(file).href);
  await page.waitForSelector('html[data-ready]', { timeout: 60000 });
  const load = Date.now() - t0;
  const fcp = await page.evaluate(() => performance.getEntriesByType('paint').find(e => e.name === 'first-contentful-paint')?.startTime ?? -1);
  console.log(`page ${(statSync(file).size / 1048576).toFixed(2)} MiB: first contentful paint ${fcp.toFixed(0)} ms, ready ${load} ms`);
  for (const tab of ['gpu', 'cpu', 'wall', 'idle']) {
    const b = page.locator(`.tabs button[data-tab="${tab}"]`);
    if (!(await b.count())) continue;
    const r = await page.evaluate(t => {
      const b = document.querySelector(`.tabs button[data-tab="${t}"]`);
      const a = performance.now(); b.click(); const tabMs = performance.now() - a;
      const frames = [...document.querySelectorAll(`.panel.active svg.flame g.fr`)];
      const widest = frames.filter(f => f.getAttribute('data-i') !== '0')
        .sort((x, y) => +y.querySelector('rect').getAttribute('width') - +x.querySelector('rect').getAttribute('width'))[0];
      if (!widest) return { tabMs, n: frames.length, zoomMs: -1, resetMs: -1 };
      const c = performance.now(); widest.querySelector('rect').dispatchEvent(new MouseEvent('click', { bubbles: true }));
      const zoomMs = performance.now() - c;
      const d = performance.now(); document.querySelector('.panel.active button.reset').click();
      return { tabMs, n: frames.length, zoomMs, resetMs: performance.now() - d };
    }, tab);
    console.log(`  ${tab}: ${r.n} frames, tab ${r.tabMs.toFixed(1)} ms, zoom ${r.zoomMs.toFixed(1)} ms, reset ${r.resetMs.toFixed(1)} ms`);
  }
  const s = await page.evaluate(() => { const i = document.getElementById('search'); const a = performance.now();
    i.value = 'aten'; i.dispatchEvent(new Event('input')); return performance.now() - a; });
  console.log(`  search 'aten' over every graph: ${s.toFixed(1)} ms`);
  // the step timeline: blocks drawn, a zoom in and back
  const tl = await page.evaluate(() => {
    const n = document.querySelectorAll('svg.timeline g.seg').length;
    const zin = document.querySelector('button.tlin'), reset = document.querySelector('button.tlreset');
    if (!zin) return null;
    const a = performance.now(); zin.click(); const zoomMs = performance.now() - a;
    const b = performance.now(); reset.click(); const resetMs = performance.now() - b;
    return { n, zoomMs, resetMs, merged: document.querySelector('.tlmerged')?.textContent || '' };
  });
  if (tl) console.log(`  timeline: ${tl.n} blocks, zoom ${tl.zoomMs.toFixed(1)} ms, reset ${tl.resetMs.toFixed(1)} ms\n  ${tl.merged}`);
  else console.log('  timeline: none on the page');
  if (errors.length) { console.log('page errors: ' + errors.join(' | ')); rc = 1; }
} finally {
  await browser.close();
  rmSync(profile, { recursive: true, force: true });
}
process.exit(rc);
