// The restls debug type: launch configurations, restls dap's arguments,
// the Debug lens of a test case, and the wiring through the extension
// (the adapter VS Code starts, the commands, F5 without launch.json).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, test } from 'node:test';
import { Range, answers, fakeContext, openDocument, recorded, reset, setWorkspaceFolder, settings, waitFor, vscode } from './vscode-mock';
import { DEBUG_TYPE, DebugCommands, dapArgs, replayLaunch, scriptLaunch, testCaseLaunch, withDebugLenses } from '../src/debug';
import { MissingMocks } from '../src/dryRun';
import type { DocumentInfo } from '../src/protocol';
import { Restls, activate, deactivate } from '../src/extension';

const S = '/ws/scripts/orders.js';
const info = (mockFile = ''): DocumentInfo => ({ kind: { kind: 'scriptService', source: 'default' }, fixtures: ['/ws/scripts/orders.mock.yaml'], mockFile, script: true, displayPath: 'scripts/orders.js' });

test('scriptLaunch: Debug Script answers calls as the dry-run mode does', () => {
  const base = { type: 'restls', request: 'launch', name: 'Debug Script', program: S };
  assert.deepEqual(scriptLaunch(S, info(), 'auto'), { ...base, live: true }, 'auto without fixtures: live');
  assert.deepEqual(scriptLaunch(S, info('/ws/scripts/orders.mock.yaml'), 'auto'), { ...base, fixtures: '/ws/scripts/orders.mock.yaml' });
  assert.deepEqual(scriptLaunch(S, info('/ws/scripts/orders.mock.yaml'), 'live', 'staging'), { ...base, live: true, env: 'staging' });
  assert.deepEqual(scriptLaunch(S, info('/ws/scripts/orders.mock.yaml'), 'mock'), { ...base, fixtures: '/ws/scripts/orders.mock.yaml' });
  assert.throws(() => scriptLaunch(S, info(), 'mock'), MissingMocks);
  assert.deepEqual(scriptLaunch(S, undefined, 'auto'), { ...base, live: true }, 'a server that did not answer');
});

test('testCaseLaunch and replayLaunch name restls dap\'s fields', () => {
  assert.deepEqual(testCaseLaunch('/ws/a.test.yaml', 'one'), { type: 'restls', request: 'launch', name: 'Debug Test Case one', testFile: '/ws/a.test.yaml', case: 'one' });
  assert.deepEqual(replayLaunch(S, 'last'), { type: 'restls', request: 'launch', name: 'Replay Last Run', program: S, replay: 'last' });
  assert.equal(replayLaunch(S, '20261129T1200-3').replay, '20261129T1200-3');
});

test('dapArgs: the sources the settings name, as restls dap\'s flags; none when they name none', () => {
  assert.deepEqual(dapArgs(undefined, 'info'), ['dap', '--log-level', 'info']);
  assert.deepEqual(dapArgs({ configRoot: '', properties: [], serviceXml: '', handlerXml: '', platformConfig: '' }, 'debug'), ['dap', '--log-level', 'debug']);
  assert.deepEqual(dapArgs({ configRoot: '/c', properties: ['/a.yml', '/b.properties'], serviceXml: '/s.xml', handlerXml: '/h.xml', platformConfig: '/p.xml' }, 'info'), [
    'dap', '--log-level', 'info', '--config-root', '/c', '--properties', '/a.yml', '--properties', '/b.properties', '--service-xml', '/s.xml', '--handler-xml', '/h.xml', '--platform-config', '/p.xml',
  ]);
});

test('withDebugLenses: a Debug lens replaces each case\'s Run test; Run all goes; other lenses stay', () => {
  const r = (l: number) => new Range(l, 0, l, 0) as any;
  const uri = 'file:///ws/a.test.yaml';
  const lenses: { range: any; command?: { title: string; command: string; arguments?: unknown[] } }[] = [
    { range: r(0), command: { title: 'Run all 2 tests', command: 'restls.runTests', arguments: [{ uri, show: true }] } },
    { range: r(2), command: { title: 'Run test', command: 'restls.runTests', arguments: [{ uri, name: 'one', show: true }] } },
    { range: r(5), command: { title: 'Faults', command: 'restls.faults', arguments: [] } },
    { range: r(7), command: { title: 'Run test', command: 'restls.runTests', arguments: [{ uri, name: 'two', show: true }] } },
  ];
  const out = withDebugLenses(lenses, (range, command) => ({ range, command }))!;
  assert.deepEqual(
    out.map((l) => `${l.range.start.line} ${l.command!.title} ${l.command!.command} ${JSON.stringify(l.command!.arguments)}`),
    [`2 $(debug-alt) Debug ${DebugCommands.debugTestCase} ["${uri}","one"]`, '5 Faults restls.faults []', `7 $(debug-alt) Debug ${DebugCommands.debugTestCase} ["${uri}","two"]`],
  );
  assert.equal(withDebugLenses(null, () => ({ range: r(0) })), null);
});

