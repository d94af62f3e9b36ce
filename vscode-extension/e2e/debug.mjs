// The restls debug type in code-server (run.mjs calls this): a breakpoint
// set with F9 on scripts/debug.js line 5, "restls: Debug Script" from the
// palette, the stop there (the Call Stack's line, the editor's stack-frame
// line), a variable read in the Variables view, a step over (F10) to line
// 6 and the variable it set, then Continue (F5) to the result in the Debug
// Console and the session's end. Screenshots 14-16 (stopped, stepped, ended).

/**
 * @param {{page: import('playwright-core').Page, step: (m: string) => void, shot: (n: string) => Promise<void>,
 *   openFile: (n: string) => Promise<void>}} t
 */
export async function debugScript({ page, step, shot, openFile }) {
  // A palette command whose "when" waits for the server (restls.isScript)
  // is listed once the server has answered: ask again until it is.
  const runCommand = async (title) => {
    const palette = page.locator('.quick-input-widget input');
    const deadline = Date.now() + 60_000;
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
  // Earlier parts leave an editor open in a group beside (the run diff,
  // unsaved, so it cannot be closed without a prompt): join every group
  // into one, so that the keys below reach debug.js and not that editor.
  await runCommand('View: Join All Editor Groups');
  await openFile('debug.js');
  step('debug.js open');
  const editor = page.locator('.editor-instance .monaco-editor').first();
  await editor.click();
  // Line 5 (var customer = ...): Go to Line, then Toggle Breakpoint.
  await page.keyboard.press('Control+G');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ state: 'visible' });
  await input.fill(':5');
  await page.keyboard.press('Enter');
  await page.keyboard.press('F9');
  await page.locator('.editor-instance .codicon-debug-breakpoint, .editor-instance .codicon-debug-breakpoint-unverified').first().waitFor({ timeout: 10_000 });
  step('breakpoint set on line 5');

  await runCommand('restls: Debug Script');
  step('Debug Script started');
  // Stopped: the Call Stack says where, the editor marks the line.
  const frame = page.locator('.debug-call-stack .monaco-list-row', { hasText: 'debug.js' }).first();
  await frame.waitFor({ timeout: 60_000 });
  // The Call Stack's header says why.
  await page.getByText(/Paused on breakpoint/i).first().waitFor({ timeout: 30_000 });
  const where = async () => (await page.locator('.debug-call-stack .monaco-list-row .line-number').first().innerText()).trim();
  let at = await where();
  step(`stopped at ${at}`);
  if (!at.startsWith('5:')) {
    throw new Error(`expected the stop on line 5, the Call Stack says ${at}`);
  }
  await page.locator('.editor-instance .debug-top-stack-frame-line').first().waitFor({ timeout: 10_000 });

  // A variable: the Variables view's Locals, a row "id = 42".
  const rowText = (name) =>
    page.evaluate((n) => {
      for (const row of document.querySelectorAll('.monaco-list-row')) {
        const m = /^\s*([\w$]+)\s*[=:]\s*([\s\S]*)$/.exec(row.textContent ?? '');
        if (m && m[1] === n) return m[2].trim();
      }
      return null;
    }, name);
  const valueOf = async (name, want) => {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const v = await rowText(name);
      if (v !== null && (!want || want.test(v))) return v;
      if (Date.now() > deadline) throw new Error(`no variable ${name}${want ? ' matching ' + want : ''} in the Variables view (last: ${v})`);
      await page.waitForTimeout(200);
    }
  };
  const id = await valueOf('id');
  step(`Variables: id = ${id}`);
  if (id !== '42') {
    throw new Error(`expected id = 42 in the Variables view, got ${id}`);
  }
  await page.waitForTimeout(300);
  await shot('14-debugger-stopped.png');

  // Step over: line 6, customer set.
  await editor.click();
  await page.keyboard.press('F10');
  const deadline = Date.now() + 30_000;
  while (!(at = await where()).startsWith('6:')) {
    if (Date.now() > deadline) {
      throw new Error(`the step over did not reach line 6: the Call Stack says ${at}`);
    }
    await page.waitForTimeout(200);
  }
  const customer = await valueOf('customer', /Ada Lovelace/);
  step(`stepped over to ${at}; customer = ${customer}`);
  await shot('15-debugger-step.png');

  // Continue: the result in the Debug Console, and the session ends.
  await page.keyboard.press('F5');
  const result = page.locator('.repl .monaco-list-row', { hasText: 'result:' }).first();
  await result.waitFor({ timeout: 30_000 });
  const text = (await result.innerText()).replace(/\s+/g, ' ').trim();
  step(`Debug Console: ${text}`);
  if (!text.includes('"customer":"Ada Lovelace"') || !text.includes('"qty":3')) {
    throw new Error(`unexpected result in the Debug Console: ${text}`);
  }
  await page.locator('.debug-toolbar').waitFor({ state: 'hidden', timeout: 30_000 });
  step('the debug session ended');
  await shot('16-debugger-console.png');
}
