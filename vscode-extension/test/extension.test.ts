// Command wiring, settings changes, notifications and the status bar,
// through the real vscode-languageclient against test/fixtures/fake-restls.js.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, test } from 'node:test';
import { Position, answers, fakeContext, openDocument, recorded, reset, setSetting, setWorkspaceFolder, settings, waitFor, waitForAsync, vscode } from './vscode-mock';
import { Commands, Restls, activate, deactivate } from '../src/extension';

const FAKE = path.join(__dirname, '..', '..', '..', 'test', 'fixtures', 'fake-restls.js');

let ws: string;
let ext: Restls | undefined;

beforeEach(() => {
  reset();
  ws = fs.mkdtempSync(path.join(os.tmpdir(), 'restls-ws-'));
  fs.mkdirSync(path.join(ws, 'scripts'));
  fs.mkdirSync(path.join(ws, 'bin'));
  fs.mkdirSync(path.join(ws, 'lib'));
  fs.writeFileSync(path.join(ws, 'scripts', 'order.js'), 'var r = api.rest.v1.get("crm-customers", {pathParams: ["42"]}, {});\nr.body.name;\n');
  fs.writeFileSync(path.join(ws, 'scripts', 'input.js'), 'var id = context.input.id;\n');
  fs.writeFileSync(path.join(ws, 'input.json'), '{"id": 42}');
  fs.writeFileSync(path.join(ws, 'lib', 'util.js'), 'module.exports = 1;\n');
  fs.copyFileSync(FAKE, path.join(ws, 'bin', 'restls'));
  fs.chmodSync(path.join(ws, 'bin', 'restls'), 0o755);
  setWorkspaceFolder(ws);
  delete process.env.FAKE_RESTLS_CRASH;
});

afterEach(async () => {
  await deactivate();
  ext = undefined;
  fs.rmSync(ws, { recursive: true, force: true });
});

function statusItem(): { text: string; tooltip: string; visible: boolean; command: string } {
  return recorded.statusItems[0];
}

async function startWithFake(extra: Record<string, unknown> = {}): Promise<Restls> {
  settings.set('restls.path', '${workspaceFolder}/bin/restls');
  settings.set('restls.configRoot', 'testdata/config');
  for (const [k, v] of Object.entries(extra)) {
    settings.set(k, v);
  }
  if (!vscode.workspace.textDocuments.length) {
    // The server starts for a workspace with platform scripts open.
    openDocument(path.join(ws, 'scripts', 'order.js'), 'javascript', false);
  }
  ext = activate(fakeContext(path.join(ws, 'ext')));
  await waitFor(() => ext!.running(), 'the fake server to run');
  return ext;
}

async function fakeState(e: Restls): Promise<any> {
  return e.client!.sendRequest('fake/state');
}

test('all five commands are registered, none clashes with the server commands', async () => {
  const e = await startWithFake();
  for (const id of Object.values(Commands)) {
    assert.ok(recorded.commands.has(id), id);
  }
  // The language client registers the server's own commands next to ours.
  await waitFor(() => recorded.commands.has('restls.runScript'), 'the client to register restls.runScript');
  assert.equal(recorded.messages.filter((m) => m.level === 'error').length, 0, JSON.stringify(recorded.messages));
  assert.ok(e.running());
});

test('a missing binary gives one notification with Open Setting, the status bar says why, no restart loop', async () => {
  settings.set('restls.path', '/nonexistent/restls');
  // A workspace set up for restls: opening a file starts the server.
  settings.set('restls.configRoot', 'testdata/config');
  let asked: ((v: string) => void) | undefined;
  const picked = new Promise<string>((r) => (asked = r));
  answers.message = (m) => {
    asked!(m.message);
    return 'Open Setting';
  };
  openDocument(path.join(ws, 'scripts', 'order.js'));
  ext = activate(fakeContext(path.join(ws, 'ext')));
  const msg = await picked;
  assert.match(msg, /restls\.path is "\/nonexistent\/restls"/);
  await waitFor(() => recorded.executed.find((x) => x.command === 'workbench.action.openSettings'), 'Open Setting to open the setting');
  assert.deepEqual(recorded.executed.find((x) => x.command === 'workbench.action.openSettings')!.args, ['restls.path']);
  const errors = () => recorded.messages.filter((m) => m.level === 'error');
  assert.equal(errors().length, 1);
  assert.deepEqual(errors()[0].items, ['Open Setting', 'Show Log']);
  assert.equal(statusItem().text, '$(error) restls');
  assert.match(statusItem().tooltip, /nonexistent/);
  assert.ok(statusItem().visible);
  // Automatic restarts with the same problem stay quiet.
  await ext.restart(false);
  await ext.restart(false);
  assert.equal(errors().length, 1, 'the same problem is reported once');
  assert.equal(ext.client, undefined, 'no client was started');
  // Fixing the setting starts the server, and the problem goes away.
  setSetting('restls.path', path.join(ws, 'bin', 'restls'));
  await waitFor(() => ext!.running(), 'the server after the fix');
  await waitFor(() => statusItem().text.includes('3 services'), 'the status bar to show services');
});

