// The bundled extension (dist/extension.js) against the mocked vscode
// module and the real restls binary (`make build` at the repository root):
// serviceId completions come back through vscode-languageclient.
//
// This test needs `restls serve`; it fails (it is never skipped) when the
// binary is missing or cannot serve, since that is what a user would hit.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, test } from 'node:test';
import * as http from 'node:http';
import { CancellationTokenSource, Position, fakeContext, openDocument, recorded, setSetting, settings, setWorkspaceFolder, vscode, waitFor, waitForAsync } from './vscode-mock';

const extRoot = path.join(__dirname, '..', '..', '..');
const repo = path.join(extRoot, '..');
const restls = process.env.RESTLS_BIN ?? path.join(repo, 'bin', 'restls');
const configRoot = path.join(repo, 'testdata', 'config');

// eslint-disable-next-line @typescript-eslint/no-require-imports
const bundled = require(path.join(extRoot, 'dist', 'extension.js'));

const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'restls-int-'));
// The server keeps editors' dry runs here, not in the user cache directory.
process.env.RESTLS_HISTORY = path.join(ws, 'history');
let activated: any;
const ext = () => activated;
after(async () => {
  await bundled.deactivate();
  fs.rmSync(ws, { recursive: true, force: true });
});

function expectedIds(): string[] {
  const out = execFileSync(restls, ['services', '--config-root', configRoot, '--json'], { encoding: 'utf8' });
  const parsed = JSON.parse(out);
  const services = parsed.services;
  const ids: string[] = Array.isArray(services) ? services.map((s: { serviceId?: string; id?: string }) => String(s.serviceId ?? s.id)) : Object.keys(services);
  return ids.sort();
}

test('serviceId completions from the real restls serve through vscode-languageclient', async () => {
  assert.ok(fs.existsSync(restls), `${restls} is missing: run \`make build\` at the repository root`);
  const want = expectedIds();
  assert.ok(want.length > 3, `testdata/config should configure services, got ${want.join(', ')}`);

  fs.mkdirSync(path.join(ws, 'scripts'));
  const file = path.join(ws, 'scripts', 'order.js');
  const line = 'var r = api.rest.v1.get("';
  fs.writeFileSync(file, `// order lookup\n${line}\n`);
  setWorkspaceFolder(ws);
  settings.set('restls.path', restls);
  settings.set('restls.configRoot', configRoot);
  const doc = openDocument(file, 'javascript', true, new Position(1, line.length));

  const ext = bundled.activate(fakeContext(path.join(ws, 'ext')));
  activated = ext;
  try {
    await waitFor(() => ext.running() || ext.problem, 'restls serve to start', 20_000);
  } finally {
    const out = recorded.outputs.find((o) => o.name === 'restls');
    if (!ext.running()) {
      console.error(out?.lines.join('\n'));
    }
  }
  assert.equal(ext.problem, undefined, `the extension reported: ${ext.problem}`);
  assert.ok(ext.running());

  const reg = await waitFor(() => recorded.providers.find((p) => p.kind === 'languages.registerCompletionItemProvider'), 'a completion provider');
  const cts = new CancellationTokenSource();
  const res = await reg.provider.provideCompletionItems(doc, new Position(1, line.length), cts.token, { triggerKind: 1, triggerCharacter: '"' });
  const items: { label: string | { label: string }; detail?: string }[] = Array.isArray(res) ? res : (res?.items ?? []);
  const labels = items.map((i) => (typeof i.label === 'string' ? i.label : i.label.label)).sort();
  assert.deepEqual(labels, want, 'every configured serviceId, and nothing else');
  const crm = items.find((i) => (typeof i.label === 'string' ? i.label : i.label.label) === 'crm-customers');
  assert.match(String(crm?.detail ?? ''), /^https:\/\/crm\.example\.com\/api\/v2\/customers/, 'detail is the resolved url');

  // The status bar got restls/status from the real server.
  await waitFor(() => /restls: \d+ services/.test(recorded.statusItems[0]?.text ?? ''), 'the status bar to show the services');
  assert.equal(recorded.statusItems[0].text, `$(check) restls: ${want.length} services`);
});

