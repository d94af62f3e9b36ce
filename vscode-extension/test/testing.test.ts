// The Testing view: test files and their cases as the server lists them,
// runs through restls.runTests, failures with expected and actual by
// JSON path at the case's line, and Update Expectation applying the
// server's edit; against test/fixtures/fake-restls.js.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, test } from 'node:test';
import { TestController, Uri, fakeContext, openDocument, recorded, reset, setSetting, setWorkspaceFolder, waitFor } from './vscode-mock';
import { Restls, activate, deactivate } from '../src/extension';
import { UPDATE_EXPECTATION, globRegExp } from '../src/testing';

const FAKE = path.join(__dirname, '..', '..', '..', 'test', 'fixtures', 'fake-restls.js');

let ws: string;

beforeEach(() => {
  reset();
  ws = fs.mkdtempSync(path.join(os.tmpdir(), 'restls-tests-'));
  fs.mkdirSync(path.join(ws, 'tests'));
  fs.mkdirSync(path.join(ws, 'bin'));
  fs.writeFileSync(path.join(ws, 'tests', 'orders.test.yaml'), 'script: ../orders.js\ncases:\n  - name: a\n    result: 0\n  - name: b\n    result: 1\n');
  fs.copyFileSync(FAKE, path.join(ws, 'bin', 'restls'));
  fs.chmodSync(path.join(ws, 'bin', 'restls'), 0o755);
  setWorkspaceFolder(ws);
});

afterEach(async () => {
  await deactivate();
  fs.rmSync(ws, { recursive: true, force: true });
});

test('the test files listed leave out the directories the server skips, as restls test does', async () => {
  for (const dir of ['.vscode', '.cache/x', 'node_modules/m', 'tests/.old']) {
    fs.mkdirSync(path.join(ws, dir), { recursive: true });
    fs.writeFileSync(path.join(ws, dir, 'skipped.test.yaml'), 'script: orders.js\n');
  }
  setSetting('restls.path', path.join(ws, 'bin', 'restls'));
  activate(fakeContext(ws));
  const c: TestController = recorded.testControllers[0];
  assert.ok(c, 'no test controller');
  await c.resolveHandler!();
  const listed: string[] = [];
  c.items.forEach((i) => listed.push(String(i.label)));
  assert.deepEqual(listed, [path.join('tests', 'orders.test.yaml')]);
});

test('a test file created while the window is open is listed unless it is in a directory the server skips', async () => {
  setSetting('restls.path', path.join(ws, 'bin', 'restls'));
  activate(fakeContext(ws));
  const c: TestController = recorded.testControllers[0];
  assert.ok(c, 'no test controller');
  await c.resolveHandler!();
  const w = recorded.watchers.find((x) => x.glob === '**/*.test.yaml');
  assert.ok(w, `no watcher of the server's testFiles glob: ${recorded.watchers.map((x) => String(x.glob)).join(', ')}`);
  const made = ['.vscode/new.test.yaml', 'tests/.old/new.test.yaml', 'node_modules/m/new.test.yaml', 'tests/new.test.yaml', '.hidden.test.yaml'];
  for (const rel of made) {
    fs.mkdirSync(path.dirname(path.join(ws, rel)), { recursive: true });
    fs.writeFileSync(path.join(ws, rel), 'script: orders.js\n');
    w.create.fire(Uri.file(path.join(ws, rel)));
    w.change.fire(Uri.file(path.join(ws, rel)));
  }
  const listed: string[] = [];
  c.items.forEach((i) => listed.push(String(i.label)));
  // A hidden file is a test file: only directories are skipped, as restls test skips them.
  assert.deepEqual(listed.sort(), ['.hidden.test.yaml', path.join('tests', 'new.test.yaml'), path.join('tests', 'orders.test.yaml')]);
});

test('skipMatcher reads the server\'s skip glob', () => {
  const re = globRegExp('**/{.*,node_modules}/**')!;
  for (const [p, want] of [
    ['.vscode/a.test.yaml', true],
    ['a/b/node_modules/x/a.test.yaml', true],
    ['a/.cache/a.test.yaml', true],
    ['.a.test.yaml', false],
    ['a/node_modules.test.yaml', false],
    ['a/b/a.test.yaml', false],
    ['xnode_modules/a.test.yaml', false],
  ] as const) {
    assert.equal(re.test(p), want, p);
  }
  assert.equal(globRegExp(''), undefined);
  assert.equal(globRegExp('{a,b'), undefined);
  assert.equal(globRegExp('x'.repeat(2000)), undefined);
});