test('initializationOptions carry resolved paths; the status bar follows restls/status for the active kind', async () => {
  openDocument(path.join(ws, 'scripts', 'order.js'));
  const e = await startWithFake({ 'restls.scriptKinds': { 'scripts/task*.js': 'scriptTask' } });
  const st = await fakeState(e);
  assert.equal(st.initializationOptions.configRoot, path.join(ws, 'testdata/config'));
  assert.deepEqual(st.initializationOptions.scriptKinds, { 'scripts/task*.js': 'scriptTask' });
  assert.deepEqual(st.argv, ['serve', '--log-level', 'info', '--stdio']);
  await waitFor(() => statusItem().text === '$(check) restls: 3 services', 'the services count');
  assert.equal(statusItem().command, Commands.showServices);
  assert.equal(recorded.contexts.get('restls.isScript'), true);
  // A script handler has no services: say so, with the reason.
  fs.writeFileSync(path.join(ws, 'scripts', 'task1.js'), '// a handler\n');
  openDocument(path.join(ws, 'scripts', 'task1.js'));
  // The kind is the server's answer (restls/documentInfo), not the extension's.
  await waitFor(() => statusItem().text === '$(warning) restls: no serviceId hints', `the scriptTask status: ${statusItem().text}`);
  assert.match(statusItem().tooltip, /scriptTask: script-handler-api\.xml:4:3: unknown element <apii>/);
  // A JavaScript file the server's globs of scripts do not select is not ours.
  openDocument(path.join(ws, 'lib', 'util.js'));
  await waitFor(() => !statusItem().visible && recorded.contexts.get('restls.isScript') === false, 'no status item for lib/util.js');
  const opened = (await fakeState(e)).opened as string[];
  assert.ok(opened.some((u) => u.endsWith('/scripts/order.js')));
  assert.ok(!opened.some((u) => u.endsWith('/lib/util.js')), 'restls must not take over every JavaScript file');
});

test('configuration files go to the server by name, whatever their language; other YAML, XML and properties files do not', async () => {
  const e = await startWithFake();
  const files: [string, string, boolean][] = [
    ['config/application.yml', 'yaml', true],
    ['config/application.yaml', 'yaml', true],
    ['config/application.properties', 'properties', true],
    ['config/script-code-config/script-service-api.xml', 'xml', true],
    ['config/script-handler-config/script-handler-api.xml', 'xml', true],
    ['restls.yaml', 'yaml', true],
    ['config/other.yml', 'yaml', false],
    ['pom.xml', 'xml', false],
    ['config/logging.properties', 'properties', false],
  ];
  for (const [f] of files) {
    fs.mkdirSync(path.dirname(path.join(ws, f)), { recursive: true });
    fs.writeFileSync(path.join(ws, f), '\n');
  }
  for (const [f, lang] of files) {
    openDocument(path.join(ws, f), lang, false);
  }
  await waitForAsync(async () => ((await fakeState(e)).opened as string[]).some((u) => u.endsWith('/restls.yaml')), 'the configuration files to be opened on the server');
  const opened = (await fakeState(e)).opened as string[];
  for (const [f, , want] of files) {
    assert.equal(opened.some((u) => u.endsWith('/' + f)), want, f);
  }
  // Not a script: no status bar kind, no dry run.
  assert.equal(recorded.contexts.get('restls.isScript'), false);
});

test('restls.showReferences (the server\'s code lens) opens the references view at the entry', async () => {
  await startWithFake();
  const uri = 'file://' + path.join(ws, 'config', 'application.yml');
  await recorded.commands.get(Commands.showReferences)!(uri, { line: 2, character: 17 });
  const call = recorded.executed.find((c) => c.command === 'editor.action.findReferences');
  assert.ok(call, JSON.stringify(recorded.executed.map((c) => c.command)));
  assert.equal(call.args[0].toString(), vscode.Uri.parse(uri).toString());
  assert.deepEqual([call.args[1].line, call.args[1].character], [2, 17]);
  // Arguments of another shape are ignored.
  const before = recorded.executed.length;
  await recorded.commands.get(Commands.showReferences)!(42);
  assert.equal(recorded.executed.filter((c) => c.command === 'editor.action.findReferences').length, 1, String(before));
});

test('dry run: runScript with the document uri, then a Response Preview with escaped values', async () => {
  const doc = openDocument(path.join(ws, 'scripts', 'order.js'));
  const e = await startWithFake();
  const result = await recorded.commands.get(Commands.dryRun)!();
  assert.ok(result, JSON.stringify(recorded.messages));
  const st = await fakeState(e);
  assert.deepEqual(st.runArgs, [{ uri: doc.uri.toString(), mock: 'auto' }], 'no input for a script that does not read context.input; the default mode is auto');
  assert.equal(recorded.webviews.length, 1);
  const panel = recorded.webviews[0];
  assert.equal(panel.title, 'Response Preview: order.js');
  assert.equal(panel.options.enableScripts, true);
  assert.deepEqual(panel.options.localResourceRoots, []);
  const html: string = panel.webview.html;
  assert.match(html, /<span class="restls-sid">crm-customers<\/span>/);
  assert.ok(!html.includes('<script>window.hacked'), 'response bodies are escaped');
  assert.ok(html.includes('&lt;script&gt;window.hacked = 2&lt;/script&gt;'));
  assert.equal((html.match(/<script\b/g) ?? []).length, 1);
  // The line links reveal the script.
  panel.receive({ type: 'reveal', line: 2, column: 3 });
  await waitFor(() => vscode.window.activeTextEditor?.selection?.start?.line === 1, 'the line to be revealed');
  // A second run reuses the panel.
  openDocument(path.join(ws, 'scripts', 'order.js'));
  await recorded.commands.get(Commands.dryRun)!();
  assert.equal(recorded.webviews.length, 1);
});