async function labelsAt(doc: unknown, pos: InstanceType<typeof Position>): Promise<string[]> {
  const reg = recorded.providers.filter((p) => p.kind === 'languages.registerCompletionItemProvider').at(-1)!;
  const res = await reg.provider.provideCompletionItems(doc, pos, new CancellationTokenSource().token, { triggerKind: 1, triggerCharacter: '"' });
  const items: { label: string | { label: string } }[] = Array.isArray(res) ? res : (res?.items ?? []);
  return items.map((i) => (typeof i.label === 'string' ? i.label : i.label.label)).sort();
}

test('the Testing view runs and updates test files through the real restls serve', async () => {
  // Before the tests that switch configurations: the fixtures answer
  // crm-customers, which testdata/config configures.
  assert.ok(ext(), 'the first test activates the extension');
  const src = path.join(repo, 'cmd', 'restls', 'testdata', 'scripttest');
  fs.mkdirSync(path.join(ws, 'tests'));
  for (const f of ['summary.js', 'failing.test.yaml']) {
    fs.copyFileSync(path.join(src, f), path.join(ws, 'tests', f));
  }
  const c = recorded.testControllers[0];
  await c.resolveHandler!();
  const file = c.items.get(vscode.Uri.file(path.join(ws, 'tests', 'failing.test.yaml')).toString())!;
  assert.ok(file, 'the test file is listed');
  await c.resolveHandler!(file);
  const names: string[] = [];
  file.children.forEach((i) => names.push(`${i.label}@${i.range?.start.line}`));
  assert.deepEqual(names, ['wrong result@9', 'wrong calls@12', 'no fixture@17', 'html in values@21', 'expects an error@24']);

  // A Debug lens above each case, where the real server's Run test was
  // (debug.ts: the Testing view runs tests in VS Code).
  const testDoc = openDocument(path.join(ws, 'tests', 'failing.test.yaml'), 'yaml', false);
  const clientLenses = recorded.providers.find((p) => p.kind === 'languages.registerCodeLensProvider' && Array.isArray(p.selector))!;
  assert.ok(clientLenses, 'the language client provides CodeLenses');
  const debugLenses = await waitForAsync(async () => {
    const ls = ((await clientLenses.provider.provideCodeLenses(testDoc, new CancellationTokenSource().token)) ?? []) as { range: any; command: { title: string; command: string; arguments: unknown[] } }[];
    return ls.length > 0 && ls;
  }, 'the server\'s lenses of the test file');
  assert.deepEqual(
    debugLenses.map((l) => `${l.range.start.line} ${l.command.title} ${l.command.command} ${JSON.stringify(l.command.arguments)}`),
    ['wrong result@9', 'wrong calls@12', 'no fixture@17', 'html in values@21', 'expects an error@24'].map((n) => {
      const [name, line] = n.split('@');
      return `${line} $(debug-alt) Debug restls.debugTestCase ${JSON.stringify([testDoc.uri.toString(), name])}`;
    }),
  );

  const wrong = file.children.get(`${file.id}#wrong result`)!;
  await c.profiles[0].run({ include: [wrong], exclude: [] }, { isCancellationRequested: false });
  const res = c.runs[0].filter((r) => r.state !== 'started');
  assert.deepEqual(res.map((r) => `${r.item.label}:${r.state}`), ['wrong result:failed']);
  const diffs = res[0].messages.filter((m) => m.expectedOutput !== undefined).map((m) => `${m.message} | ${m.expectedOutput} | ${m.actualOutput}`);
  assert.deepEqual(diffs, ['$.name: expected "Bob", got "Ann" | "Bob" | "Ann"', '$.tags: expected 3 elements, got 2 | 3 elements | 2', '$.tags[1]: expected "b", got "c" | "b" | "c"']);
  assert.equal(res[0].messages[0].location?.range.line, 9);

  // Update Expectation: the server's edit, the file on disk untouched.
  const before = fs.readFileSync(path.join(ws, 'tests', 'failing.test.yaml'), 'utf8');
  assert.equal(await recorded.commands.get('restls.updateExpectation')!(wrong), true);
  const edit = recorded.edits.at(-1)!;
  assert.equal(edit.replaced.length, 1);
  assert.match(edit.replaced[0].text, /name: Ann/);
  assert.equal(fs.readFileSync(path.join(ws, 'tests', 'failing.test.yaml'), 'utf8'), before);
});

