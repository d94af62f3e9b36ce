// End-to-end test in real VS Code: code-server (from npm) with the
// linux-x64 platform .vsix installed (restls inside, at
// bin/linux-x64/restls, as `make dist` packs it) and no restls on PATH or
// in the settings, driven by Playwright through Debian's Chromium.
//
// It opens an example script in a workspace whose configuration is the
// repository's testdata/config plus one loopback service, types
// `api.rest.v1.get("`, expects the configured serviceIds in the suggest
// widget, runs "restls: Dry-run Script" on a script that calls the loopback
// mock and expects the Response Preview (one progress notification while
// it runs; a hostile response body shown as text); then clicks the "Record
// mocks" CodeLens above that script and the "Dry run with mocks" one that
// appears, and expects the preview to say it answered from
// dry-run.mock.yaml without calling the service. Then contract.js, whose
// loopback answer breaks openapi/shop.yaml (the restls.openapi setting):
// the preview shows "? contract (rule)" notes beside the call; run twice,
// "Compare the Last Dry Run with the Previous One" shows the diff text.
// Then application.yml's CodeLenses ("2 scripts call this" above geo's
// entry, "not called by any script"), the references they open, and F2 on
// geo in address.js: the Refactor Preview holds the configuration edit
// restls marks as needing confirmation; once confirmed and applied, both
// scripts and application.yml name the new id. Then the Testing view runs
// the cases of tests/summary.test.yaml: one passes, one fails, its peek at
// the case's line with expected and actual. Then the Services view:
// the serviceIds under Scripts, a click opens the definition; then the
// status bar item: the "staging" environment (e2e/staging-config), after
// which completion offers staging's serviceIds instead.
// Before the environments: the restls debug type (e2e/debug.mjs) stops
// at a breakpoint, reads a variable, steps and continues; then fault
// exploration (e2e/faults.mjs): the "Faults" CodeLens after "restls:
// Explore Faults of This Script", and the quick fix that adds a failing
// outcome as a test case.
// Then the last run's values (e2e/values.mjs): after a dry run, each
// variable's value at the end of its line; an edited line loses it; and
// coverage: tests/cover.test.yaml run with coverage from the Testing view,
// the Test Coverage view's share for cover.js.
// Screenshots go to out/e2e-vscode/. E2E_ONLY=debug (or faults, values,
// coverage) runs that part alone, after the status bar's first answer.
//
// Usage: node e2e/run.mjs   (from vscode-extension/, after `npm run build`
// and e2e/install-code-server.sh). It packs the platform .vsix itself from a
// staging copy, unless E2E_VSIX names one (dist/restls-<v>-linux-x64.vsix).
// Environment: RESTLS_BIN (default ../bin/restls, the binary packed),
// CODE_SERVER_DIR (default ../out/code-server), E2E_OUT (default
// ../out/e2e-vscode), CHROMIUM (default /usr/bin/chromium).

import { spawn, execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { debugScript } from './debug.mjs';
import { faultsSteps, writeFaultsScript } from './faults.mjs';
import { coverageSteps, valuesSteps, writeCoverScript, writeValuesScript } from './values.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const extDir = path.resolve(here, '..');
const repo = path.resolve(extDir, '..');
const restlsBin = path.resolve(process.env.RESTLS_BIN ?? path.join(repo, 'bin', 'restls'));
const csDir = path.resolve(process.env.CODE_SERVER_DIR ?? path.join(repo, 'out', 'code-server'));
const outDir = path.resolve(process.env.E2E_OUT ?? path.join(repo, 'out', 'e2e-vscode'));
const chromiumPath = process.env.CHROMIUM ?? '/usr/bin/chromium';
const version = JSON.parse(fs.readFileSync(path.join(extDir, 'package.json'), 'utf8')).version;
const codeServer = path.join(csDir, 'node_modules', '.bin', 'code-server');

const started = Date.now();
const step = (msg) => console.log(`[e2e ${((Date.now() - started) / 1000).toFixed(1)}s] ${msg}`);

for (const [what, p] of [
  ['restls binary (make build)', restlsBin],
  ['the bundled extension (npm run build)', path.join(extDir, 'dist', 'extension.js')],
  ['code-server (e2e/install-code-server.sh)', codeServer],
  ['chromium (apt-get install chromium)', chromiumPath],
]) {
  if (!fs.existsSync(p)) {
    console.error(`e2e: missing ${what}: ${p}`);
    process.exit(1);
  }
}
fs.rmSync(outDir, { recursive: true, force: true });
fs.mkdirSync(outDir, { recursive: true });
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'restls-e2e-'));

