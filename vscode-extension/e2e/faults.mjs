// The fault-exploration part of the code-server end-to-end test (issue
// 36), run by e2e/run.mjs before the environments (staging has no
// crm-customers): "restls: Explore Faults of This
// Script" from the palette on a script whose catch reads e.status.code
// unchecked; the "Faults" CodeLens above its call says what each outcome
// did; the warning's quick fix "Add a test case: ..." writes the case
// into faults.test.yaml, created beside the script, and restls test
// passes it.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

export const FAULTS_SCRIPT = `var customer;
try {
  customer = api.rest.v1.get("crm-customers", {pathParams: ["42"]}, {}).body;
} catch (e) {
  if (e.status.code === 404) return null;
  throw e;
}
return customer.name;
`;

/**
 * writeFaultsScript puts the script and its fixtures in the workspace
 * before VS Code starts (Quick Open lists the files it saw then).
 */
export function writeFaultsScript(ws) {
  const dir = path.join(ws, 'scripts');
  fs.writeFileSync(path.join(dir, 'faults.js'), FAULTS_SCRIPT);
  fs.writeFileSync(path.join(dir, 'faults.mock.yaml'), '- {serviceId: crm-customers, body: {name: Ada}}\n');
}

/**
 * faultsSteps drives the editor. ctx: page, ws (the workspace folder,
 * writeFaultsScript's), cfg (its configuration root), restlsBin, and
 * run.mjs' helpers step, shot and openFile.
 */
export async function faultsSteps({ page, ws, cfg, restlsBin, step, shot, openFile }) {
  // runCommand runs a palette command, opening the palette again until
  // the command is listed (its "when" waits for the server's answer).
  const runCommand = async (title, ms = 60_000) => {
    const palette = page.locator('.quick-input-widget input');
    const deadline = Date.now() + ms;
    for (;;) {
      await page.keyboard.press('F1');
      await palette.waitFor({ state: 'visible' });
      await palette.fill(`>${title}`);
      const row = page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first();
      try {
        await row.waitFor({ timeout: 5_000 });
        await row.click();
        return;
      } catch (e) {
        if (Date.now() > deadline) {
          throw e;
        }
        await page.keyboard.press('Escape');
      }
    }
  };
  const testFile = path.join(ws, 'scripts', 'faults.test.yaml');
  await openFile('faults.js');
  step('faults.js open');
  await runCommand('restls: Explore Faults of This Script');
  step('Explore Faults of This Script started');
  const lens = page.locator('.codelens-decoration a', { hasText: /^Faults: / }).first();
  await lens.waitFor({ timeout: 120_000 });
  const title = (await lens.innerText()).trim();
  step(`Faults lens: ${title}`);
  if (title !== 'Faults: 1 handled, 2 escaped, 4 crashed') {
    throw new Error(`unexpected Faults lens: ${title}`);
  }
  // The summary the command shows, with its button to the table.
  const toast = page.locator('.notification-toast', { hasText: /faults\.js: 1 call site, 7 runs/ }).first();
  await toast.waitFor({ timeout: 30_000 });
  step(`notification: ${(await toast.innerText()).replace(/\s+/g, ' ').trim()}`);
  await shot('20-faults-lens.png');

  // The warning on the call, and its quick fixes.
  const editor = page.locator('.editor-instance .monaco-editor').first();
  await editor.click();
  await page.keyboard.press('Control+G');
  const gotoInput = page.locator('.quick-input-widget input');
  await gotoInput.waitFor({ state: 'visible' });
  await gotoInput.fill(':3:28'); // in "get", the warning's range
  await page.keyboard.press('Enter');
  await page.locator('.squiggly-warning').first().waitFor({ timeout: 30_000 });
  await page.keyboard.press('Control+.');
  const fix = page.locator('.action-widget .monaco-list-row', { hasText: 'Add a test case: GET crm-customers answers connect-timeout' }).first();
  await fix.waitFor({ timeout: 30_000 });
  const fixes = (await page.locator('.action-widget .monaco-list-row').allInnerTexts()).map((t) => t.trim()).filter((t) => t.startsWith('Add a test case'));
  step(`quick fixes: ${fixes.join(' | ')}`);
  if (fixes.length !== 4) {
    throw new Error(`expected one "Add a test case" per crashing outcome (4): ${fixes.join(' | ')}`);
  }
  await shot('21-faults-quick-fix.png');
  // The menu takes keys (a pointer block covers it from clicks): down to
  // the fix, then Enter.
  const focused = page.locator('.action-widget .monaco-list-row.focused');
  for (let i = 0; i < 20 && !((await focused.innerText().catch(() => '')).includes('answers connect-timeout')); i++) {
    await page.keyboard.press('ArrowDown');
  }
  if (!(await focused.innerText()).includes('answers connect-timeout')) {
    throw new Error(`the connect-timeout fix cannot be selected: ${await focused.innerText()}`);
  }
  await page.keyboard.press('Enter');
  step('quick fix applied');

  // The edit creates faults.test.yaml and fills it; VS Code may leave the
  // new text unsaved in an editor: save it as a user would.
  const caseName = 'faults: GET crm-customers 42 answers connect-timeout';
  const deadline = Date.now() + 30_000;
  let saved = false;
  while (Date.now() < deadline) {
    if (fs.existsSync(testFile) && fs.readFileSync(testFile, 'utf8').includes(caseName)) {
      break;
    }
    if (!saved && (await page.locator('.tab', { hasText: 'faults.test.yaml' }).count()) > 0) {
      saved = true;
      await runCommand('File: Save All');
    }
    await page.waitForTimeout(250);
  }
  const text = fs.existsSync(testFile) ? fs.readFileSync(testFile, 'utf8') : '';
  if (!text.includes(caseName) || !text.includes('script: faults.js')) {
    throw new Error(`faults.test.yaml does not hold the case: ${JSON.stringify(text)}`);
  }
  step(`faults.test.yaml:\n${text}`);
  // Shown for the screenshot: its tab when the edit opened it, else the
  // Explorer's row (Quick Open lists the files it saw at start).
  try {
    const tab = page.locator('.tab', { hasText: 'faults.test.yaml' }).first();
    if ((await tab.count()) > 0) {
      await tab.click();
    } else {
      await page.keyboard.press('Control+Shift+E');
      const header = page.locator('.pane-header', { hasText: 'workspace' }).first();
      if ((await header.getAttribute('aria-expanded')) === 'false') {
        await header.click();
      }
      const row = page.locator('.explorer-folders-view .monaco-list-row', { hasText: /^faults\.test\.yaml$/ }).first();
      await row.waitFor({ timeout: 15_000 });
      await row.click();
    }
    await page.locator('.tab.active', { hasText: 'faults.test.yaml' }).waitFor({ timeout: 15_000 });
    await page.waitForTimeout(300);
    await shot('22-faults-test-case.png');
  } catch (e) {
    step(`faults.test.yaml not shown for the screenshot: ${String(e).split('\n')[0]}`);
  }
  // The case is one restls test runs, and passes: it pins down what the
  // script does today, for its author to correct once it handles the failure.
  const out = execFileSync(restlsBin, ['test', '--config-root', cfg, testFile], { encoding: 'utf8' });
  step(`restls test: ${out.trim()}`);
  if (!/1 passed, 0 failed/.test(out)) {
    throw new Error(`restls test on the new case: ${out}`);
  }
}
