// The Response Preview webview panel: one panel, reused for every dry run,
// beside the script. The page comes from previewPage.ts.

import * as crypto from 'crypto';
import * as vscode from 'vscode';
import type { PreviewRun } from '../../web/designer/src/preview/view';
import { previewPage } from './previewPage';

export type Reveal = (uri: vscode.Uri, line: number, column: number) => unknown;

export class PreviewPanel implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;
  private script: vscode.Uri | undefined;
  private run: PreviewRun | undefined;
  /** html is the last page shown, for tests. */
  html = '';

  constructor(private readonly reveal: Reveal) {}

  /** show shows one dry run's result; mode says how its calls were answered ("mocks from orders.mock.yaml"). */
  show(run: PreviewRun, script: vscode.Uri, name: string, mode?: string): void {
    this.script = script;
    this.run = run;
    if (!this.panel) {
      this.panel = vscode.window.createWebviewPanel(
        'restls.responsePreview',
        `Response Preview: ${name}`,
        { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true },
        { enableScripts: true, enableCommandUris: false, localResourceRoots: [], retainContextWhenHidden: false },
      );
      this.panel.onDidDispose(() => {
        this.panel = undefined;
      });
      this.panel.webview.onDidReceiveMessage((m: unknown) => {
        const msg = m as { type?: unknown; line?: unknown; column?: unknown; call?: unknown };
        if (msg && msg.type === 'reveal' && typeof msg.line === 'number' && this.script) {
          void this.reveal(this.script, msg.line, typeof msg.column === 'number' ? msg.column : 1);
        } else if (msg && msg.type === 'copyCurl' && typeof msg.call === 'number') {
          const call = msg.call;
          void this.copyCurl(call).then((curl) => this.panel?.webview.postMessage({ type: 'copied', call, ok: curl !== undefined }));
        }
      });
    }
    this.panel.title = `Response Preview: ${name}`;
    this.html = previewPage(run, {
      nonce: crypto.randomBytes(18).toString('base64'),
      cspSource: this.panel.webview.cspSource,
      scriptName: name,
      when: new Date(),
      mode,
    });
    this.panel.webview.html = this.html;
    this.panel.reveal(vscode.ViewColumn.Beside, true);
  }

  /**
   * copyCurl puts the curl command of call i (from 1) of the run shown on
   * the clipboard. The page only says which call: the command is taken
   * from the result the extension holds, never from the page.
   */
  async copyCurl(i: number): Promise<string | undefined> {
    const c = this.run?.calls?.[i - 1];
    if (!c || typeof c.curl !== 'string' || c.curl === '') {
      return undefined;
    }
    await vscode.env.clipboard.writeText(c.curl);
    vscode.window.setStatusBarMessage(`restls: copied call #${i} as cURL`, 3000);
    return c.curl;
  }

  dispose(): void {
    this.panel?.dispose();
    this.panel = undefined;
  }
}