test('dry run: a script reading context.input asks for an input file and sends its JSON', async () => {
  const doc = openDocument(path.join(ws, 'scripts', 'input.js'));
  const e = await startWithFake();
  const { Uri } = require('./vscode-mock') as typeof import('./vscode-mock');
  answers.quickPick = (items) => items.find((i: any) => i.id === 'choose');
  answers.openDialog = () => [Uri.file(path.join(ws, 'input.json'))];
  await recorded.commands.get(Commands.dryRun)!();
  assert.deepEqual((await fakeState(e)).runArgs, [{ uri: doc.uri.toString(), mock: 'auto', input: { id: 42 } }]);
  // The file is offered again next time.
  answers.quickPick = (items) => items.find((i: any) => i.id === 'last');
  await recorded.commands.get(Commands.dryRun)!();
  assert.equal((await fakeState(e)).runArgs.length, 2);
  assert.equal(recorded.quickPicks[1].items[0].detail, path.join(ws, 'input.json'));
  // Cancelling the pick cancels the run.
  answers.quickPick = () => undefined;
  assert.equal(await recorded.commands.get(Commands.dryRun)!(), undefined);
  assert.equal((await fakeState(e)).runArgs.length, 2);
  // A broken input file names the file.
  fs.writeFileSync(path.join(ws, 'bad.json'), '{nope');
  answers.quickPick = (items) => items.find((i: any) => i.id === 'choose');
  answers.openDialog = () => [Uri.file(path.join(ws, 'bad.json'))];
  await recorded.commands.get(Commands.dryRun)!();
  assert.match(recorded.messages.at(-1)!.message, /cannot use .*bad\.json as context\.input/);
  assert.equal((await fakeState(e)).runArgs.length, 2);
});

test('dry run outside a platform script says what to do', async () => {
  await startWithFake();
  openDocument(path.join(ws, 'lib', 'util.js'));
  await recorded.commands.get(Commands.dryRun)!();
  assert.match(recorded.messages.at(-1)!.message, /open a platform script first/);
  assert.equal(recorded.webviews.length, 0);
});

test('show services: quick pick with url and description; the pick is inserted', async () => {
  fs.writeFileSync(path.join(ws, 'scripts', 'new.js'), 'api.rest.v1.get();\n');
  const doc = openDocument(path.join(ws, 'scripts', 'new.js'), 'javascript', true, new Position(0, 16));
  await startWithFake();
  answers.quickPick = (items) => items.find((i: any) => i.label === 'geo');
  const id = await recorded.commands.get(Commands.showServices)!();
  assert.equal(id, 'geo');
  const items = recorded.quickPicks[0].items;
  assert.deepEqual(
    items.map((i: any) => [i.label, i.description, i.detail]),
    [
      ['crm-customers', 'https://crm.example.com/api/v2/customers', 'CRM customers collection'],
      ['geo', 'https://geo.example.com/v1', 'Address lookup'],
      ['weather', 'https://weather.example.com/v2', undefined],
    ],
  );
  assert.equal(doc.getText(), 'api.rest.v1.get("geo");\n');
  assert.deepEqual((await fakeState(ext!)).servicesArgs, { uri: doc.uri.toString() }, 'the server decides the kind of an open script');
});

test('reload and restart commands', async () => {
  const e = await startWithFake();
  await recorded.commands.get(Commands.reload)!();
  assert.match(recorded.messages.at(-1)!.message, /^restls: configuration reloaded\.$/);
  const first = e.client;
  await recorded.commands.get(Commands.restart)!();
  assert.ok(e.running());
  assert.notEqual(e.client, first, 'a new client after Restart Server');
});

test('settings: a source change reconfigures the running server, a log level change restarts it', async () => {
  const e = await startWithFake();
  const client = e.client;
  setSetting('restls.trace.server', 'verbose');
  assert.equal(e.client, client, 'the client applies trace itself');
  setSetting('restls.configRoot', 'other/config');
  const resolved = await waitForAsync(async () => {
    const st = await fakeState(e);
    return st.configurations.length > 0 && st;
  }, 'didChangeConfiguration');
  assert.deepEqual(resolved.configurations[0], { restls: { configRoot: path.join(ws, 'other/config'), properties: [], serviceXml: '', handlerXml: '', platformConfig: '', scriptKinds: {} } });
  assert.equal(e.client, client, 'no restart for a source change');
  setSetting('restls.logLevel', 'debug');
  await waitFor(() => e.client !== client && e.running(), 'a restart');
  assert.deepEqual((await fakeState(e)).argv, ['serve', '--log-level', 'debug', '--stdio']);
  assert.equal((await fakeState(e)).initializationOptions.configRoot, path.join(ws, 'other/config'), 'the new server starts with the current sources');
});

test('an unrelated JavaScript project gets no server and no message until a script is opened', async () => {
  settings.set('restls.path', '${workspaceFolder}/bin/restls');
  openDocument(path.join(ws, 'lib', 'util.js'));
  ext = activate(fakeContext(path.join(ws, 'ext')));
  await waitFor(() => recorded.outputs[0]?.lines.some((l) => /starts when a script is opened/.test(l)), 'the extension to decide');
  assert.equal(ext.started, false);
  // Opening the Testing view asks the binary which files are tests, and starts nothing.
  await recorded.testControllers[0].resolveHandler!();
  assert.equal(ext.started, false, 'the Testing view started a server');
  assert.equal(recorded.messages.length, 0, JSON.stringify(recorded.messages));
  assert.equal(statusItem().visible, false);
  // Opening a platform script starts it: the binary's default globs
  // (restls version --json) select it, not a list of the extension's.
  openDocument(path.join(ws, 'scripts', 'order.js'));
  await waitFor(() => ext!.running(), 'the server for scripts/order.js');
  assert.equal(recorded.messages.filter((m) => m.level === 'error').length, 0);
});