// The linux-x64 platform .vsix: a staging copy of the extension with the
// binary at bin/linux-x64/restls, packed with vsce --target, as `make dist`
// does (RESTLS_ROOT tells its build where the schemas are).
let vsix = process.env.E2E_VSIX ? path.resolve(process.env.E2E_VSIX) : '';
if (!vsix) {
  const stageRoot = path.join(tmp, 'stage');
  const stage = path.join(stageRoot, 'vscode-extension');
  fs.mkdirSync(stage, { recursive: true });
  const skip = new Set(['node_modules', 'bin', 'out', 'e2e']);
  for (const name of fs.readdirSync(extDir)) {
    if (!skip.has(name) && !name.endsWith('.vsix')) {
      fs.cpSync(path.join(extDir, name), path.join(stage, name), { recursive: true });
    }
  }
  fs.symlinkSync(path.join(extDir, 'node_modules'), path.join(stage, 'node_modules'));
  fs.mkdirSync(path.join(stage, 'bin', 'linux-x64'), { recursive: true });
  fs.copyFileSync(restlsBin, path.join(stage, 'bin', 'linux-x64', 'restls'));
  fs.chmodSync(path.join(stage, 'bin', 'linux-x64', 'restls'), 0o755);
  const license = path.join(repo, 'LICENSE');
  if (fs.existsSync(license)) {
    fs.copyFileSync(license, path.join(stage, 'LICENSE'));
  }
  vsix = path.join(tmp, `restls-v${version}-linux-x64.vsix`);
  step('packing the linux-x64 .vsix with the binary inside');
  execFileSync(
    'npx',
    ['--no-install', 'vsce', 'package', '--no-dependencies', '--target', 'linux-x64', ...(fs.existsSync(license) ? [] : ['--skip-license']), '-o', vsix],
    { cwd: stage, stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, RESTLS_ROOT: repo } },
  );
}
const listing = execFileSync('unzip', ['-l', vsix], { encoding: 'utf8' });
if (!/extension\/bin\/linux-x64\/restls\s*$/m.test(listing)) {
  console.error(`e2e: ${vsix} holds no extension/bin/linux-x64/restls:\n${listing}`);
  process.exit(1);
}
step(`${path.basename(vsix)}: ${(fs.statSync(vsix).size / 1e6).toFixed(1)} MB`);

// code-server runs with a PATH that has no restls: the bundled binary must
// be the one that starts.
const cleanPath = (process.env.PATH ?? '')
  .split(path.delimiter)
  .filter((d) => d && !fs.existsSync(path.join(d, 'restls')))
  .join(path.delimiter);

// The loopback mock the dry run calls. Its body carries markup that must
// stay text in the preview.
const hits = [];
let slowNext = true;
let shopAnswers = 0;
const mock = http.createServer((req, res) => {
  hits.push(`${req.method} ${req.url}`);
  if (req.url === '/shop/orders/7') {
    // The shop's answer breaks its API description (e2e/workspace/openapi/
    // shop.yaml: id minimum 1, state open or shipped), and differs from one
    // run to the next, which the run-history diff shows.
    shopAnswers++;
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ id: 0, state: shopAnswers === 1 ? 'lost' : 'gone', seen: shopAnswers }));
    return;
  }
  if (req.url !== '/orders/42') {
    // The hostile markup sits in the body of the second call, which the
    // preview must show as text.
    res.writeHead(404, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ error: 'no such order', detail: '<script>window.__pwned = true</script><img src=x onerror="window.__pwned = true">' }));
    return;
  }
  const body = JSON.stringify({
    id: 42,
    customer: { name: 'Ada Lovelace', email: 'ada@example.com' },
    items: [
      { sku: 'A-1', qty: 2 },
      { sku: 'B-7', qty: 1 },
    ],
    note: 'Deliver to the front desk',
  });
  res.writeHead(200, { 'Content-Type': 'application/json', 'X-Request-Id': 'e2e-1' });
  // The first answer is slow, so the progress shown while a dry run waits
  // can be counted.
  setTimeout(() => res.end(body), slowNext ? ((slowNext = false), 2000) : 0);
});
await new Promise((r) => mock.listen(0, '127.0.0.1', r));
const mockPort = mock.address().port;

// The workspace: testdata/config plus the loopback service, and scripts.
const ws = path.join(tmp, 'workspace');
const cfg = path.join(ws, 'config');
fs.cpSync(path.join(repo, 'testdata', 'config'), cfg, { recursive: true });
const xml = path.join(cfg, 'script-code-config', 'script-service-api.xml');
fs.writeFileSync(
  xml,
  fs
    .readFileSync(xml, 'utf8')
    .replace(
      '</scriptservice>',
      `  <api serviceId="mock-orders" url="http://127.0.0.1:${mockPort}/orders" description="Loopback mock for the end-to-end test"/>\n` +
        `  <api serviceId="mock-shop" url="http://127.0.0.1:${mockPort}/shop" description="Loopback shop whose answers break openapi/shop.yaml"/>\n</scriptservice>`,
    ),
);
fs.cpSync(path.join(here, 'workspace'), ws, { recursive: true });
writeFaultsScript(ws);
writeValuesScript(ws);
writeCoverScript(ws);
const staging = path.join(ws, 'staging-config');
fs.cpSync(path.join(here, 'staging-config'), staging, { recursive: true });

const userData = path.join(tmp, 'user-data');
const extensions = path.join(tmp, 'extensions');
fs.mkdirSync(path.join(userData, 'User'), { recursive: true });
fs.writeFileSync(
  path.join(userData, 'User', 'settings.json'),
  JSON.stringify(
    {
      // Relative to the workspace folder, as a user would write them.
      'restls.configRoot': 'config',
      'restls.environments': { test: { configRoot: 'config' }, staging: { configRoot: 'staging-config' } },
      'restls.logLevel': 'debug',
      // The shop's API description: dry runs check its answers (issue 27).
      'restls.openapi': { 'mock-shop': 'openapi/shop.yaml' },
      // A failed test opens its peek even when run from the Testing view.
      'testing.automaticallyOpenPeekView': 'failureAnywhere',
      // The rename's edits are saved, so the files on disk can be checked.
      'files.refactoring.autoSave': true,
      'workbench.startupEditor': 'none',
      'workbench.tips.enabled': false,
      'workbench.welcomePage.walkthroughs.openOnInstall': false,
      'security.workspace.trust.enabled': false,
      'telemetry.telemetryLevel': 'off',
      'update.mode': 'none',
      'extensions.autoCheckUpdates': false,
      'extensions.autoUpdate': false,
      'extensions.ignoreRecommendations': true,
      'chat.disableAIFeatures': true,
      'editor.acceptSuggestionOnEnter': 'off',
      'window.commandCenter': false,
    },
    null,
    2,
  ),
);

