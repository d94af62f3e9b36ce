// The Response Preview's page, as a pure function of a dry run's result.
// What it shows is the dry-run preview component the designer uses too
// (web/designer/src/preview/view.ts: escaping in one place, no secret list:
// the server masks); this file adds the frame: the Content-Security-Policy,
// VS Code's theme colours and the one nonce'd script that turns the
// component's buttons into messages to the extension.

import { type PreviewRun, escapeHTML, previewCSS, previewView, toHTML } from '../../web/designer/src/preview/view';

/** PageOptions are the page's frame: its nonce, the webview's CSP source, and labels. */
export interface PageOptions {
  nonce: string;
  cspSource: string;
  scriptName: string;
  when?: Date;
  /** mode says how the calls were answered ("mocks from orders.mock.yaml"); undefined: said from the run's mode. */
  mode?: string;
}

/** previewPage returns the whole Response Preview page for one dry run. */
export function previewPage(run: PreviewRun, opts: PageOptions): string {
  const body = toHTML(
    previewView({ state: 'done', result: run, mode: run.mode }, { title: `Response Preview: ${opts.scriptName}`, modeLabel: opts.mode, when: opts.when }),
  );
  const nonce = escapeHTML(opts.nonce);
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src ${escapeHTML(opts.cspSource)} data:; style-src 'nonce-${nonce}'; script-src 'nonce-${nonce}'; base-uri 'none'; form-action 'none'">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>Response Preview</title>
<style nonce="${nonce}">${THEME}${previewCSS}</style>
</head>
<body>
<div class="restls-preview" data-state="done">${body}</div>
<script nonce="${nonce}">${SCRIPT}</script>
</body>
</html>`;
}

// The page's only script: the component's buttons (data-action) become
// messages to the extension, or fold the page. It never puts data into the
// DOM: the cURL command is taken from the result the extension holds.
const SCRIPT = `(function () {
  const vscode = acquireVsCodeApi();
  window.addEventListener('message', function (e) {
    const m = e.data;
    if (!m || m.type !== 'copied' || typeof m.call !== 'number') { return; }
    const s = document.querySelector('.restls-call[data-call="' + (m.call - 1) + '"] .restls-copy-status');
    if (s) { s.textContent = m.ok ? 'Copied.' : 'Copy failed: select the command below.'; }
  });
  document.addEventListener('click', function (e) {
    const t = e.target && e.target.closest ? e.target.closest('[data-action]') : null;
    if (!t) { return; }
    e.preventDefault();
    const a = t.getAttribute('data-action');
    if (a === 'expand' || a === 'collapse') {
      document.querySelectorAll('details').forEach(function (d) { d.open = a === 'expand'; });
    } else if (a === 'copy') {
      vscode.postMessage({ type: 'copyCurl', call: Number(t.getAttribute('data-call')) + 1 });
    } else if (a === 'reveal') {
      vscode.postMessage({ type: 'reveal', line: Number(t.getAttribute('data-line')), column: Number(t.getAttribute('data-column')) });
    }
  });
})();`;

// The component's colours from the VS Code theme (previewCSS falls back to
// the designer's light colours).
const THEME = `
body { padding: 0 16px 24px; }
.restls-preview {
  --restls-font: var(--vscode-font-size) var(--vscode-font-family);
  --restls-mono: var(--vscode-editor-font-family);
  --restls-mono-size: var(--vscode-editor-font-size);
  --restls-fg: var(--vscode-foreground);
  --restls-muted: var(--vscode-descriptionForeground);
  --restls-ok: var(--vscode-testing-iconPassed, #3fb950);
  --restls-bad: var(--vscode-errorForeground, #f85149);
  --restls-bad-bg: var(--vscode-inputValidation-errorBackground, transparent);
  --restls-link: var(--vscode-textLink-foreground);
  --restls-focus: var(--vscode-focusBorder);
  --restls-border: var(--vscode-panel-border, #8884);
  --restls-key: var(--vscode-symbolIcon-propertyForeground, #9cdcfe);
  --restls-str: var(--vscode-debugTokenExpression-string, #ce9178);
  --restls-num: var(--vscode-debugTokenExpression-number, #b5cea8);
  --restls-lit: var(--vscode-debugTokenExpression-boolean, #569cd6);
}
.restls-preview button.restls-tool, .restls-preview button.restls-copy { background: var(--vscode-button-secondaryBackground); color: var(--vscode-button-secondaryForeground); border: none; cursor: pointer; }
`;

