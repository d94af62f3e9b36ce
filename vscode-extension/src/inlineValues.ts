// The last run's values (issue 35): after a dry run, the value each
// variable was last given shows at the end of its line. The server
// answers them (LSP textDocument/inlineValue, from the run history, a
// line edited since the run left out); VS Code asks an inline-values
// provider only while a debug session is stopped, so the extension asks
// itself after each dry run and as the document changes, and draws them
// as decorations.

import * as vscode from 'vscode';

/** InlineValueText is LSP's InlineValueText, as the server answers it. */
export interface InlineValueText {
  range: { start: { line: number; character: number }; end: { line: number; character: number } };
  text: string;
}

/** maxLineText bounds the text shown at the end of one line. */
const maxLineText = 200;

/** linesOf groups the values by line (0-based), in order, each line's texts joined: "a = 1, b = 2". */
export function linesOf(values: InlineValueText[]): { line: number; text: string }[] {
  const byLine = new Map<number, string[]>();
  for (const v of values) {
    const l = v.range?.start?.line;
    if (typeof l !== 'number' || typeof v.text !== 'string') continue;
    byLine.set(l, [...(byLine.get(l) ?? []), v.text]);
  }
  return [...byLine.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([line, texts]) => {
      const text = texts.join(', ');
      return { line, text: text.length > maxLineText ? text.slice(0, maxLineText) + '…' : text };
    });
}

/** InlineValues draws the last run's values in the editors of the documents that were run. */
export class InlineValues implements vscode.Disposable {
  private readonly type = vscode.window.createTextEditorDecorationType({
    after: { margin: '0 0 0 2em', fontStyle: 'italic', color: new vscode.ThemeColor('editorInlayHint.foreground') },
  });
  /** shown are the documents run since the extension started, by URI. */
  private readonly shown = new Set<string>();
  private readonly timers = new Map<string, ReturnType<typeof setTimeout>>();
  private readonly disposables: vscode.Disposable[] = [];

  /** ask asks the server for a document's inline values (undefined when it cannot). */
  constructor(private readonly ask: (doc: vscode.TextDocument) => Promise<InlineValueText[] | undefined>) {
    this.disposables.push(
      this.type,
      vscode.workspace.onDidChangeTextDocument((e) => {
        const key = e.document.uri.toString();
        if (!this.shown.has(key)) return;
        // The server drops the lines changed since the run: ask again.
        clearTimeout(this.timers.get(key));
        this.timers.set(key, setTimeout(() => void this.refresh(e.document), 300));
      }),
      vscode.window.onDidChangeVisibleTextEditors((editors) => {
        for (const ed of editors) {
          if (this.shown.has(ed.document.uri.toString())) void this.refresh(ed.document);
        }
      }),
    );
  }

  /** refresh asks for doc's values and draws them in its visible editors; called after each dry run of doc. */
  async refresh(doc: vscode.TextDocument): Promise<void> {
    this.shown.add(doc.uri.toString());
    let values: InlineValueText[] | undefined;
    try {
      values = await this.ask(doc);
    } catch {
      values = undefined;
    }
    const decorations = linesOf(values ?? []).map(({ line, text }) => {
      const end = doc.lineAt(Math.min(line, doc.lineCount - 1)).range.end;
      return { range: new vscode.Range(end, end), renderOptions: { after: { contentText: text } } };
    });
    for (const ed of vscode.window.visibleTextEditors) {
      if (ed.document.uri.toString() === doc.uri.toString()) ed.setDecorations(this.type, decorations);
    }
  }

  dispose(): void {
    this.timers.forEach((t) => clearTimeout(t));
    this.disposables.forEach((d) => d.dispose());
  }
}