step(`installing ${path.basename(vsix)} into code-server`);
execFileSync(codeServer, ['--extensions-dir', extensions, '--user-data-dir', userData, '--install-extension', vsix], { stdio: 'inherit' });
const installed = fs.readdirSync(extensions).find((d) => d.startsWith('restls.restls-'));
if (!installed || !fs.existsSync(path.join(extensions, installed, 'bin', 'linux-x64', 'restls'))) {
  console.error(`e2e: the installed extension ${installed} has no bin/linux-x64/restls`);
  process.exit(1);
}
step(`installed ${installed}`);

const port = await new Promise((resolve) => {
  const s = http.createServer();
  s.listen(0, '127.0.0.1', () => {
    const p = s.address().port;
    s.close(() => resolve(p));
  });
});
step(`starting code-server on 127.0.0.1:${port}`);
const csLog = fs.createWriteStream(path.join(outDir, 'code-server.log'));
const cs = spawn(
  codeServer,
  [
    '--auth', 'none',
    '--bind-addr', `127.0.0.1:${port}`,
    '--disable-telemetry',
    '--disable-update-check',
    '--disable-workspace-trust',
    '--disable-getting-started-override',
    '--ignore-last-opened',
    '--extensions-dir', extensions,
    '--user-data-dir', userData,
    ws,
  ],
  // RESTLS_HISTORY: the dry runs' history stays in the test's directory.
  { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, PATH: cleanPath, PASSWORD: undefined, RESTLS_HISTORY: path.join(tmp, 'history') } },
);
cs.stdout.pipe(csLog);
cs.stderr.pipe(csLog);
await new Promise((resolve, reject) => {
  let seen = '';
  const onData = (d) => {
    seen += d.toString();
    if (seen.includes('HTTP server listening')) {
      cs.stdout.off('data', onData);
      resolve();
    }
  };
  cs.stdout.on('data', onData);
  cs.once('exit', (code) => reject(new Error(`code-server exited with ${code}; see ${path.join(outDir, 'code-server.log')}`)));
});

const profile = path.join(tmp, 'chromium-profile');
const context = await chromium.launchPersistentContext(profile, {
  executablePath: chromiumPath,
  headless: true,
  viewport: { width: 1400, height: 860 },
  args: [
    '--no-sandbox',
    '--disable-gpu',
    '--disable-background-networking',
    '--disable-quic',
    '--no-first-run',
    '--disable-component-update',
    '--disable-sync',
    '--disable-dev-shm-usage',
  ],
});
const page = context.pages()[0] ?? (await context.newPage());
// Generous: 2 cores shared with other builds make the workbench slow at times.
page.setDefaultTimeout(60_000);
const shot = async (name) => {
  const file = path.join(outDir, name);
  await page.screenshot({ path: file });
  step(`screenshot ${file}`);
};