test('before a server runs, the binary says which files are scripts: one naming other globs is followed', async () => {
  process.env.FAKE_RESTLS_SCRIPTS = '**/lib/*.js';
  try {
    settings.set('restls.path', '${workspaceFolder}/bin/restls');
    openDocument(path.join(ws, 'scripts', 'order.js'));
    ext = activate(fakeContext(path.join(ws, 'ext')));
    await waitFor(() => recorded.outputs[0]?.lines.some((l) => /starts when a script is opened/.test(l)), 'the extension to decide');
    assert.equal(ext.started, false, 'scripts/order.js is not a script of this binary');
    openDocument(path.join(ws, 'lib', 'util.js'));
    await waitFor(() => ext!.running(), 'the server for lib/util.js');
  } finally {
    delete process.env.FAKE_RESTLS_SCRIPTS;
  }
});

test('the server decides which files are scripts and tests: a server naming other globs is followed, and the extension keeps no copy', async () => {
  fs.mkdirSync(path.join(ws, 'handlers'));
  fs.writeFileSync(path.join(ws, 'handlers', 'nightly.js'), 'return 1;\n');
  fs.mkdirSync(path.join(ws, 't'));
  fs.writeFileSync(path.join(ws, 't', 'orders.spec.yaml'), 'script: ../handlers/nightly.js\ncases:\n  - name: a\n    result: 0\n');
  fs.writeFileSync(path.join(ws, 't', 'orders.test.yaml'), 'script: ../handlers/nightly.js\ncases:\n  - name: a\n    result: 0\n');
  const handler = openDocument(path.join(ws, 'handlers', 'nightly.js'));
  openDocument(path.join(ws, 'scripts', 'order.js'));
  const e = await startWithFake({ 'restls.serverEnv': { FAKE_RESTLS_SCRIPTS: '**/handlers/*.js', FAKE_RESTLS_TESTS: '**/*.spec.yaml' } });
  assert.deepEqual(e.files, { scripts: ['**/handlers/*.js'], testFiles: '**/*.spec.yaml', skip: '**/{.*,node_modules}/**' }, 'the initialize answer');
  // The document selector is the server's: the handler is sent, scripts/order.js is not.
  await waitForAsync(async () => ((await fakeState(e)).opened as string[]).some((u) => u.endsWith('/handlers/nightly.js')), 'the handler sent to the server');
  const opened = (await fakeState(e)).opened as string[];
  assert.ok(!opened.some((u) => u.endsWith('/scripts/order.js')), `not a script of this server: ${opened.join(', ')}`);
  // Run commands and the status bar follow the server's documentInfo.
  await waitFor(() => recorded.contexts.get('restls.isScript') === false, 'scripts/order.js (active) is no script');
  assert.equal(await e.isScript(handler as any), true);
  // The Testing view finds the server's test files, not *.test.yaml.
  const c = recorded.testControllers[0];
  await c.resolveHandler!();
  const listed: string[] = [];
  c.items.forEach((i: { label: string }) => listed.push(i.label));
  assert.deepEqual(listed, [path.join('t', 'orders.spec.yaml')]);
});

test('a service configuration in the workspace starts the server without an open script', async () => {
  fs.mkdirSync(path.join(ws, 'webforms', 'script-code-config'), { recursive: true });
  fs.writeFileSync(path.join(ws, 'webforms', 'script-code-config', 'script-service-api.xml'), '<scriptservice/>');
  settings.set('restls.path', path.join(ws, 'bin', 'restls'));
  ext = activate(fakeContext(path.join(ws, 'ext')));
  await waitFor(() => ext!.running(), 'the server');
});

test('a server that keeps crashing is restarted 3 times, then one notification', async () => {
  process.env.FAKE_RESTLS_CRASH = '1';
  settings.set('restls.path', path.join(ws, 'bin', 'restls'));
  openDocument(path.join(ws, 'scripts', 'order.js'), 'javascript', false);
  ext = activate(fakeContext(path.join(ws, 'ext')));
  await waitFor(() => recorded.messages.find((m) => /stopped 4 times in 3 minutes/.test(m.message)), 'the crash-loop notification', 20_000);
  const errors = recorded.messages.filter((m) => m.level === 'error');
  assert.equal(errors.length, 1, JSON.stringify(errors));
  assert.deepEqual(errors[0].items, ['Show Log', 'Restart Server']);
});

test('a server that exits before answering initialize: restarted 3 times, one notification, no promise left rejected', async () => {
  // vscode-languageclient rejects the pending initialize when the
  // connection closes; the extension must handle every promise of it.
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  process.on('unhandledRejection', onUnhandled);
  try {
    process.env.FAKE_RESTLS_CRASH = 'initialize';
    settings.set('restls.path', path.join(ws, 'bin', 'restls'));
    openDocument(path.join(ws, 'scripts', 'order.js'), 'javascript', false);
    ext = activate(fakeContext(path.join(ws, 'ext')));
    await waitFor(() => recorded.messages.find((m) => /stopped 4 times in 3 minutes/.test(m.message)), 'the crash-loop notification', 20_000);
    await deactivate();
    ext = undefined;
    const errors = recorded.messages.filter((m) => m.level === 'error');
    assert.equal(errors.length, 1, JSON.stringify(errors));
    assert.deepEqual(errors[0].items, ['Show Log', 'Restart Server']);
    assert.deepEqual(unhandled.map(String), []);
  } finally {
    process.off('unhandledRejection', onUnhandled);
  }
});

