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
import { CancellationTokenSource, Position, fakeContext, openDocument, recorded, settings, setWorkspaceFolder, waitFor } from './vscode-mock';

const extRoot = path.join(__dirname, '..', '..');
const repo = path.join(extRoot, '..');
const restls = process.env.RESTLS_BIN ?? path.join(repo, 'bin', 'restls');
const configRoot = path.join(repo, 'testdata', 'config');

// eslint-disable-next-line @typescript-eslint/no-require-imports
const bundled = require(path.join(extRoot, 'dist', 'extension.js'));

const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'restls-int-'));
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