let failed = false;
// onlyDone ends an E2E_ONLY run once its part passed.
const onlyDone = new Error('E2E_ONLY: done');
try {
  await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(ws)}`);
  await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
  step('workbench loaded');

  const openFile = async (name) => {
    await page.keyboard.press('Control+P');
    const input = page.locator('.quick-input-widget input');
    await input.waitFor({ state: 'visible' });
    await input.fill(name);
    await page.locator('.quick-input-list .monaco-list-row', { hasText: name }).first().waitFor();
    await page.keyboard.press('Enter');
    await page.locator('.tab.active', { hasText: name }).waitFor();
    await page.locator('.editor-instance .monaco-editor textarea').first().waitFor();
  };

  await openFile('order.js');
  step('order.js open');
  // The status bar item appears once the server has loaded the registry.
  const status = page.locator('.statusbar-item', { hasText: /restls: default · \d+ services/ });
  await status.waitFor({ timeout: 60_000 });
  step(`status bar: ${(await status.innerText()).trim()}`);
  if (process.env.E2E_ONLY === 'debug') {
    await debugScript({ page, step, shot, openFile });
    step('PASS (E2E_ONLY=debug)');
    throw onlyDone;
  }
  if (process.env.E2E_ONLY === 'faults') {
    await faultsSteps({ page, ws, cfg, restlsBin, step, shot, openFile });
    step('PASS (E2E_ONLY=faults)');
    throw onlyDone;
  }
  if (process.env.E2E_ONLY === 'values') {
    await valuesSteps({ page, step, shot, openFile });
    step('PASS (E2E_ONLY=values)');
    throw onlyDone;
  }
  if (process.env.E2E_ONLY === 'coverage') {
    await coverageSteps({ page, step, shot, openFile });
    step('PASS (E2E_ONLY=coverage)');
    throw onlyDone;
  }

  const editor = page.locator('.editor-instance .monaco-editor').first();
  await editor.click();
  await page.keyboard.press('Control+End');
  await page.keyboard.press('Enter');
  await page.keyboard.type('var r = api.rest.v1.get("', { delay: 30 });
  const suggest = page.locator('.editor-widget.suggest-widget');
  // The quote is a trigger character of restls serve. The widget waits for
  // every provider, and VS Code's own TypeScript server is slow to start on
  // 2 cores, so give it time before asking explicitly.
  try {
    await suggest.locator('.monaco-list-row', { hasText: 'crm-customers' }).first().waitFor({ timeout: 30_000 });
    step('suggest widget opened on the quote');
  } catch {
    await page.keyboard.press('Control+Space');
    await suggest.locator('.monaco-list-row', { hasText: 'crm-customers' }).first().waitFor({ timeout: 20_000 });
    step('suggest widget opened on Ctrl+Space');
  }
  const labels = await suggest.locator('.monaco-list-row .label-name').allInnerTexts();
  step(`suggest widget: ${labels.join(', ')}`);
  for (const want of ['crm', 'crm-customers', 'geo']) {
    if (!labels.some((l) => l.trim() === want)) {
      throw new Error(`serviceId ${want} missing from the suggest widget: ${labels.join(', ')}`);
    }
  }
  await shot('01-completion.png');
  await page.keyboard.press('Escape');

  await openFile('dry-run.js');
  step('dry-run.js open');
  const palette = page.locator('.quick-input-widget input');
  // runCommand runs a palette command. A command whose "when" clause
  // waits for the server (restls.isScript follows restls/documentInfo of
  // the file just opened) is not listed until then: the palette is opened
  // again until it is, within a bound.
  const runCommand = async (title, ms = 60_000) => {
    const deadline = Date.now() + ms;
    for (;;) {
      await page.keyboard.press('F1');
      await palette.waitFor({ state: 'visible' });
      await palette.fill(`>${title}`);
      const cmdRow = page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first();
      try {
        await cmdRow.waitFor({ timeout: 5_000 });
        await cmdRow.click();
        return;
      } catch (e) {
        if (Date.now() > deadline) {
          throw e;
        }
        await page.keyboard.press('Escape');
      }
    }
  };
  await runCommand('restls: Dry-run Script');
  step('dry run started');
  // While the slow first call waits: how many progress indicators say so?
  const toasts = page.locator('.notification-toast', { hasText: /dry run of dry-run\.js/ });
  await toasts.first().waitFor({ timeout: 20_000 });
  let maxToasts = 0;
  let maxWindowProgress = 0;
  for (let i = 0; i < 5; i++) {
    maxToasts = Math.max(maxToasts, await toasts.count());
    maxWindowProgress = Math.max(maxWindowProgress, await page.locator('.statusbar-item', { hasText: /dry-run\.js|running/ }).count());
    await page.waitForTimeout(150);
  }
  const toastText = (await toasts.first().innerText().catch(() => '')).replace(/\s+/g, ' ').trim();
  await shot('02a-progress.png');
  step(`progress while the run waits: ${maxToasts} notification(s), ${maxWindowProgress} status bar item(s): ${toastText}`);
  if (/running \//.test(toastText)) {
    throw new Error(`the progress notification says which script runs twice: ${toastText}`);
  }
  if (maxToasts !== 1 || maxWindowProgress !== 0) {
    throw new Error(`expected one progress notification and no status bar progress, got ${maxToasts} and ${maxWindowProgress}`);
  }

  // The preview lives in a webview: nested iframes. Find the frame with
  // our page (showing what `selector` holding `text` says, when given).
  const previewFrame = async (what, selector = 'h1', text = 'Response Preview') => {
    const deadline = Date.now() + 60_000;
    for (;;) {
      for (const f of page.frames()) {
        try {
          if ((await f.locator(selector, { hasText: text }).count()) > 0) {
            return f;
          }
        } catch {
          // Frame navigating away.
        }
      }
      if (Date.now() > deadline) {
        throw new Error(`${what} did not appear`);
      }
      await page.waitForTimeout(250);
    }
  };
  let frame = await previewFrame('the Response Preview');
  await frame.locator('.restls-call .restls-sid', { hasText: 'mock-orders' }).first().waitFor();
  const statusText = (await frame.locator('.restls-call .restls-status').first().innerText()).trim();
  const url = (await frame.locator('.restls-call .restls-url').first().innerText()).trim();
  step(`preview: call mock-orders ${url} status ${statusText}`);
  if (!statusText.startsWith('200')) {
    throw new Error(`expected status 200 in the preview, got ${statusText}`);
  }
  if (!url.includes(`127.0.0.1:${mockPort}/orders/42`)) {
    throw new Error(`unexpected URL in the preview: ${url}`);
  }
  const bodyText = await frame.locator('.restls-call').nth(1).evaluate((e) => e.textContent ?? '');
  if (!bodyText.includes('<script>window.__pwned = true</script>')) {
    throw new Error(`the hostile body of the second call is not shown as text: ${bodyText.slice(0, 400)}`);
  }
  const statuses = (await frame.locator('.restls-call .restls-status').allInnerTexts()).map((t) => t.trim());
  if (statuses.length !== 2 || !statuses[1].startsWith('404')) {
    throw new Error(`expected two calls, the second 404: ${statuses.join(', ')}`);
  }
  const result = await frame.locator('.restls-result').innerText();
  if (!result.includes('Ada Lovelace') || !result.includes('404')) {
    throw new Error(`unexpected result in the preview: ${result}`);
  }
  // The script sends X-Partner-Api-Key: secret by the server's rule, which
  // masks it before the result reaches the extension (it keeps no list).
  const firstCall = await frame.locator('.restls-call').first().evaluate((e) => e.textContent ?? '');
  if (!/X-Partner-Api-Key\s*\*\*\*/.test(firstCall) || firstCall.includes('e2e-partner-secret')) {
    throw new Error(`the secret request header is not shown masked: ${firstCall.slice(0, 600)}`);
  }
  const pwned = await frame.evaluate(() => window.__pwned === true);
  if (pwned) {
    throw new Error('a script from the response body ran in the preview');
  }
  if (!hits.some((h) => h.startsWith('GET /orders/42'))) {
    throw new Error(`the mock was not called: ${hits.join(', ')}`);
  }
  await page.waitForTimeout(300); // let the webview paint before the screenshot
  await shot('02-response-preview.png');

  // The CodeLenses above dry-run.js: record its calls, then replay them.
  const lens = (title) => page.locator('.codelens-decoration a', { hasText: title }).first();
  await page.locator('.tab', { hasText: 'dry-run.js' }).first().click();
  await lens('Record mocks').waitFor();
  const lensTitles = (await page.locator('.codelens-decoration a').allInnerTexts()).map((t) => t.trim());
  step(`CodeLenses: ${lensTitles.join(' | ')}`);
  if (lensTitles.some((t) => t.includes('Dry run with mocks'))) {
    throw new Error(`"Dry run with mocks" shown before dry-run.mock.yaml exists: ${lensTitles.join(' | ')}`);
  }
  await lens('Record mocks').click();
  step('Record mocks clicked');
  frame = await previewFrame('the preview of the recording', '.restls-mode', 'recorded to dry-run.mock.yaml');
  const recordedFile = path.join(ws, 'scripts', 'dry-run.mock.yaml');
  if (!fs.existsSync(recordedFile)) {
    throw new Error(`Record mocks wrote no ${recordedFile}`);
  }
  step(`recorded ${recordedFile} (${fs.statSync(recordedFile).size} bytes)`);
  const hitsBefore = hits.length;
  await page.locator('.tab', { hasText: 'dry-run.js' }).first().click();
  await lens('Dry run with mocks').waitFor();
  await lens('Dry run with mocks').click();
  step('Dry run with mocks clicked');
  frame = await previewFrame('the preview of the dry run with mocks', '.restls-mode', 'mocks from dry-run.mock.yaml');
  const mockedResult = await frame.locator('.restls-result').innerText();
  if (!mockedResult.includes('Ada Lovelace') || !mockedResult.includes('404')) {
    throw new Error(`unexpected result of the dry run with mocks: ${mockedResult}`);
  }
  if (hits.length !== hitsBefore) {
    throw new Error(`the dry run with mocks called the service: ${hits.slice(hitsBefore).join(', ')}`);
  }
  const copy = await frame.locator('button.restls-copy').count();
  if (copy !== 2) {
    throw new Error(`expected a Copy as cURL button per call, got ${copy}`);
  }
  step(`preview: ${(await frame.locator('.restls-summary').innerText()).trim().split('\n')[0]}`);
  await page.waitForTimeout(300);
  await shot('03-dry-run-with-mocks.png');

  // Issues 27 and 28: a dry run whose answer breaks the service's API
  // description shows "? contract (rule)" notes beside the call; a second
  // run answers otherwise, and "Compare the Last Dry Run with the Previous
  // One" shows what changed.
  // until polls check (bounded) for what the page or the disk shows.
  const until = async (what, check, ms = 30_000) => {
    const deadline = Date.now() + ms;
    for (;;) {
      if (await check()) {
        return;
      }
      if (Date.now() > deadline) {
        throw new Error(`${what}: not seen within ${ms / 1000} s`);
      }
      await page.waitForTimeout(250);
    }
  };
  const lineText = (t) => t.replace(/\u00a0/g, ' ');
  const shopHits = () => hits.filter((h) => h === 'GET /shop/orders/7').length;
  await openFile('contract.js');
  await runCommand('restls: Dry-run Script');
  step('dry run of contract.js started');
  frame = await previewFrame('the contract notes of contract.js', '.restls-contract', '? contract');
  const shopCall = frame.locator('.restls-call', { has: frame.locator('.restls-contract') }).first();
  const shopSid = (await shopCall.locator('.restls-sid').innerText()).trim();
  const mark = (await shopCall.locator('.restls-contract-mark').innerText()).trim();
  const notes = (await shopCall.locator('.restls-contract li').allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim());
  step(`preview of contract.js: ${shopSid} ${mark}: ${notes.join(' | ')}`);
  if (shopSid !== 'mock-shop' || mark !== '? contract (2)') {
    throw new Error(`expected the mark "? contract (2)" on the call of mock-shop, got ${shopSid} "${mark}"`);
  }
  for (const [rule, where] of [['minimum', '/id'], ['enum', '/state']]) {
    if (!notes.some((n) => n.startsWith(`? contract (${rule}):`) && n.includes('GET /orders/{id}') && n.includes(where))) {
      throw new Error(`no "? contract (${rule})" note on ${where} of GET /orders/{id}: ${notes.join(' | ')}`);
    }
  }
  if (shopHits() !== 1) {
    throw new Error(`expected one call of the shop, got ${shopHits()}: ${hits.join(', ')}`);
  }
  if (!(await shopCall.evaluate((e) => e.open))) {
    await shopCall.locator('summary').click();
  }
  await frame.locator('.restls-contract').first().waitFor({ state: 'visible' });
  // The run's progress notification closes once the preview is shown.
  await page.locator('.notification-toast', { hasText: /dry run of contract\.js/ }).first().waitFor({ state: 'hidden', timeout: 10_000 }).catch(() => undefined);
  await page.waitForTimeout(300);
  await shot('07-contract-notes.png');

  await page.locator('.tab[data-resource-name="contract.js"]').first().click();
  await page.locator('.tab.active[data-resource-name="contract.js"]').first().waitFor();
  await runCommand('restls: Dry-run Script');
  step('second dry run of contract.js started');
  frame = await previewFrame('the preview of the second run of contract.js', '.restls-call', '"gone"');
  if (shopHits() !== 2) {
    throw new Error(`expected two calls of the shop, got ${shopHits()}: ${hits.join(', ')}`);
  }
  await page.locator('.tab[data-resource-name="contract.js"]').first().click();
  await page.locator('.tab.active[data-resource-name="contract.js"]').first().waitFor();
  await runCommand('restls: Compare the Last Dry Run with the Previous One');
  const diffView = page.locator('.editor-instance .monaco-editor .view-lines', { hasText: 'previous run' }).first();
  await diffView.waitFor();
  const diffText = lineText(await diffView.innerText());
  step(`run diff:\n${diffText}`);
  for (const want of ['(1 call) →', '~ call 1 mock-shop GET', 'body $.state: "lost" → "gone"', 'body $.seen: 1 → 2', 'result $.state: "lost" → "gone"']) {
    if (!diffText.includes(want)) {
      throw new Error(`the diff of the last two runs lacks ${JSON.stringify(want)}:\n${diffText}`);
    }
  }
  await page.waitForTimeout(300);
  await shot('08-run-diff.png');

  // Issue 26: the CodeLens on application.yml's entries, references from
  // one, and a rename of a serviceId across two scripts and the
  // configuration.
  await page.keyboard.press('Control+P');
  await palette.waitFor({ state: 'visible' });
  await palette.fill('application.yml');
  const appRow = page.locator('.quick-input-list .monaco-list-row', { has: page.locator('.label-description', { hasText: /^config$/ }) }).first();
  await appRow.waitFor();
  await appRow.click();
  await page.locator('.tab.active', { hasText: 'application.yml' }).waitFor();
  const group = page.locator('.editor-group-container.active');
  const geoLens = group.locator('.codelens-decoration', { hasText: '2 scripts call this' }).first();
  await geoLens.waitFor();
  await group.locator('.codelens-decoration', { hasText: 'not called by any script' }).first().waitFor();
  const cfgLenses = (await group.locator('.codelens-decoration').allInnerTexts()).map((t) => lineText(t).trim());
  step(`CodeLenses in application.yml: ${cfgLenses.join(' | ')}`);
  // The lens sits above the line it counts for: geo's entry.
  const lensBox = await geoLens.boundingBox();
  const below = await group.locator('.monaco-editor .view-lines .view-line').evaluateAll(
    (lines, top) =>
      lines
        .map((l) => ({ y: l.getBoundingClientRect().top, text: l.textContent ?? '' }))
        .filter((l) => l.y >= top)
        .sort((a, b) => a.y - b.y)[0]?.text ?? '',
    lensBox ? lensBox.y + lensBox.height / 2 : 0,
  );
  if (!/serviceId:\s*geo\s*$/.test(lineText(below))) {
    throw new Error(`"2 scripts call this" is not above geo's entry but above ${JSON.stringify(lineText(below))}`);
  }
  await page.waitForTimeout(300);
  await shot('09-config-codelens.png');
  await geoLens.locator('a').click();
  const refs = page.locator('.reference-zone-widget');
  await refs.locator('.monaco-list-row', { hasText: 'route.js' }).first().waitFor();
  const refRows = (await refs.locator('.monaco-list-row').allInnerTexts()).map((t) => lineText(t).replace(/\s+/g, ' ').trim());
  step(`references of geo: ${refRows.join(' | ')}`);
  for (const want of ['address.js', 'route.js']) {
    if (!refRows.some((r) => r.includes(want))) {
      throw new Error(`${want} missing from the references of geo: ${refRows.join(' | ')}`);
    }
  }
  await page.waitForTimeout(300);
  await shot('10-config-references.png');
  await page.keyboard.press('Escape');
  try {
    await refs.waitFor({ state: 'hidden', timeout: 5_000 });
  } catch {
    await refs.locator('.codicon-close').first().click();
    await refs.waitFor({ state: 'hidden' });
  }

  await openFile('address.js');
  await page.keyboard.press('Control+G');
  await palette.waitFor({ state: 'visible' });
  await palette.fill(':5:33'); // on "geo" in api.rest.v1.get("geo", ...
  await page.keyboard.press('Enter');
  await palette.waitFor({ state: 'hidden' });
  await page.keyboard.press('F2');
  const renameInput = page.locator('.rename-box input.rename-input');
  await renameInput.waitFor({ state: 'visible' });
  const oldID = await renameInput.inputValue();
  if (oldID !== 'geo') {
    throw new Error(`the rename box offers ${JSON.stringify(oldID)}, not geo`);
  }
  await renameInput.fill('geo-v2');
  await page.keyboard.press('Enter');
  // The configuration edit needs confirmation: VS Code shows the Refactor
  // Preview with it unchecked.
  const bulk = page.locator('.bulk-edit-panel');
  await bulk.locator('.monaco-list-row', { hasText: 'application.yml' }).first().waitFor();
  const unchecked = bulk.locator('input.edit-checkbox:not(:checked)');
  await unchecked.first().waitFor({ timeout: 10_000 });
  const toConfirm = (await bulk.locator('.monaco-list-row', { has: page.locator('input.edit-checkbox:not(:checked)') }).allInnerTexts()).map((t) =>
    t.replace(/\s+/g, ' ').trim(),
  );
  if (!toConfirm.some((t) => t.includes('application.yml'))) {
    throw new Error(`the configuration edit does not wait for confirmation in the Refactor Preview: ${toConfirm.join(' | ')}`);
  }
  step(`Refactor Preview: unchecked until confirmed: ${toConfirm.join(' | ')}`);
  // Check them all: a file's box checks its edits, and the tree redraws
  // after each click, so look again each time.
  await until('every edit of the rename checked', async () => {
    if ((await unchecked.count()) === 0) {
      return true;
    }
    await unchecked
      .first()
      .click({ timeout: 2_000 })
      .catch(() => undefined);
    return false;
  });
  const previewRows = (await bulk.locator('.monaco-list-row').allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim());
  step(`Refactor Preview: ${previewRows.join(' | ')}`);
  await page.waitForTimeout(300);
  await shot('11-rename-preview.png');
  if ((await unchecked.count()) > 0) {
    throw new Error('an edit of the rename is still unchecked in the Refactor Preview');
  }
  await page.locator('.monaco-button', { hasText: /^Apply$/ }).first().click();
  // The edits are saved (files.refactoring.autoSave): both scripts and the
  // configuration name geo-v2 on disk.
  const onDisk = {
    'scripts/address.js': /get\("geo-v2"/,
    'scripts/route.js': /get\("geo-v2"/,
    'config/application.yml': /serviceId: geo-v2\n/,
  };
  await until('geo-v2 in both scripts and application.yml on disk', () =>
    Object.entries(onDisk).every(([f, re]) => re.test(fs.readFileSync(path.join(ws, f), 'utf8'))),
  );
  for (const f of Object.keys(onDisk)) {
    if (/"geo"|serviceId: geo\n/.test(fs.readFileSync(path.join(ws, f), 'utf8'))) {
      throw new Error(`${f} still names geo after the rename`);
    }
  }
  await openFile('address.js');
  await page.locator('.editor-group-container.active .view-lines', { hasText: 'get("geo-v2"' }).first().waitFor();
  await page.locator('.tab[data-resource-name="application.yml"]').first().click();
  await page.locator('.editor-group-container.active .view-lines', { hasText: 'serviceId: geo-v2' }).first().waitFor();
  step('renamed geo to geo-v2 in address.js, route.js and config/application.yml');
  // The lens above geo-v2 counts both scripts once the server has seen
  // them change on disk and asked VS Code to refresh its lenses
  // (workspace/codeLens/refresh); before that request existed it kept
  // "1 script calls this", fetched while the rename was half applied.
  await page
    .locator('.editor-group-container.active .codelens-decoration', { hasText: '2 scripts call this' })
    .first()
    .waitFor({ timeout: 20_000 });
  step('the lens above geo-v2 says "2 scripts call this"');
  await page.waitForTimeout(300);
  await shot('12-renamed.png');

  // Issue 28: the Testing view runs the cases of tests/summary.test.yaml,
  // one passing, one failing; the failure is shown at the case's line with
  // what was expected and what came.
  await openFile('summary.test.yaml');
  const testingIcon = page.locator('.activitybar .action-item .action-label[aria-label^="Testing"]').first();
  if ((await testingIcon.count()) > 0) {
    await testingIcon.click();
  } else {
    await runCommand('Focus on Test Explorer View');
  }
  const sidebar = page.locator('.part.sidebar');
  const fileRow = sidebar.locator('.monaco-list-row', { hasText: 'summary.test.yaml' }).first();
  await fileRow.waitFor();
  const caseRow = (name) => sidebar.locator('.monaco-list-row', { hasText: name }).first();
  if ((await fileRow.getAttribute('aria-expanded')) !== 'true') {
    await fileRow.locator('.monaco-tl-twistie').click();
  }
  await caseRow('wrong name').waitFor();
  const runCase = async (name) => {
    await caseRow(name).hover();
    await caseRow(name).locator('.action-label.codicon-testing-run-icon').click();
  };
  await runCase('finds the customer');
  await caseRow('finds the customer').locator('.computed-state.codicon-testing-passed-icon').waitFor();
  step('test "finds the customer" passed');
  await runCase('wrong name');
  await caseRow('wrong name').locator('.computed-state.codicon-testing-failed-icon').waitFor();
  step('test "wrong name" failed');
  const peek = page.locator('.test-output-peek').first();
  await peek.locator('.view-line', { hasText: 'Bob' }).first().waitFor();
  await peek.locator('.view-line', { hasText: 'Ann' }).first().waitFor();
  const peekText = lineText(await peek.innerText()).replace(/\s+/g, ' ');
  step(`test peek: ${peekText.slice(0, 300)}`);
  // The peek opens right below the case's line (10: "- name: wrong name").
  // Measured until the editor's reveal scroll has settled (up to 5 s):
  // a box taken mid-scroll put the peek above its line once in CI.
  const testEditor = page.locator('.monaco-editor', { has: page.locator('.test-output-peek') }).first();
  const atLine = (p, l) => p && l && p.y >= l.y + l.height - 2 && p.y <= l.y + 3 * l.height;
  let peekBox, caseLine;
  for (let t0 = Date.now(); ; await page.waitForTimeout(100)) {
    peekBox = await peek.boundingBox();
    caseLine = await testEditor.locator('.view-line', { hasText: 'name: wrong name' }).first().boundingBox();
    if (atLine(peekBox, caseLine) || Date.now() - t0 > 5000) {
      break;
    }
  }
  if (!atLine(peekBox, caseLine)) {
    throw new Error(`the failure peek is not at the case's line: peek ${JSON.stringify(peekBox)}, line ${JSON.stringify(caseLine)}`);
  }
  await page.waitForTimeout(300);
  await shot('13-testing-view.png');
  await page.keyboard.press('Escape');

  // The Services view in the Explorer: kinds -> serviceIds; a click opens
  // the definition.
  // Close the preview: room for the editor in the screenshots below.
  await page.locator('.tab', { hasText: 'Response Preview' }).first().locator('.codicon-close').click();
  await page.locator('.tab', { hasText: 'Response Preview' }).waitFor({ state: 'detached' });
  await page.locator('.tab', { hasText: 'order.js' }).first().click();
  await page.keyboard.press('Control+Shift+E');
  const pane = page.locator('.pane', { has: page.locator('.pane-header', { hasText: /restls Services/i }) });
  await pane.waitFor();
  if ((await pane.locator('.pane-header[aria-expanded="false"]').count()) > 0) {
    await pane.locator('.pane-header').click();
  }
  // Room for the view: fold the file tree.
  const folder = page.locator('.pane-header[aria-expanded="true"]', { hasText: /^workspace/i }).first();
  if ((await folder.count()) > 0) {
    await folder.click();
  }
  const row = (text) => pane.locator('.monaco-list-row', { has: page.locator('.label-name', { hasText: new RegExp(`^${text}$`) }) }).first();
  await row('crm-customers').waitFor();
  const rows = (await pane.locator('.monaco-list-row .label-name').allInnerTexts()).map((t) => t.trim());
  step(`Services view: ${rows.join(', ')}`);
  for (const want of ['Scripts (scriptService)', 'crm', 'crm-customers']) {
    if (!rows.includes(want)) {
      throw new Error(`${want} missing from the Services view: ${rows.join(', ')}`);
    }
  }
  await row('crm-customers').click();
  await page.locator('.tab.active', { hasText: 'script-service-api.xml' }).waitFor();
  const selected = await page.locator('.editor-instance .monaco-editor .selected-text').count();
  step(`crm-customers revealed in script-service-api.xml (${selected} selection decoration(s))`);
  await row('crm-customers').hover();
  await page.waitForTimeout(300);
  await shot('04-services-view.png');

  await debugScript({ page, step, shot, openFile });
  await faultsSteps({ page, ws, cfg, restlsBin, step, shot, openFile });
  await valuesSteps({ page, step, shot, openFile });
  await coverageSteps({ page, step, shot, openFile });

  // Environments: the status bar item offers them; staging has other services.
  await page.locator('.tab', { hasText: 'order.js' }).first().click();
  await page.locator('.tab.active', { hasText: 'order.js' }).waitFor();
  await page.locator('.statusbar-item', { hasText: /restls: default · \d+ services/ }).click();
  const envRow = page.locator('.quick-input-list .monaco-list-row', { hasText: 'staging' }).first();
  await envRow.waitFor();
  const envs = (await page.locator('.quick-input-list .monaco-list-row .label-name').allInnerTexts()).map((t) => t.trim());
  step(`environments offered: ${envs.join(', ')}`);
  await page.waitForTimeout(300);
  await shot('05-environments.png');
  await envRow.click();
  const stagingStatus = page.locator('.statusbar-item', { hasText: /restls: staging · 2 services/ });
  await stagingStatus.waitFor({ timeout: 30_000 });
  step(`status bar: ${(await stagingStatus.innerText()).trim()}`);
  await page.locator('.editor-instance .monaco-editor').first().click();
  await page.keyboard.press('Control+End');
  await page.keyboard.press('Enter');
  await page.keyboard.type('var s = api.rest.v1.get("', { delay: 30 });
  try {
    await suggest.locator('.monaco-list-row', { hasText: 'staging-orders' }).first().waitFor({ timeout: 20_000 });
  } catch {
    await page.keyboard.press('Control+Space');
    await suggest.locator('.monaco-list-row', { hasText: 'staging-orders' }).first().waitFor({ timeout: 20_000 });
  }
  const stagingLabels = (await suggest.locator('.monaco-list-row .label-name').allInnerTexts()).map((t) => t.trim());
  step(`suggest widget in staging: ${stagingLabels.join(', ')}`);
  if (stagingLabels.includes('crm-customers') || !stagingLabels.includes('staging-customers')) {
    throw new Error(`staging should offer its own serviceIds only: ${stagingLabels.join(', ')}`);
  }
  await page.keyboard.press('Escape');

  // The walkthrough for the first start, from the palette.
  await page.keyboard.press('F1');
  await palette.waitFor({ state: 'visible' });
  await palette.fill('>Welcome: Open Walkthrough');
  await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Open Walkthrough' }).first().waitFor();
  await page.keyboard.press('Enter');
  const walk = page.locator('.quick-input-list .monaco-list-row', { hasText: 'Get started with restls' }).first();
  await walk.waitFor();
  await walk.click();
  const stepTitles = page.locator('.getting-started-step .step-title');
  await page.locator('.getting-started-step', { hasText: 'Point at the configuration' }).first().waitFor();
  const titles = (await stepTitles.allInnerTexts()).map((t) => t.trim()).filter(Boolean);
  step(`walkthrough steps: ${titles.join(' | ')}`);
  for (const want of ['Point at the configuration', 'Complete a serviceId', 'Dry-run a script']) {
    if (!titles.includes(want)) {
      throw new Error(`walkthrough step ${want} missing: ${titles.join(' | ')}`);
    }
  }
  // The step's media: Markdown rendered in a webview beside the steps.
  await previewFrame('the walkthrough media', 'h1', 'Where restls finds the services');
  await page.waitForTimeout(300);
  await shot('06-walkthrough.png');
  step('PASS');
} catch (e) {
  if (e !== onlyDone) {
    failed = true;
    console.error(`e2e: FAIL: ${e instanceof Error ? e.stack : e}`);
    try {
      await shot('failure.png');
    } catch {
      // The page may be gone.
    }
  }
} finally {
  await context.close().catch(() => undefined);
  cs.kill('SIGTERM');
  mock.close();
  const logs = path.join(userData, 'logs');
  if (fs.existsSync(logs)) {
    fs.cpSync(logs, path.join(outDir, 'vscode-logs'), { recursive: true });
    // The extension's log says which binary it started: the bundled one.
    let started = '';
    try {
      started = execFileSync('grep', ['-rhoE', 'starting [^ ]+ \\([a-zA-Z]+,', logs], { encoding: 'utf8' }).trim();
    } catch {
      // No such line: reported below.
    }
    step(`extension log: ${started}`);
    if (!failed && !/bin\/linux-x64\/restls \(extension,/.test(started)) {
      failed = true;
      console.error(`e2e: FAIL: the extension did not start its bundled binary: ${started}`);
    }
  }
  if (!failed) {
    fs.rmSync(tmp, { recursive: true, force: true });
  } else {
    console.error(`e2e: workspace and profiles kept in ${tmp}; logs in ${outDir}`);
  }
}
step(`done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
process.exit(failed ? 1 : 0);
