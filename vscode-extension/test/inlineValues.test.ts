// The last run's values: the server's inline values drawn at the end of
// their lines in the editors of the document, asked again as it changes.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { beforeEach, test } from 'node:test';
import { openDocument, recorded, reset } from './vscode-mock';
import * as vscode from 'vscode';
import { InlineValues, linesOf } from '../src/inlineValues';

beforeEach(() => reset());

const at = (line: number, character: number) => ({ start: { line, character }, end: { line, character: character + 1 } });

test('values are grouped by line, in order, and cut', () => {
  assert.deepEqual(linesOf([{ range: at(2, 4), text: 'b = 2' }, { range: at(0, 4), text: 'a = 1' }, { range: at(2, 9), text: 'c = "x"' }]), [
    { line: 0, text: 'a = 1' },
    { line: 2, text: 'b = 2, c = "x"' },
  ]);
  const long = linesOf([{ range: at(0, 0), text: 'x = ' + 'y'.repeat(300) }])[0].text;
  assert.equal(long.length, 201);
  assert.ok(long.endsWith('…'));
});

test('after a run the values show at the end of their lines in the document\'s editor', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'restls-values-'));
  const file = path.join(dir, 'orders.js');
  fs.writeFileSync(file, 'var a = 1;\nvar b = 2;\nreturn a + b;\n');
  const doc = openDocument(file);
  const asked: string[] = [];
  const values = new InlineValues(async (d) => {
    asked.push(d.uri.toString());
    return [{ range: at(0, 4), text: 'a = 1' }, { range: at(1, 4), text: 'b = 2' }];
  });
  await values.refresh(doc as unknown as vscode.TextDocument);
  assert.deepEqual(asked, [vscode.Uri.file(file).toString()]);
  const editor = (vscode.window as any).activeTextEditor;
  const [list] = [...editor.decorations.values()];
  assert.deepEqual(
    list.map((d: any) => `${d.range.start.line}:${d.range.start.character} ${d.renderOptions.after.contentText}`),
    ['0:10 a = 1', '1:10 b = 2'],
  );
  // A server that cannot answer clears them.
  const none = new InlineValues(async () => {
    throw new Error('no server');
  });
  await none.refresh(doc as unknown as vscode.TextDocument);
  assert.equal([...editor.decorations.values()].pop().length, 0);
  values.dispose();
  none.dispose();
  void recorded;
  fs.rmSync(dir, { recursive: true, force: true });
});
