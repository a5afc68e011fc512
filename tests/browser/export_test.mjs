// export_test.mjs — gpuflame's exports against the ecosystem's own code
// (run by tests/cli/export_stacks.sh). Prints PASS/FAIL lines.
//
//   node export_test.mjs schema FILE.speedscope.json
//       validates against the schema the npm speedscope package ships
//       (dist/release/file-format-schema.json) with ajv
//   node export_test.mjs pprof FILE.pb.gz TYPE=TOTAL...
//       decodes with npm pprof-format; each sample type's name and the sum
//       of its values (BigInt, exact) must be as given
//   node export_test.mjs app FILE.speedscope.json ROOT TOTAL NAME...
//       opens speedscope's built app (dist/release/index.html) from file://
//       in headless Chromium (Debian's, through playwright-core), imports the
//       file through its "Browse" input, switches to the Sandwich view and
//       checks the table: every NAME is listed, and ROOT's total reads TOTAL
//       (as speedscope prints it, e.g. "41.75µs", before its share)
import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { tmpdir } from 'node:os';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
let failed = 0;
const ok = (name, cond, why) => {
  if (cond) console.log(`PASS ${name}`);
  else { failed++; console.log(`FAIL ${name}: ${why ?? ''}`); }
};
const [mode, file, ...rest] = process.argv.slice(2);

if (mode === 'schema') {
  const { default: Ajv } = await import('ajv');
  const schema = JSON.parse(readFileSync(join(here, 'node_modules/speedscope/dist/release/file-format-schema.json')));
  const ajv = new Ajv({ allErrors: true, strict: false });
  const valid = ajv.validate(schema, JSON.parse(readFileSync(file, 'utf8')));
  ok('export-speedscope-schema', valid, JSON.stringify(ajv.errors)?.slice(0, 400));
} else if (mode === 'pprof') {
  const { Profile } = await import('pprof-format');
  const p = Profile.decode(gunzipSync(readFileSync(file)));
  const s = p.stringTable.strings;
  const want = rest.map(x => x.split('='));
  ok('export-pprof-decode-types', p.sampleType.length === want.length &&
     want.every(([t], i) => s[Number(p.sampleType[i].type)] === t),
     p.sampleType.map(v => s[Number(v.type)]).join(','));
  const sums = p.sampleType.map(() => 0n);
  for (const smp of p.sample)
    smp.value.forEach((v, i) => { sums[i] += BigInt(v); });
  ok('export-pprof-decode-totals', want.every(([, tot], i) => sums[i] === BigInt(tot)),
     `got ${sums.join(',')}, want ${want.map(w => w[1]).join(',')}`);
  ok('export-pprof-decode-names', p.function.every(f => typeof s[Number(f.name)] === 'string') &&
     p.location.every(l => l.line.length === 1), '');
} else if (mode === 'app') {
  const { chromium } = await import('playwright-core');
  const [root, total, ...names] = rest;
  const profile = mkdtempSync(join(tmpdir(), 'gf-chromium-'));
  const browser = await chromium.launchPersistentContext(profile, {
    executablePath: '/usr/bin/chromium', headless: true, viewport: { width: 1300, height: 900 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
           '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  try {
    const page = await browser.newPage();
    const errors = [];
    page.on('pageerror', e => errors.push(String(e)));
    page.on('console', m => { if (m.type() === 'error') errors.push(m.text()); });
    await page.goto(pathToFileURL(join(here, 'node_modules/speedscope/dist/release/index.html')).href);
    await page.locator('input[type=file]').setInputFiles(resolve(file));
    await page.getByText('Sandwich').click({ timeout: 20000 });
    await page.waitForFunction(() => document.body.innerText.includes('Symbol Name'), null, { timeout: 20000 });
    const rows = await page.evaluate(() => {
      // each row: total, self, name (the table's cells in order)
      const out = [];
      for (const tr of document.querySelectorAll('tr')) {
        const td = [...tr.querySelectorAll('td')].map(x => x.innerText.trim());
        if (td.length >= 3) out.push(td);
      }
      return out;
    });
    const byName = new Map(rows.map(r => [r[2], r]));
    ok('export-speedscope-app-names', names.every(n => byName.has(n)),
       `missing ${names.filter(n => !byName.has(n)).join(', ')} in ${[...byName.keys()].join(', ')}`);
    const r = byName.get(root);
    ok('export-speedscope-app-total', r && r[0].startsWith(total + ' ('), r ? r[0] : 'no row ' + root);
    ok('export-speedscope-app-no-errors', errors.length === 0, errors.join(' | '));
  } finally {
    await browser.close();
    rmSync(profile, { recursive: true, force: true });
  }
} else {
  console.log(`FAIL export-test: unknown mode ${mode}`);
  failed++;
}
process.exit(failed ? 1 : 0);