test('Paste curl as api.rest.v1 Call: the clipboard\'s command through the real restls.pasteCurl, inserted at the cursor', async () => {
  // Before the tests that switch configurations: testdata/config
  // configures registry, with basic authorization.
  assert.ok(ext(), 'the first test activates the extension');
  const file = path.join(ws, 'scripts', 'paste.js');
  fs.writeFileSync(file, 'function run() {\n    \n}\n');
  openDocument(file, 'javascript', true, new Position(1, 4));
  await waitFor(() => vscode.window.activeTextEditor?.document.uri.fsPath === file, 'paste.js to be the active editor');
  const paste = recorded.commands.get('restls.pasteCurlAsCall')!;

  await vscode.env.clipboard.writeText(`curl 'https://registry.example.gov/api/companies/42?fields=name' \\\n  -H 'Authorization: Basic dXNlcjpwYXNz' -H 'X-Trace: 1' --compressed`);
  const edits = recorded.edits.length;
  assert.equal(await paste(), true, JSON.stringify(recorded.messages));
  assert.equal(recorded.edits.length, edits + 1);
  const edit = recorded.edits.at(-1)!;
  assert.equal(edit.replaced.length, 1);
  assert.equal(edit.replaced[0].uri.toString(), vscode.Uri.file(file).toString());
  assert.deepEqual([edit.replaced[0].range.start.line, edit.replaced[0].range.start.character, edit.replaced[0].range.end.character], [1, 4, 4]);
  assert.equal(
    edit.replaced[0].text,
    '// restls: The Authorization header is left out: serviceId "registry" has basic authorization configured, which replaces it.\n' +
      '    api.rest.v1.get("registry", {pathParams: ["companies", "42"], queryParams: {fields: "name"}}, {"X-Trace": "1"});',
  );
  // The same engine as restls curl: the call it prints.
  const cli = execFileSync(restls, ['curl', '--config-root', configRoot, '--json', 'curl https://registry.example.gov/api/companies/42?fields=name -H "X-Trace: 1"'], { encoding: 'utf8' });
  assert.ok(edit.replaced[0].text.endsWith(JSON.parse(cli).call), cli);

  // A URL no service matches: the server's error, nothing inserted.
  await vscode.env.clipboard.writeText('curl https://elsewhere.example.com/v1/things/7');
  assert.equal(await paste(), false);
  assert.equal(recorded.edits.length, edits + 1);
  assert.match(recorded.messages.at(-1)!.message, /configure one with url https:\/\/elsewhere\.example\.com\/v1\/things/);
  // An empty clipboard never reaches the server.
  await vscode.env.clipboard.writeText('  ');
  assert.equal(await paste(), false);
  assert.match(recorded.messages.at(-1)!.message, /the clipboard is empty/);
});

test('a configRoot change reaches the running server in place: no hints for a missing root, new ids for another', async () => {
  const line = 'var r = api.rest.v1.get("';
  const doc = vscode.workspace.textDocuments[0];
  const pos = new Position(1, line.length);
  const client = ext().client;
  setSetting('restls.configRoot', path.join(ws, 'no-such-dir'));
  await waitFor(() => /no serviceId hints/.test(recorded.statusItems[0]?.text ?? ''), 'the status bar to lose the hints');
  assert.match(recorded.statusItems[0].tooltip, /No serviceId hints for scriptService: .*(no configuration found|does not exist)/);
  assert.deepEqual(await labelsAt(doc, pos), [], 'no serviceIds without a configuration');
  const broken = path.join(repo, 'testdata', 'config-broken');
  setSetting('restls.configRoot', broken);
  const want = execFileSync(restls, ['services', '--config-root', broken, '--json'], { encoding: 'utf8' });
  const ids = Object.keys(JSON.parse(want).services).sort();
  const got = await waitForAsync(async () => {
    // The provider of a client that is being replaced may fail: ask again.
    const l = ext().running() ? await labelsAt(doc, pos).catch(() => []) : [];
    return l.length > 0 && l;
  }, 'completions from the new configuration');
  assert.deepEqual(got, ids);
  assert.equal(ext().client, client, 'the running server took the change in place (workspace/didChangeConfiguration)');
});