test('CodeLenses above a script: Dry run and Record mocks; Dry run with mocks once the file beside it exists', async () => {
  const doc = openDocument(path.join(ws, 'scripts', 'order.js'));
  const e = await startWithFake();
  const reg = recorded.providers.find((p) => p.kind === 'languages.registerCodeLensProvider');
  assert.ok(reg, 'a CodeLens provider is registered');
  const lenses = async () => (await reg.provider.provideCodeLenses(doc)) as { range: any; command: { title: string; command: string; arguments: any[] } }[];
  assert.deepEqual(
    (await lenses()).map((l) => [l.command.title, l.command.command, l.range.start.line]),
    [
      ['$(play) Dry run', Commands.dryRunLive, 0],
      ['$(record) Record mocks', Commands.recordMocks, 0],
    ],
  );
  assert.deepEqual((await lenses())[0].command.arguments, [doc.uri]);
  // Not on other JavaScript.
  const util = openDocument(path.join(ws, 'lib', 'util.js'), 'javascript', false);
  assert.deepEqual(await reg.provider.provideCodeLenses(util), []);
  // Record mocks: record "auto"; the fake writes nothing, so write the file as restls would.
  let refreshed = 0;
  e.lenses.onDidChangeCodeLenses(() => refreshed++);
  const rec = (await lenses())[1].command;
  await recorded.commands.get(rec.command)!(...rec.arguments);
  assert.deepEqual((await fakeState(e)).runArgs.at(-1), { uri: doc.uri.toString(), record: 'auto' });
  assert.equal(refreshed, 1, 'the lenses are asked again after a recording');
  assert.match(recorded.webviews[0].webview.html, /<span class="restls-mode">live, recorded to order\.mock\.yaml<\/span>/);
  fs.writeFileSync(path.join(ws, 'scripts', 'order.mock.yaml'), 'fixtures: []\n');
  const withMocks = await lenses();
  assert.deepEqual(
    withMocks.map((l) => l.command.title),
    ['$(play) Dry run', '$(beaker) Dry run with mocks', '$(record) Record mocks'],
  );
  // Dry run with mocks names the file; the preview says which mode ran.
  openDocument(path.join(ws, 'lib', 'util.js')); // the lens names its script, whatever is active
  await recorded.commands.get(withMocks[1].command.command)!(...withMocks[1].command.arguments);
  assert.deepEqual((await fakeState(e)).runArgs.at(-1), { uri: doc.uri.toString(), mock: path.join(ws, 'scripts', 'order.mock.yaml') });
  assert.match(recorded.webviews[0].webview.html, /<span class="restls-mode">mocks from order\.mock\.yaml<\/span>/);
  await recorded.commands.get(withMocks[0].command.command)!(...withMocks[0].command.arguments);
  assert.deepEqual((await fakeState(e)).runArgs.at(-1), { uri: doc.uri.toString(), mock: false });
  assert.match(recorded.webviews[0].webview.html, /<span class="restls-mode">live services<\/span>/);
});

test('the default mode: restls.dryRun.mode for the title button and the keybinding; mock without a file offers to record', async () => {
  const doc = openDocument(path.join(ws, 'scripts', 'order.js'));
  const e = await startWithFake();
  settings.set('restls.dryRun.mode', 'live');
  await recorded.commands.get(Commands.dryRun)!();
  assert.deepEqual((await fakeState(e)).runArgs.at(-1), { uri: doc.uri.toString(), mock: false });
  // The editor-title button passes the script's URI.
  openDocument(path.join(ws, 'lib', 'util.js'));
  await recorded.commands.get(Commands.dryRun)!(doc.uri);
  assert.equal((await fakeState(e)).runArgs.length, 2);
  settings.set('restls.dryRun.mode', 'mock');
  answers.message = (m) => (m.items.includes('Record Mocks') ? 'Record Mocks' : undefined);
  assert.equal(await recorded.commands.get(Commands.dryRun)!(doc.uri), undefined);
  const warn = recorded.messages.find((m) => m.level === 'warning')!;
  assert.equal(warn.message, 'restls: there is no order.mock.yaml or order.mock.json beside order.js: record the mocks first ("Record mocks" above the script) or write the file by hand.');
  await waitForAsync(async () => (await fakeState(e)).runArgs.length === 3, 'Record Mocks to record');
  assert.deepEqual((await fakeState(e)).runArgs.at(-1), { uri: doc.uri.toString(), record: 'auto' });
  const pkg = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', '..', 'package.json'), 'utf8'));
  assert.deepEqual(pkg.contributes.keybindings, [{ command: Commands.dryRun, key: 'ctrl+alt+r', mac: 'cmd+alt+r', when: 'editorTextFocus && restls.isScript' }]);
  assert.deepEqual(pkg.contributes.configuration.properties['restls.dryRun.mode'].enum, ['auto', 'live', 'mock']);
  // Debug Script is the run menu's second entry: the button stays Dry run.
  assert.deepEqual(pkg.contributes.menus['editor/title/run'], [{ command: Commands.dryRun, when: 'restls.isScript' }, { command: 'restls.debugScript', when: 'restls.isScript' }], 'the title button keeps its place');
});

test('Copy as cURL copies the call\'s curl command from the result, never from the page; the page shows it escaped', async () => {
  openDocument(path.join(ws, 'scripts', 'order.js'));
  await startWithFake();
  const result = await recorded.commands.get(Commands.dryRun)!();
  const panel = recorded.webviews[0];
  const html: string = panel.webview.html;
  assert.match(html, /<button type="button" class="restls-copy" data-action="copy" data-call="0"/);
  assert.ok(html.includes('X-Note: &lt;img src=x onerror=alert(3)&gt;'), 'the command is escaped');
  assert.ok(!html.includes('<img'), 'no markup from the command');
  panel.receive({ type: 'copyCurl', call: 1 });
  await waitFor(() => recorded.clipboard.length === 1, 'the clipboard');
  assert.equal(recorded.clipboard[0], result.calls[0].curl);
  panel.receive({ type: 'copyCurl', call: 9 });
  panel.receive({ type: 'copyCurl', call: '1' });
  assert.equal(recorded.clipboard.length, 1, 'no call 9, and the index is a number');
});

