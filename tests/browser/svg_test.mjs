// svg_test.mjs — the interactive SVG in headless Chromium (playwright-core
// driving Debian's /usr/bin/chromium). Prints PASS/FAIL lines.
//
// usage: node svg_test.mjs FILE.svg
// The SVG is rendered by run.sh from a profile with known answers:
//   main;alpha;beta 30 / main;alpha 10 / main;gamma;beta 20 /
//   main;gamma;beta;beta 10 / main;delta 40      (total 110)
// so /beta/ matches 30 + 30 (the nested beta counted once) = 54.55 % of the
// total, and all (100 %) of the zoomed frame gamma.
import { chromium } from 'playwright-core';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const file = resolve(process.argv[2]);
let failed = 0;
const ok = (name, cond, why) => {
  if (cond) console.log(`PASS ${name}`);
  else { failed++; console.log(`FAIL ${name}: ${why ?? ''}`); }
};

const profile = mkdtempSync(join(tmpdir(), 'gf-chromium-'));
// a fresh --user-data-dir (playwright passes it for a persistent context)
const browser = await chromium.launchPersistentContext(profile, {
  executablePath: '/usr/bin/chromium',
  headless: true,
  viewport: { width: 1300, height: 400 },
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
         '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
try {
  const page = await browser.newPage();
  const errors = [];
  page.on('console', m => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', e => errors.push(String(e)));
  await page.goto(pathToFileURL(file).href);
  await page.waitForFunction(() => typeof search === 'function' && typeof resetZoom === 'function');

  const frameInfo = () => page.evaluate(() => {
    const out = {};
    for (const g of document.querySelectorAll('#frames > g')) {
      const t = g.querySelector('title').textContent;
      const name = t.substring(0, t.lastIndexOf(' ('));
      const r = g.querySelector('rect');
      (out[name] ??= []).push({ cls: g.getAttribute('class') || '', x: r.getAttribute('x'),
        w: r.getAttribute('width'), fill: r.getAttribute('fill'),
        label: g.querySelector('text').textContent });
    }
    return out;
  });
  const matched = () => page.evaluate(() => document.getElementById('matched').textContent);
  const before = await frameInfo();
  ok('browser-frames-drawn', before.all && before.gamma && before.beta?.length === 3,
     JSON.stringify(Object.keys(before)));

  // click a frame: it zooms to the full width, others hide, ancestors fade
  const gamma = page.locator('#frames > g', { has: page.locator('title', { hasText: /^gamma \(/ }) });
  await gamma.locator('rect').click();
  let f = await frameInfo();
  ok('browser-zoom-full-width', f.gamma[0].w === '1180.0' && f.gamma[0].x === '10.0',
     JSON.stringify(f.gamma));
  ok('browser-zoom-hides-others', f.alpha[0].cls.includes('hide') && f.delta[0].cls.includes('hide'),
     JSON.stringify([f.alpha, f.delta]));
  ok('browser-zoom-parents', f.all[0].cls.includes('parent') && f.main[0].cls.includes('parent'),
     JSON.stringify([f.all, f.main]));
  const kids = f.beta.filter(b => !b.cls.includes('hide'));
  ok('browser-zoom-children-rescaled', kids.length === 2 && kids.every(b => b.w === '1180.0' || b.w === '393.3'),
     JSON.stringify(f.beta));
  ok('browser-zoom-label', f.gamma[0].label === 'gamma', f.gamma[0].label);
  const unzoomShown = await page.evaluate(() => !document.getElementById('unzoom').classList.contains('hide'));
  ok('browser-unzoom-shown', unzoomShown);

  // search while zoomed: percent of the whole profile, nested match counted once
  const pct = await page.evaluate(() => search('beta'));
  ok('browser-search-returns-pct', pct === 54.55, String(pct));
  let m = await matched();
  ok('browser-search-matched-zoomed', m === 'Matched: 54.55% (100.00% of zoomed frame)', m);
  f = await frameInfo();
  ok('browser-search-highlight', f.beta.every(b => b.fill === 'rgb(230,0,230)') &&
     f.alpha[0].fill !== 'rgb(230,0,230)', JSON.stringify(f.beta));

  // reset zoom restores the geometry; the match stays right
  await page.evaluate(() => resetZoom());
  f = await frameInfo();
  const same = Object.keys(before).every(k => before[k].every((b, i) =>
    b.x === f[k][i].x && b.w === f[k][i].w && b.label === f[k][i].label && !f[k][i].cls.includes('hide')));
  ok('browser-reset-zoom-restores', same, JSON.stringify(f.gamma));
  m = await matched();
  ok('browser-matched-after-reset', m === 'Matched: 54.55%', m);

  // the human UI: the button reads "Reset Search" while searching; then it
  // prompts for a regular expression
  await page.locator('#search').click();
  ok('browser-search-button-resets', (await matched()).trim() === '' &&
     (await page.locator('#search').textContent()) === 'Search', await matched());
  page.once('dialog', d => d.accept('^alpha$'));
  await page.locator('#search').click();
  m = await matched();
  ok('browser-search-ui', m === 'Matched: 36.36%', m);
  await page.locator('#search').click();
  f = await frameInfo();
  const fillsBack = Object.keys(before).every(k => before[k].every((b, i) => b.fill === f[k][i].fill));
  ok('browser-reset-search-restores', fillsBack && (await matched()).trim() === '', await matched());

  // clicking the root zooms out; a bad regex is reported, no exception
  await gamma.locator('rect').click();
  await page.locator('#frames > g', { has: page.locator('title', { hasText: /^all \(/ }) }).locator('rect').click();
  f = await frameInfo();
  ok('browser-root-click-unzooms', !f.alpha[0].cls.includes('hide') && f.gamma[0].w === before.gamma[0].w);
  const bad = await page.evaluate(() => search('('));
  ok('browser-bad-regex', bad === -1 && (await matched()) === 'Invalid regular expression', String(bad));

  // mouse-over details line
  await gamma.locator('rect').hover();
  const det = await page.evaluate(() => document.getElementById('details').textContent);
  ok('browser-details', det.startsWith('Function: gamma (30 samples, 27.27%)'), det);

  ok('browser-no-console-errors', errors.length === 0, errors.join(' | '));
} catch (e) {
  failed++;
  console.log(`FAIL browser-run: ${String(e).split('\n')[0]}`);
} finally {
  await browser.close();
  rmSync(profile, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