test('Reload Configuration and Show Configured Services against the real server', async () => {
  const e = ext();
  await waitFor(() => e.running(), 'a running server');
  const { Commands } = bundled;
  const before = recorded.messages.length;
  await Promise.race([
    recorded.commands.get(Commands.reload)!(),
    new Promise((_, reject) => setTimeout(() => reject(new Error('restls.reload did not answer within 15 s')), 15_000)),
  ]);
  const after = recorded.messages.slice(before);
  assert.ok(after.some((m) => m.level === 'info' && /^restls: configuration reloaded\.$/.test(m.message)), JSON.stringify(after));
  const { answers } = await import('./vscode-mock');
  answers.quickPick = (items) => items.find((i: { label: string }) => i.label === 'geo');
  const doc = vscode.workspace.textDocuments[0];
  assert.equal(await recorded.commands.get(Commands.showServices)!(), 'geo');
  const picked = recorded.quickPicks.at(-1)!.items.find((i: { label: string }) => i.label === 'geo');
  assert.equal(picked.description, 'https://geo.example.com/v1');
  assert.ok(doc.getText().length > 0);
});

test('the real server decides the kind (restls/documentInfo): directive, scriptKinds glob, default; the status bar shows its answer', async () => {
  const e = ext();
  setSetting('restls.scriptKinds', { '**/tasks/**': 'scriptTask' });
  fs.mkdirSync(path.join(ws, 'scripts', 'tasks'), { recursive: true });
  const files = {
    directive: path.join(ws, 'scripts', 'direct.js'),
    glob: path.join(ws, 'scripts', 'tasks', 'nightly.js'),
    plain: path.join(ws, 'scripts', 'plain.js'),
  };
  fs.writeFileSync(files.directive, '// restls-kind: validationScript\nreturn 1;\n');
  fs.writeFileSync(files.glob, 'return 1;\n');
  fs.writeFileSync(files.plain, 'return 1;\n');
  fs.writeFileSync(path.join(ws, 'scripts', 'tasks', 'nightly.mock.json'), '[]\n');
  const want = {
    directive: { kind: 'validationScript', source: 'directive' },
    glob: { kind: 'scriptTask', source: 'kindMap', glob: '**/tasks/**' },
    plain: { kind: 'scriptService', source: 'default' },
  };
  for (const [name, file] of Object.entries(files) as [keyof typeof files, string][]) {
    const doc = openDocument(file);
    // The setting reaches the server in place; ask until it has it.
    const info = await waitForAsync(async () => {
      const i = await e.documentInfo(doc);
      return JSON.stringify(i?.kind) === JSON.stringify(want[name]) && i;
    }, `the server's kind of ${name}`);
    const base = file.replace(/\.js$/, '');
    assert.deepEqual(info.fixtures, [base + '.mock.yaml', base + '.mock.json'], 'the fixture files a dry run looks for');
    assert.equal(info.mockFile, name === 'glob' ? base + '.mock.json' : '');
    assert.equal(info.displayPath, path.relative(ws, file).split(path.sep).join('/'));
    await waitFor(() => String(recorded.statusItems[0]?.tooltip ?? '').includes(want[name].kind), `the status bar to name ${want[name].kind}: ${recorded.statusItems[0]?.tooltip}`);
  }
  setSetting('restls.scriptKinds', {});
});

// Secret headers are the server's to mask (runtime/restclient maskHeader):
// the extension keeps no list. X-Partner-Api-Key is secret by the Go rule
// (a name holding "api-key"), and was not by the list the extension had.
const PARTNER_KEY_SENT = 'req-partner-secret-7';
const PARTNER_KEY_ANSWERED = 'resp-partner-secret-9';