test('package.json associates the fixture, script test and project file schemas, which the build copies from the restls tree', () => {
  const root = path.join(__dirname, '..', '..', '..');
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
  assert.deepEqual(pkg.contributes.jsonValidation, [{ fileMatch: ['*.mock.json'], url: './dist/mock.schema.json' }]);
  assert.deepEqual(pkg.contributes.yamlValidation, [
    { fileMatch: ['*.mock.yaml', '*.mock.yml'], url: './dist/mock.schema.json' },
    { fileMatch: ['*.test.yaml'], url: './dist/test.schema.json' },
    { fileMatch: ['restls.yaml'], url: './dist/restls.schema.json' },
  ]);
  assert.equal(
    fs.readFileSync(path.join(root, 'dist', 'restls.schema.json'), 'utf8'),
    fs.readFileSync(path.join(root, '..', 'workspace', 'schema', 'restls.schema.json'), 'utf8'),
  );
  assert.equal(
    fs.readFileSync(path.join(root, 'dist', 'mock.schema.json'), 'utf8'),
    fs.readFileSync(path.join(root, '..', 'runtime', 'restclient', 'schema', 'mock.schema.json'), 'utf8'),
  );
  // The packaged test schema is restls's, with its reference to the fixture
  // schema pointing at the file beside it (no address to fetch).
  const source = JSON.parse(fs.readFileSync(path.join(root, '..', 'scripttest', 'schema', 'test.schema.json'), 'utf8'));
  const packaged = JSON.parse(fs.readFileSync(path.join(root, 'dist', 'test.schema.json'), 'utf8'));
  assert.equal(packaged.$id, undefined);
  const text = JSON.stringify(packaged);
  assert.match(text, /"\$ref":"\.\/mock\.schema\.json#\/\$defs\/fixtureList"/);
  assert.doesNotMatch(text, /"\$ref":"https?:/);
  const mockID = JSON.parse(fs.readFileSync(path.join(root, 'dist', 'mock.schema.json'), 'utf8')).$id;
  delete source.$id;
  assert.equal(text, JSON.stringify(source).split(JSON.stringify(mockID).slice(0, -1)).join('"./mock.schema.json'));
  const ignore = fs.readFileSync(path.join(root, '.vscodeignore'), 'utf8');
  assert.match(ignore, /^!dist\/mock\.schema\.json$/m, 'the fixture schema is packaged');
  assert.match(ignore, /^!dist\/test\.schema\.json$/m, 'the script test schema is packaged');
});

test('restls.serverArgs and restls.serverEnv reach the server process', async () => {
  const e = await startWithFake({ 'restls.serverArgs': ['--run-timeout', '2m'], 'restls.serverEnv': { FAKE_RESTLS_ECHO: 'from-settings', HOME: '' } });
  const st = await fakeState(e);
  assert.deepEqual(st.argv, ['serve', '--log-level', 'info', '--run-timeout', '2m', '--stdio']);
  assert.deepEqual(st.env, { FAKE_RESTLS_ECHO: 'from-settings' }, 'added, and HOME removed by its empty value');
  const client = e.client;
  setSetting('restls.serverEnv', { FAKE_RESTLS_ECHO: 'changed' });
  await waitFor(() => e.client !== client && e.running(), 'a restart for the new environment');
  assert.equal((await fakeState(e)).env.FAKE_RESTLS_ECHO, 'changed');
});

test('the binary bundled in the extension (bin/<platform>-<arch>/restls) comes before restls.path and PATH', async () => {
  const extDir = path.join(ws, 'ext');
  const bundled = path.join(extDir, 'bin', `${process.platform}-${process.arch}`, 'restls');
  fs.mkdirSync(path.dirname(bundled), { recursive: true });
  fs.copyFileSync(FAKE, bundled);
  fs.chmodSync(bundled, 0o755);
  settings.set('restls.path', '/nonexistent/restls');
  settings.set('restls.configRoot', 'testdata/config');
  openDocument(path.join(ws, 'scripts', 'order.js'));
  ext = activate(fakeContext(extDir));
  await waitFor(() => ext!.running(), 'the bundled server');
  const log = recorded.outputs.find((o) => o.name === 'restls')!.lines.join('\n');
  assert.ok(log.includes(`starting ${bundled} (extension, restls 0.9.0)`), log);
  assert.match(log, /restls\.path \(\/nonexistent\/restls\) is not used: the binary bundled in the extension comes first/);
  assert.equal(recorded.messages.filter((m) => m.level === 'error').length, 0);
});

test('environments: the server\'s list and the one in force are shown; the pick is remembered per workspace and sent to the server', async () => {
  const envs = { test: { configRoot: 'envs/test' }, production: { configRoot: 'envs/prod', properties: ['prod.yml'] } };
  // Without environments the command says how to define them.
  openDocument(path.join(ws, 'scripts', 'order.js'));
  let e = await startWithFake();
  await waitFor(() => statusItem().text === '$(check) restls: 3 services', 'the services count');
  answers.message = () => 'Open Setting';
  assert.equal(await recorded.commands.get(Commands.selectEnvironment)!(), undefined);
  await waitFor(() => recorded.executed.find((x) => x.command === 'workbench.action.openSettings' && x.args[0] === 'restls.environments'), 'the environments setting');
  assert.equal(statusItem().command, Commands.showServices, 'no environments: the item lists the services');

  // The setting goes to the server, which lists the environments.
  setSetting('restls.environments', envs);
  const sentEnvs = await waitForAsync(async () => (await fakeState(e)).configurations.find((x: any) => x.restls.environments), 'the environments sent');
  assert.deepEqual(sentEnvs.restls.environments.production, { configRoot: path.join(ws, 'envs/prod'), properties: [path.join(ws, 'prod.yml')], serviceXml: '', handlerXml: '', platformConfig: '' });
  await waitFor(() => statusItem().text === '$(check) restls: default · 3 services', `no pick named: ${statusItem().text}`);
  answers.quickPick = (items) => items.find((i: { label: string }) => i.label === 'production');
  assert.equal(await recorded.commands.get(Commands.selectEnvironment)!(), 'production');
  const pick = recorded.quickPicks.at(-1)!;
  assert.deepEqual(pick.items.map((i: { label: string; detail: string }) => [i.label, i.detail]), [
    ['$(check) default', path.join('testdata', 'config')],
    ['production', 'envs/prod, prod.yml'],
    ['test', 'envs/test'],
  ]);
  const sent = await waitForAsync(async () => (await fakeState(e)).configurations.find((x: any) => x.restls.environment === 'production'), 'the pick sent to the server');
  assert.equal(sent.restls.configRoot, path.join(ws, 'testdata/config'), 'the plain settings stay the plain settings: the server picks');
  await waitFor(() => statusItem().text === '$(check) restls: production · 3 services', `the server's answer named: ${statusItem().text}`);
  assert.equal(statusItem().command, Commands.selectEnvironment);
  assert.equal(e.environment(), 'production');

  // Another window on the same workspace (the same workspaceState) starts with it.
  const ctx = (e as any).ctx;
  await deactivate();
  reset();
  setWorkspaceFolder(ws);
  settings.set('restls.path', '${workspaceFolder}/bin/restls');
  settings.set('restls.configRoot', 'testdata/config');
  settings.set('restls.environments', envs);
  openDocument(path.join(ws, 'scripts', 'order.js'));
  ext = e = activate(ctx);
  await waitFor(() => e.running(), 'the server in the second window');
  assert.equal((await fakeState(e)).initializationOptions.environment, 'production');
  await waitFor(() => statusItem().text === '$(check) restls: production · 3 services', `the status bar: ${statusItem().text}`);
  // An environment removed from the settings: the server no longer names it.
  setSetting('restls.environments', { test: envs.test });
  await waitFor(() => statusItem().text === '$(check) restls: default · 3 services', `default again: ${statusItem().text}`);
});

test('environments of the project file (restls.yaml): the status lists them, the pick is sent by name and remembered', async () => {
  openDocument(path.join(ws, 'scripts', 'order.js'));
  const e = await startWithFake({ 'restls.serverEnv': { FAKE_RESTLS_ENVIRONMENTS: 'ci,broken' } });
  await waitFor(() => statusItem().text === '$(check) restls: ci · 3 services', `the default environment named: ${statusItem().text}`);
  answers.quickPick = (items) => items.find((i: { label: string }) => i.label === 'broken');
  assert.equal(await recorded.commands.get(Commands.selectEnvironment)!(), 'broken');
  assert.deepEqual(recorded.quickPicks.at(-1)!.items.map((i: { label: string }) => i.label), ['default', 'broken', '$(check) ci']);
  const sent = await waitForAsync(async () => (await fakeState(e)).configurations.find((x: any) => x.restls.environment === 'broken'), 'the environment sent by name');
  assert.ok(!('environment' in (await fakeState(e)).initializationOptions), 'nothing picked at first: the server\'s default');
  assert.ok(sent.restls.configRoot, 'the other settings still go with it');
  await waitFor(() => statusItem().text.includes('restls: broken'), `the pick in the status bar: ${statusItem().text}`);
  assert.equal(e.environment(), 'broken');
});

test('environments: another server\'s list and choice are followed, whatever the settings say', async () => {
  // A server that lists "blue" and "green" and puts none in force: the
  // extension shows that, though restls.environments is empty.
  openDocument(path.join(ws, 'scripts', 'order.js'));
  const e = await startWithFake({ 'restls.serverEnv': { FAKE_RESTLS_ENVIRONMENTS: '-green,blue' } });
  await waitFor(() => statusItem().text === '$(check) restls: default · 3 services', `the server's answer: ${statusItem().text}`);
  answers.quickPick = (items) => items.find((i: { label: string }) => i.label === 'green');
  assert.equal(await recorded.commands.get(Commands.selectEnvironment)!(), 'green');
  assert.deepEqual(recorded.quickPicks.at(-1)!.items.map((i: { label: string }) => i.label), ['$(check) default', 'blue', 'green']);
  await waitFor(() => statusItem().text === '$(check) restls: green · 3 services', `green in force: ${statusItem().text}`);
  assert.equal(e.environment(), 'green');
});

test('the Services view: registered in the Explorer, filled from restls.serviceTree after each status, a row reveals its definition', async () => {
  const e = await startWithFake();
  assert.deepEqual(recorded.treeViews.map((v) => v.id), ['restls.services']);
  assert.equal(recorded.contexts.get('restls.started'), true, 'the view shows once the server was started');
  const provider = recorded.treeViews[0].options.treeDataProvider;
  await waitFor(() => provider.getChildren().length === 4, 'the tree from the first status');
  assert.deepEqual(
    provider.getChildren()[0].children.map((n: { label: string; description: string }) => [n.label, n.description]),
    [
      ['crm-customers', 'https://crm.example.com/api/v2/customers'],
      ['geo', 'https://geo.example.com/v1'],
      ['weather', 'https://weather.example.com/v2'],
    ],
  );
  const item = provider.getTreeItem(provider.getChildren()[0]);
  assert.equal(item.label, 'Scripts (scriptService)');
  assert.equal(item.collapsibleState, vscode.TreeItemCollapsibleState.Expanded);
  // Refresh asks the server again.
  setSetting('restls.configRoot', 'other/config');
  await waitForAsync(async () => (await fakeState(e)).configurations.length > 0, 'the new configRoot');
  await recorded.commands.get(Commands.refreshServices)!();
  assert.equal(provider.getChildren().at(-1).children[0].tooltip, path.join(ws, 'other/config') + '/application.yml');
  // A row with a location runs the reveal command, which opens the file at the range.
  const cfgFile = path.join(ws, 'app.yml');
  fs.writeFileSync(cfgFile, 'a\nb\n  - serviceId: geo\n');
  await recorded.commands.get(Commands.revealInConfiguration)!({ uri: vscode.Uri.file(cfgFile).toString(), range: { start: { line: 2, character: 4 }, end: { line: 2, character: 18 } } });
  const shown = recorded.shown.at(-1)!;
  assert.equal(shown.uri, vscode.Uri.file(cfgFile).toString());
  assert.deepEqual([shown.options.selection.start.line, shown.options.selection.start.character, shown.options.selection.end.character], [2, 4, 18]);
});

test('package.json: every contributed command has a handler; settings, views and the walkthrough are complete and packaged', async () => {
  const root = path.join(__dirname, '..', '..', '..');
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
  await startWithFake();
  for (const c of pkg.contributes.commands) {
    assert.ok(recorded.commands.has(c.command), `no handler for ${c.command}`);
  }
  const props = pkg.contributes.configuration.properties;
  for (const key of ['restls.environments', 'restls.serverArgs', 'restls.serverEnv']) {
    assert.ok(props[key]?.markdownDescription, `${key} is documented in package.json`);
  }
  assert.deepEqual(pkg.capabilities.untrustedWorkspaces.restrictedConfigurations, ['restls.path', 'restls.serverArgs', 'restls.serverEnv']);
  assert.deepEqual(pkg.contributes.views.explorer.map((v: { id: string }) => v.id), ['restls.services']);
  const ignore = fs.readFileSync(path.join(root, '.vscodeignore'), 'utf8');
  const media = [pkg.icon, ...pkg.contributes.walkthroughs[0].steps.map((s: any) => s.media.image ?? s.media.markdown)];
  for (const m of media) {
    assert.ok(fs.existsSync(path.join(root, m)), `${m} exists`);
    assert.ok(ignore.split('\n').some((l) => l === `!${m}` || (l.endsWith('/**') && m.startsWith(l.slice(1, -2)))), `${m} is packaged (.vscodeignore)`);
  }
  const icon = fs.readFileSync(path.join(root, pkg.icon));
  assert.equal(icon.subarray(1, 4).toString('ascii'), 'PNG');
  assert.deepEqual([icon.readUInt32BE(16), icon.readUInt32BE(20)], [128, 128], 'the icon is 128x128');
});

test('compare and update fixtures: the server\'s diff text beside the script, the update only after the diff and a yes', async () => {
  const doc = openDocument(path.join(ws, 'scripts', 'order.js'));
  const e = await startWithFake();
  const uri = doc.uri.toString();
  // Before two runs the server says what to do; the extension shows it.
  assert.equal(await recorded.commands.get(Commands.diffWithPrevious)!(), undefined);
  assert.match(recorded.messages.at(-1)!.message, /run it again to compare/);
  await recorded.commands.get(Commands.dryRunLive)!();
  await recorded.commands.get(Commands.dryRunLive)!();
  const prev = await recorded.commands.get(Commands.diffWithPrevious)!();
  assert.ok(prev, JSON.stringify(recorded.messages));
  assert.equal(recorded.untitled.length, 1);
  assert.match(recorded.untitled[0].text, /^diff: the previous run .*\n    body \$\.name: "Ada" → "Grace"\n$/);
  assert.ok(recorded.shown.at(-1)!.uri.startsWith('untitled:'), 'the diff is shown in its own document');

  // Without a fixture file, update asks first; no means nothing is written.
  const fixture = path.join(ws, 'scripts', 'order.mock.yaml');
  let asked: string[] = [];
  answers.message = (m) => {
    asked.push(m.message);
    return undefined;
  };
  assert.equal(await recorded.commands.get(Commands.updateFixtures)!(), undefined);
  assert.deepEqual(asked, ['restls: write the answers of the last run of order.js to order.mock.yaml?']);
  assert.ok(!fs.existsSync(fixture));
  answers.message = (m) => (m.items.includes('Update Fixtures') ? 'Update Fixtures' : undefined);
  const wrote = await recorded.commands.get(Commands.updateFixtures)!();
  assert.deepEqual(wrote, { file: fixture, calls: 1, skipped: 0 });
  assert.ok(fs.existsSync(fixture));
  assert.match(recorded.messages.at(-1)!.message, /wrote 1 answer of the last run to order\.mock\.yaml\./);

  // With the file, update first shows the diff with the fixtures, then asks.
  asked = [];
  answers.message = (m) => {
    asked.push(m.message);
    return m.items.includes('Update Fixtures') ? 'Update Fixtures' : undefined;
  };
  await recorded.commands.get(Commands.updateFixtures)!();
  const calls = (await fakeState(e)).historyCalls.map((c: any) => c.command);
  assert.deepEqual(calls, ['restls.compareWithPrevious', 'restls.compareWithPrevious', 'restls.updateFixtures', 'restls.compareWithFixtures', 'restls.updateFixtures']);
  assert.match(recorded.untitled.at(-1)!.text, /^diff: the fixtures of .*order\.mock\.yaml/);
  assert.equal(asked[0], 'restls: the last run of order.js differs from order.mock.yaml. Update order.mock.yaml with its answers?');
  assert.ok((await fakeState(e)).historyCalls.every((c: any) => c.args.uri === uri));
});