test('test files are listed, run, and updated through the server', async () => {
  setSetting('restls.path', path.join(ws, 'bin', 'restls'));
  activate(fakeContext(ws));
  const c: TestController = recorded.testControllers[0];
  assert.ok(c, 'no test controller');
  await c.resolveHandler!();
  const file = c.items.get(`file://${path.join(ws, 'tests', 'orders.test.yaml')}`);
  assert.ok(file, 'the test file is not listed');
  assert.equal(file.label, path.join('tests', 'orders.test.yaml'));
  await c.resolveHandler!(file);
  const names: string[] = [];
  file.children.forEach((i) => names.push(`${i.label}@${i.range?.start.line}`));
  assert.deepEqual(names, ['a@2', 'b@4']);

  // Run all: one runTests for the file; a passes, b fails with a diff.
  await c.profiles[0].run({ include: undefined, exclude: [] }, { isCancellationRequested: false });
  const results = c.runs[0].filter((r) => r.state !== 'started');
  assert.deepEqual(results.map((r) => `${r.item.label}:${r.state}`), ['a:passed', 'b:failed']);
  const diff = results[1].messages[0];
  assert.equal(diff.message, '$.n: expected 1, got 2');
  assert.equal(diff.expectedOutput, '1');
  assert.equal(diff.actualOutput, '2');
  assert.equal(diff.location?.range.line, 4);
  assert.match(results[1].messages[1].message, /by JSON path/);

  // One case: runTests names it.
  const b = file.children.get(`${file.id}#b`)!;
  await c.profiles[0].run({ include: [b], exclude: [] }, { isCancellationRequested: false });
  assert.deepEqual(c.runs[1].filter((r) => r.state !== 'started').map((r) => `${r.item.label}:${r.state}`), ['b:failed']);

  // Update Expectation from the failure message applies the server's edit.
  assert.equal(await recorded.commands.get(UPDATE_EXPECTATION)!({ test: b, message: diff }), true);
  const edit = recorded.edits[0];
  assert.equal(edit.replaced.length, 1);
  assert.equal(edit.replaced[0].text, '2');
  assert.equal(edit.replaced[0].range.start.line, 5);
  assert.equal(edit.replaced[0].uri.fsPath, path.join(ws, 'tests', 'orders.test.yaml'));
});

test('a malformed test file shows its problem and errors when run', async () => {
  fs.writeFileSync(path.join(ws, 'tests', 'bad.test.yaml'), 'script: ../orders.js\ncases:\n  - bogus: 1\n');
  setSetting('restls.path', path.join(ws, 'bin', 'restls'));
  activate(fakeContext(ws));
  const c: TestController = recorded.testControllers[0];
  await c.resolveHandler!();
  const bad = c.items.get(`file://${path.join(ws, 'tests', 'bad.test.yaml')}`)!;
  await c.resolveHandler!(bad);
  assert.equal(bad.error, 'line 3: unknown key "bogus"');
  assert.equal(bad.children.size, 0);
  await c.profiles[0].run({ include: [bad], exclude: [] }, { isCancellationRequested: false });
  const results = c.runs[0].filter((r) => r.state !== 'started');
  assert.deepEqual(results.map((r) => `${r.item.label}:${r.state}`), [`${path.join('tests', 'bad.test.yaml')}:errored`]);
  assert.match(results[0].messages[0].message, /unknown key "bogus"/);
});

test('an open test file starts the server and is sent to it', async () => {
  setSetting('restls.path', path.join(ws, 'bin', 'restls'));
  const file = path.join(ws, 'tests', 'orders.test.yaml');
  openDocument(file, 'yaml');
  const ext: Restls = activate(fakeContext(ws));
  await waitFor(() => ext.running(), 'the server');
  const state = (await ext.client!.sendRequest('fake/state')) as { opened: string[] };
  assert.ok(state.opened.includes(`file://${file}`), JSON.stringify(state.opened));
});

test('Run with Coverage shows each script\'s lines, branches and call outcomes', async () => {
  setSetting('restls.path', path.join(ws, 'bin', 'restls'));
  activate(fakeContext(ws));
  const c: TestController = recorded.testControllers[0];
  await c.resolveHandler!();
  const profile = c.profiles.find((p) => p.label === 'Run with Coverage');
  assert.ok(profile, 'no coverage profile');
  assert.equal(profile.kind, 3);
  await profile.run({ include: undefined, exclude: [] }, { isCancellationRequested: false });
  const covered = c.coverage[0];
  assert.equal(covered.length, 1);
  const f = covered[0];
  assert.equal(f.uri.fsPath, path.join(ws, 'orders.js'));
  assert.deepEqual([f.statementCoverage.covered, f.statementCoverage.total], [2, 3]);
  assert.deepEqual([f.branchCoverage?.covered, f.branchCoverage?.total], [1, 2]);
  const details = await profile.loadDetailedCoverage!(undefined, f);
  assert.deepEqual(details.map((d: any) => `${d.location.line}:${d.executed}`), ['0:2', '1:0', '2:1']);
  assert.deepEqual(details[0].branches.map((b: any) => `${b.label}=${b.executed}`), ['if true=1', 'if false=0']);
  assert.deepEqual(details[2].branches.map((b: any) => `${b.label}=${b.executed}`), ['GET crm → 2XX=1', 'GET crm → 404=1']);
  // The server was asked for coverage; a plain run does not ask.
  await c.profiles[0].run({ include: undefined, exclude: [] }, { isCancellationRequested: false });
  assert.equal(c.coverage[1].length, 0);
});