test('dry run through the real server against a loopback service; the preview escapes the body and shows secret headers masked by the server', async (t) => {
  const hits: string[] = [];
  const keys: unknown[] = [];
  const srv = http.createServer((req, res) => {
    hits.push(`${req.method} ${req.url}`);
    keys.push(req.headers['x-partner-api-key']);
    res.writeHead(200, { 'Content-Type': 'application/json', 'X-Partner-Api-Key': PARTNER_KEY_ANSWERED });
    res.end(JSON.stringify({ id: 7, html: '<script>alert(1)</script>' }));
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  t.after(() => srv.close());
  const port = (srv.address() as { port: number }).port;
  const root = path.join(ws, 'loop-config');
  fs.mkdirSync(path.join(root, 'script-code-config'), { recursive: true });
  fs.writeFileSync(
    path.join(root, 'script-code-config', 'script-service-api.xml'),
    `<scriptservice><api serviceId="loop" url="http://127.0.0.1:${port}/api" description="loopback"/></scriptservice>\n`,
  );
  setSetting('restls.configRoot', root);
  await waitFor(() => recorded.statusItems[0]?.text === '$(check) restls: 1 service', 'the loopback configuration');
  const file = path.join(ws, 'scripts', 'run.js');
  fs.writeFileSync(file, `var r = api.rest.v1.get("loop", { pathParams: ["items", "7"] }, { "X-Partner-Api-Key": "${PARTNER_KEY_SENT}" });\nreturn { id: r.body.id, status: r.status.code };\n`);
  openDocument(file);
  const { Commands } = bundled;
  const result = await recorded.commands.get(Commands.dryRun)!();
  assert.ok(result, JSON.stringify(recorded.messages));
  assert.equal(result.error, null);
  assert.deepEqual(result.result, { id: 7, status: 200 });
  assert.deepEqual(hits, ['GET /api/items/7']);
  assert.equal(result.calls.length, 1);
  const html: string = recorded.webviews.at(-1).webview.html;
  assert.match(html, /<span class="restls-sid">loop<\/span>/);
  assert.match(html, new RegExp(`127\\.0\\.0\\.1:${port}/api/items/7`));
  assert.ok(html.includes('&lt;script&gt;alert(1)&lt;/script&gt;'));
  assert.equal((html.match(/<script\b/g) ?? []).length, 1);
  assert.deepEqual(keys, [PARTNER_KEY_SENT], 'the service gets the real header');
  assert.ok(!JSON.stringify(result).includes(PARTNER_KEY_SENT) && !JSON.stringify(result).includes(PARTNER_KEY_ANSWERED), 'the run result the server sends is masked');
  assert.ok(!html.includes(PARTNER_KEY_SENT) && !html.includes(PARTNER_KEY_ANSWERED), 'the preview shows no secret header value');
  assert.match(html, /<dt>X-Partner-Api-Key<\/dt><dd>\*\*\*<\/dd>/, 'the request header, masked');
  assert.match(html, /<dt>x-partner-api-key<\/dt><dd>\*\*\*<\/dd>/, 'the response header, masked');

  // Record mocks, then Dry run with mocks with the service gone: the
  // CodeLenses through the real server and its child runs.
  const lensesOf = () => {
    const reg = recorded.providers.find((p) => p.kind === 'languages.registerCodeLensProvider')!;
    const doc = vscode.workspace.textDocuments.find((d: { uri: { fsPath: string } }) => d.uri.fsPath === file);
    return reg.provider.provideCodeLenses(doc) as Promise<{ command: { title: string; command: string; arguments: unknown[] } }[]>;
  };
  const lens = async (title: string) => (await lensesOf()).find((l) => l.command.title.endsWith(title))!.command;
  assert.equal((await lensesOf()).length, 2, 'no "Dry run with mocks" before a recording');
  const rec = await lens('Record mocks');
  const recorded1 = await recorded.commands.get(rec.command)!(...rec.arguments);
  assert.equal(recorded1.mode, 'record');
  assert.deepEqual(hits, ['GET /api/items/7', 'GET /api/items/7']);
  assert.ok(fs.existsSync(path.join(ws, 'scripts', 'run.mock.yaml')), 'Record mocks writes run.mock.yaml beside run.js');
  await new Promise<void>((r) => srv.close(() => r()));
  const mocked = await lens('Dry run with mocks');
  const replay = await recorded.commands.get(mocked.command)!(...mocked.arguments);
  assert.equal(replay.mode, 'mock');
  assert.deepEqual(replay.result, { id: 7, status: 200 });
  assert.equal(hits.length, 2, 'the replay needs no service');
  assert.match(recorded.webviews.at(-1).webview.html, /<span class="restls-mode">mocks from run\.mock\.yaml<\/span>/);
  // The replay answers as the recording did: the server's diff says so,
  // and the runs are kept in RESTLS_HISTORY.
  const cmp = await recorded.commands.get(Commands.diffWithPrevious)!(vscode.Uri.file(file));
  assert.ok(cmp, JSON.stringify(recorded.messages));
  assert.equal(cmp.diff.same, true, cmp.text);
  assert.match(cmp.text, /^diff: the previous run \(.*\) \(1 call\) → the last run \(.*\) \(1 call\)\n  no change\n$/);
  const kept = fs.readdirSync(path.join(ws, 'history'));
  assert.equal(kept.length, 1, 'one directory for run.js');
  assert.equal(fs.readdirSync(path.join(ws, 'history', kept[0])).length, 3, 'three runs of run.js');
  // Copy as cURL: the command restls made for the call.
  recorded.webviews.at(-1).receive({ type: 'copyCurl', call: 1 });
  await waitFor(() => recorded.clipboard.length > 0, 'the clipboard');
  // The secret header is a shell variable, named in a comment above the command.
  assert.match(recorded.clipboard.at(-1)!, /^# set RESTLS_X_PARTNER_API_KEY_LOOP .*\ncurl /);
  assert.ok(!recorded.clipboard.at(-1)!.includes(PARTNER_KEY_SENT), recorded.clipboard.at(-1));
  assert.ok(recorded.clipboard.at(-1)!.includes(`http://127.0.0.1:${port}/api/items/7`), recorded.clipboard.at(-1));
});

test('environments: the status bar pick switches the real server to another configuration; the Services view follows', async () => {
  const e = ext();
  const { Commands } = bundled;
  const { answers } = await import('./vscode-mock');
  const broken = path.join(repo, 'testdata', 'config-broken');
  const idsOf = (root: string) => Object.keys(JSON.parse(execFileSync(restls, ['services', '--config-root', root, '--json'], { encoding: 'utf8' })).services).sort();
  setSetting('restls.environments', { test: { configRoot }, broken: { configRoot: broken } });
  // The server lists them (restls/status) before the pick offers them.
  await waitFor(() => e.served.environments.join() === 'broken,test', `the server to list the environments: ${JSON.stringify(e.served)}`);
  // Any .js under scripts/ is a script: the status bar shows for it.
  const file = path.join(ws, 'scripts', 'env.js');
  const line = 'var r = api.rest.v1.get("';
  fs.writeFileSync(file, `// env\n${line}\n`);
  const doc = openDocument(file, 'javascript', true, new Position(1, line.length));
  const pos = new Position(1, line.length);

  for (const [name, root] of [
    ['test', configRoot],
    ['broken', broken],
  ] as const) {
    answers.quickPick = (items) => items.find((i: { label: string }) => i.label.replace('$(check) ', '') === name);
    assert.equal(await recorded.commands.get(Commands.selectEnvironment)!(), name);
    const want = idsOf(root);
    const got = await waitForAsync(async () => {
      const l = e.running() ? await labelsAt(doc, pos).catch(() => []) : [];
      return JSON.stringify(l) === JSON.stringify(want) && l;
    }, `completions from the ${name} environment`);
    assert.deepEqual(got, want);
    await waitFor(() => recorded.statusItems[0]?.text === `$(check) restls: ${name} · ${want.length} services`, `the status bar to name ${name}: ${recorded.statusItems[0]?.text}`);
    assert.equal(recorded.statusItems[0].command, Commands.selectEnvironment);
    // The Services view: the same ids under scriptService.
    const roots = await e.services.refresh();
    const kind = roots.find((n: { id: string }) => n.id === 'scriptService');
    assert.deepEqual(kind.children.map((c: { label: string }) => c.label).sort(), want);
  }
  assert.equal(e.environment(), 'broken', 'remembered in the workspace state');
  const pick = recorded.quickPicks.at(-1)!;
  assert.deepEqual(
    pick.items.map((i: { label: string }) => i.label),
    ['default', 'broken', '$(check) test'],
    'the pick marks the active environment',
  );

  // The broken configuration's problems sit under their file, and a
  // click reveals the service's definition.
  const roots = await e.services.refresh();
  const files = roots.find((n: { id: string }) => n.id === 'files');
  const yml = files.children.find((n: { label: string }) => n.label === 'application.yml');
  assert.ok(yml.children.length > 0, 'application.yml has problems');
  assert.ok(yml.children.some((p: { label: string }) => /plain http/.test(p.label)));
  const crm = roots.find((n: { id: string }) => n.id === 'scriptService').children.find((n: { label: string }) => n.label === 'crm');
  assert.equal(crm.location.uri, vscode.Uri.file(path.join(broken, 'application.yml')).toString());
  const item = e.services.getTreeItem(crm);
  await recorded.commands.get(item.command.command)!(...item.command.arguments);
  const shown = recorded.shown.at(-1)!;
  assert.equal(shown.uri, crm.location.uri);
  assert.ok(shown.options.selection.start.line > 0, 'the definition line is selected');
  // Never a credential: config-broken's plain-text password.
  assert.ok(!JSON.stringify(e.services.answer).includes('plain-Pa55word'));
});
