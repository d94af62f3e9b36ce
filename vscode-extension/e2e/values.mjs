// The last run's values part of the code-server end-to-end test (issue
// 35), run by e2e/run.mjs after the faults' part: "restls: Dry-run
// Script" on values.js (no call: nothing to answer), then each variable's
// last value shows at the end of its line, as the extension draws the
// server's textDocument/inlineValue answer (editor decorations whose text
// Monaco writes into the line); a line edited after the run loses its
// value, the others stay. E2E_ONLY=values runs it alone.
import * as fs from 'node:fs';
import * as path from 'node:path';

export const VALUES_SCRIPT = `var items = [3, 4, 5];
var total = 0;
for (var i = 0; i < items.length; i++) {
  total += items[i];
}
var label = "sum " + total;
return label;
`;

/** writeValuesScript puts values.js in the workspace before VS Code starts. */
export function writeValuesScript(ws) {
  fs.writeFileSync(path.join(ws, 'scripts', 'values.js'), VALUES_SCRIPT);
}

/**
 * valuesSteps drives the editor. ctx: page, and run.mjs' helpers step,
 * shot and openFile.
 */
export async function valuesSteps({ page, step, shot, openFile }) {
  await openFile('values.js');
  step('values.js open');
  const editor = page.locator('.editor-instance .monaco-editor').first();
  // lineOf is the text Monaco shows on the line that starts with start:
  // the script's text and, after it, the values drawn there (a
  // decoration's contentText is CSS content of an empty span, which
  // innerText leaves out).
  const lineOf = async (start) => {
    const lines = await editor.locator('.view-line').evaluateAll((els) =>
      els.map((l) => {
        const pseudo = (el, which) => {
          const c = getComputedStyle(el, which).content;
          if (!c || c === 'none' || c === 'normal') return '';
          try {
            return JSON.parse(c);
          } catch {
            return c.slice(1, -1);
          }
        };
        let t = '';
        const walk = (n) => {
          for (const c of n.childNodes) {
            if (c.nodeType === Node.TEXT_NODE) {
              t += c.data;
            } else if (c.nodeType === Node.ELEMENT_NODE) {
              t += pseudo(c, '::before');
              walk(c);
              t += pseudo(c, '::after');
            }
          }
        };
        walk(l);
        return t.replace(/\u00a0/g, ' ');
      }),
    );
    return lines.find((l) => l.startsWith(start)) ?? '';
  };
  // waitLine waits until lineOf(start) passes ok, within 30 s.
  const waitLine = async (start, ok, what) => {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const text = await lineOf(start);
      if (ok(text)) return text;
      if (Date.now() > deadline) throw new Error(`${what}: ${JSON.stringify(text)}`);
      await page.waitForTimeout(200);
    }
  };
  await runCommand(page, 'restls: Dry-run Script');
  step('dry run of values.js started');
  await waitLine('var label', (t) => t.endsWith('label = "sum 12"'), 'no value at the end of the label line');
  const want = [
    ['var items = [3, 4, 5];', 'items = [3, 4, 5]'],
    ['var total = 0;', 'total = 0'],
    ['  total += items[i];', 'total = 12'],
    ['var label = "sum " + total;', 'label = "sum 12"'],
  ];
  for (const [code, value] of want) {
    const text = await lineOf(code);
    step(`line ${JSON.stringify(text)}`);
    if (!new RegExp(`^${escape(code)}\\s*${escape(value)}$`).test(text)) {
      throw new Error(`the line ${JSON.stringify(code)} does not end with ${JSON.stringify(value)}: ${JSON.stringify(text)}`);
    }
  }
  const ret = await lineOf('return label;');
  if (ret.trim() !== 'return label;') {
    throw new Error(`a return shows a value: ${JSON.stringify(ret)}`);
  }
  await shot('23-last-run-values.png');

  // Edit line 2 (total starts at 1): its value goes, the others stay.
  await editor.locator('.view-line', { hasText: 'var total = 0;' }).first().click();
  await page.keyboard.press('End');
  await page.keyboard.press('ArrowLeft');
  await page.keyboard.press('Backspace');
  await page.keyboard.type('1');
  await waitLine('var total = 1;', (t) => t.trim() === 'var total = 1;', 'the edited line keeps a value');
  if (!/label = "sum 12"$/.test(await lineOf('var label'))) {
    throw new Error(`an unedited line lost its value: ${JSON.stringify(await lineOf('var label'))}`);
  }
  step('the edited line lost its value, the others kept theirs');
  await shot('24-last-run-values-edited.png');
  // Leave the file as it was: both edits undone.
  await page.keyboard.press('Control+Z');
  await page.keyboard.press('Control+Z');
}

function escape(s) {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export const COVER_SCRIPT = `var n = context.input.n;
if (n > 0) {
  return "positive";
}
return "not positive";
`;

export const COVER_TESTS = `script: cover.js
cases:
  - name: a positive number
    input: { n: 1 }
    result: positive
`;

/** writeCoverScript puts tests/cover.js and its one case in the workspace before VS Code starts. */
export function writeCoverScript(ws) {
  fs.writeFileSync(path.join(ws, 'tests', 'cover.js'), COVER_SCRIPT);
  fs.writeFileSync(path.join(ws, 'tests', 'cover.test.yaml'), COVER_TESTS);
}

/**
 * coverageSteps runs cover.test.yaml's case with the Testing view's "Run
 * with Coverage" profile (issue 35): the Test Coverage view lists
 * cover.js with the share of its lines the case ran (the case never
 * reaches the last return). ctx as valuesSteps'.
 * E2E_ONLY=coverage runs it alone.
 */
export async function coverageSteps({ page, step, shot, openFile }) {
  await openFile('cover.test.yaml');
  step('cover.test.yaml open');
  // The Testing view lists the file's case once the server answered.
  // The item, not its label: after a failed test (the full run's Testing
  // part) the badge over the label takes the click.
  const testingIcon = page.locator('.activitybar .action-item', { has: page.locator('.action-label[aria-label^="Testing"]') }).first();
  if ((await testingIcon.count()) > 0) {
    await testingIcon.click();
  } else {
    await runCommand(page, 'Focus on Test Explorer View');
  }
  const sidebar = page.locator('.part.sidebar');
  await sidebar.locator('.monaco-list-row', { hasText: 'cover.test.yaml' }).first().waitFor();
  await page.locator('.tab', { hasText: 'cover.test.yaml' }).first().click();
  await runCommand(page, 'Test: Run Tests with Coverage in Current File');
  step('run with coverage started');
  // 3 of cover.js' 4 statements and 1 of its 2 branch arms: VS Code
  // shows (3 + 1) / (4 + 2).
  const pane = page.locator('.pane', { has: page.locator('.pane-header', { hasText: /Test Coverage/i }) });
  const row = pane.locator('.monaco-list-row', { hasText: 'cover.js' }).first();
  await row.waitFor({ timeout: 30_000 });
  const text = (await row.innerText()).replace(/\s+/g, ' ').trim();
  step(`Test Coverage: ${text}`);
  if (!/^cover\.js 66\.67%$/.test(text)) {
    throw new Error(`unexpected Test Coverage row: ${JSON.stringify(text)}`);
  }
  // The file, with its lines marked covered and not covered.
  await row.click();
  await page.locator('.tab.active', { hasText: 'cover.js' }).waitFor();
  await page.waitForTimeout(500);
  await shot('25-coverage.png');
}

// runCommand runs a palette command, opening the palette again until
// the command is listed (its "when" waits for the server's answer).
async function runCommand(page, title, ms = 60_000) {
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
}
