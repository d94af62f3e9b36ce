// The Response Preview webview panel: one panel, reused for every dry run,
// beside the script. The HTML comes from preview.ts.

import * as crypto from 'crypto';
import * as vscode from 'vscode';
import { RunResult } from './protocol';
import { renderPreview } from './preview';

export type Reveal = (uri: vscode.Uri, line: number, column: number) => unknown;

export class PreviewPanel implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;
  private script: vscode.Uri | undefined;
  /** html is the last page shown, for tests. */
  html = '';

  constructor(private readonly reveal: Reveal) {}

  show(run: RunResult, script: vscode.Uri, name: string): void {
    this.script = script;
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
        const msg = m as { type?: unknown; line?: unknown; column?: unknown };
        if (msg && msg.type === 'reveal' && typeof msg.line === 'number' && this.script) {
          void this.reveal(this.script, msg.line, typeof msg.column === 'number' ? msg.column : 1);
        }
      });
    }
    this.panel.title = `Response Preview: ${name}`;
    this.html = renderPreview(run, {
      nonce: crypto.randomBytes(18).toString('base64'),
      cspSource: this.panel.webview.cspSource,
      scriptName: name,
      when: new Date(),
    });
    this.panel.webview.html = this.html;
    this.panel.reveal(vscode.ViewColumn.Beside, true);
  }

  dispose(): void {
    this.panel?.dispose();
    this.panel = undefined;
  }
}