// Through the extension, with the fake server.
const FAKE = path.join(__dirname, '..', '..', '..', 'test', 'fixtures', 'fake-restls.js');
let ws: string;
let ext: Restls | undefined;

beforeEach(() => {
  reset();
  ws = fs.mkdtempSync(path.join(os.tmpdir(), 'restls-dbg-'));
  fs.mkdirSync(path.join(ws, 'scripts'));
  fs.mkdirSync(path.join(ws, 'bin'));
  fs.writeFileSync(path.join(ws, 'scripts', 'order.js'), 'var r = api.rest.v1.get("crm-customers", {}, {});\n');
  fs.copyFileSync(FAKE, path.join(ws, 'bin', 'restls'));
  fs.chmodSync(path.join(ws, 'bin', 'restls'), 0o755);
  setWorkspaceFolder(ws);
});

afterEach(async () => {
  await deactivate();
  ext = undefined;
  fs.rmSync(ws, { recursive: true, force: true });
});

async function start(): Promise<{ doc: any; e: Restls }> {
  settings.set('restls.path', '${workspaceFolder}/bin/restls');
  settings.set('restls.configRoot', 'testdata/config');
  const doc = openDocument(path.join(ws, 'scripts', 'order.js'));
  ext = activate(fakeContext(path.join(ws, 'ext')));
  await waitFor(() => ext!.running(), 'the fake server to run');
  return { doc, e: ext };
}

test('the restls debug type: restls dap from the server\'s binary, in the folder, with the settings\' sources', async () => {
  await start();
  const factory = recorded.providers.find((p) => p.kind === 'debug.registerDebugAdapterDescriptorFactory');
  assert.equal(factory?.selector, DEBUG_TYPE);
  const folder = vscode.workspace.workspaceFolders[0];
  const d = await factory!.provider.createDebugAdapterDescriptor({ workspaceFolder: folder, configuration: {} });
  const [command, args, options] = d.__args;
  assert.equal(command, path.join(ws, 'bin', 'restls'));
  assert.deepEqual(args, ['dap', '--log-level', 'info', '--config-root', path.join(ws, 'testdata', 'config')]);
  assert.equal(options.cwd, ws);
  assert.ok(recorded.providers.some((p) => p.kind === 'debug.registerDebugConfigurationProvider' && p.selector === DEBUG_TYPE));
});

test('Debug Script starts the restls type on the active script; F5 without launch.json does the same', async () => {
  const { doc } = await start();
  assert.equal(await recorded.commands.get(DebugCommands.debugScript)!(), true);
  const started = recorded.debugStarts.at(-1)!;
  assert.equal(started.config.type, 'restls');
  assert.equal(started.config.program, doc.uri.fsPath);
  assert.equal(started.config.name, 'Debug Script');
  const provider = recorded.providers.find((p) => p.kind === 'debug.registerDebugConfigurationProvider')!.provider;
  const resolved = await provider.resolveDebugConfiguration(undefined, {});
  assert.equal(resolved.program, doc.uri.fsPath);
  // A configuration of launch.json is the user's: kept as written.
  const mine = { type: 'restls', request: 'launch', name: 'mine', program: '/x.js', live: false };
  assert.deepEqual(await provider.resolveDebugConfiguration(undefined, { ...mine }), mine);
});

test('Debug Test Case and Replay start restls dap\'s configurations', async () => {
  const { doc } = await start();
  const uri = vscode.Uri.file(path.join(ws, 'scripts', 'a.test.yaml')).toString();
  assert.equal(await recorded.commands.get(DebugCommands.debugTestCase)!(uri, 'one'), true);
  assert.deepEqual(recorded.debugStarts.at(-1)!.config, testCaseLaunch(path.join(ws, 'scripts', 'a.test.yaml'), 'one'));
  assert.equal(await recorded.commands.get(DebugCommands.replayLastRun)!(), true);
  assert.deepEqual(recorded.debugStarts.at(-1)!.config, replayLaunch(doc.uri.fsPath, 'last'));
  assert.equal(await recorded.commands.get(DebugCommands.debugTestCase)!(), false, 'not from the palette');
  // Replay History Entry: one of the last runs, or a recorded file.
  answers.quickPick = (items) => items.find((i: { label: string }) => i.label === 'last~2');
  assert.equal(await recorded.commands.get(DebugCommands.replayHistoryEntry)!(), true);
  assert.equal(recorded.debugStarts.at(-1)!.config.replay, 'last~2');
  answers.quickPick = (items) => items.at(-1);
  answers.openDialog = () => [vscode.Uri.file('/ws/runs/orders.json')];
  assert.equal(await recorded.commands.get(DebugCommands.replayHistoryEntry)!(), true);
  assert.deepEqual(recorded.debugStarts.at(-1)!.config, replayLaunch(doc.uri.fsPath, '/ws/runs/orders.json'));
  answers.quickPick = () => undefined;
  const before = recorded.debugStarts.length;
  assert.equal(await recorded.commands.get(DebugCommands.replayHistoryEntry)!(), false, 'nothing picked, nothing started');
  assert.equal(recorded.debugStarts.length, before);
});
