import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { BinaryProblem, Host, Runner, checkBinary, chooseBinary, findBinary, findCandidates, parseVersion, realRunner, versionOK } from '../src/binary';

const host = (files: string[], env: Record<string, string> = {}, platform: NodeJS.Platform = 'linux'): Host => ({
  platform,
  env: { HOME: '/home/u', ...env },
  isExecutable: (f) => files.includes(f),
});

test('findBinary: restls.path wins over PATH, resolved against the workspace', () => {
  const h = host(['/ws/tools/restls', '/usr/bin/restls'], { PATH: '/usr/bin' });
  assert.deepEqual(findBinary('tools/restls', '/ws', '/ext', h), { path: '/ws/tools/restls', source: 'setting' });
  assert.deepEqual(findBinary('~/restls', '/ws', '/ext', host(['/home/u/restls'])), { path: '/home/u/restls', source: 'setting' });
});

test('findBinary: a wrong restls.path is an error, never silently replaced by PATH', () => {
  const h = host(['/usr/bin/restls'], { PATH: '/usr/bin' });
  assert.throws(
    () => findBinary('/nope/restls', '/ws', '/ext', h),
    (e: unknown) => e instanceof BinaryProblem && e.kind === 'missing' && /restls\.path is "\/nope\/restls"/.test(e.message) && /clear it/.test(e.message),
  );
});

test('findBinary: the binary bundled in a platform .vsix comes first, then restls.path, then PATH', () => {
  const bundled = '/ext/bin/linux-x64/restls';
  const all = host([bundled, '/ext/bin/restls', '/ws/tools/restls', '/b/restls'], { PATH: '/a::/b' });
  assert.deepEqual(findBinary('tools/restls', '/ws', '/ext', all, 'x64'), { path: bundled, source: 'extension' });
  assert.deepEqual(
    findCandidates('tools/restls', '/ws', '/ext', all, 'x64').found.map((f) => f.source),
    ['extension', 'setting'],
    'restls.path is the fallback of a bundled binary that cannot run; PATH is not tried after an explicit setting',
  );
  assert.deepEqual(findCandidates('', '/ws', '/ext', all, 'x64').found, [
    { path: bundled, source: 'extension' },
    { path: '/b/restls', source: 'PATH' },
  ]);
  // The binary of another platform is never picked: arm64 looks in bin/linux-arm64, then bin/restls.
  assert.deepEqual(findBinary('', '/ws', '/ext', all, 'arm64'), { path: '/ext/bin/restls', source: 'extension' });
  // Without a bundled binary (the universal .vsix): restls.path, else PATH in order.
  assert.deepEqual(findBinary('tools/restls', '/ws', '/ext', host(['/ws/tools/restls', '/b/restls'], { PATH: '/b' }), 'x64'), { path: '/ws/tools/restls', source: 'setting' });
  assert.deepEqual(findBinary('', '/ws', '/ext', host(['/b/restls', '/c/restls'], { PATH: '/a::/b:/c' }), 'x64'), { path: '/b/restls', source: 'PATH' });
});

test('findBinary: Windows uses PATHEXT and ;, and bin/win32-x64/restls.exe in the extension', () => {
  const h = host([path.join('C:\\tools', 'restls.exe')], { PATH: 'C:\\x;C:\\tools', PATHEXT: '.COM;.EXE' }, 'win32');
  assert.equal(findBinary('', undefined, '/ext', h).path, path.join('C:\\tools', 'restls.exe'));
  const b = path.join('/ext', 'bin', 'win32-x64', 'restls.exe');
  assert.deepEqual(findBinary('', undefined, '/ext', host([b, path.join('C:\\tools', 'restls.exe')], { PATH: 'C:\\tools' }, 'win32'), 'x64'), { path: b, source: 'extension' });
});

test('findBinary: missing everywhere says how to install, without go install', () => {
  assert.throws(
    () => findBinary('', '/ws', '/ext', host([], { PATH: '/usr/bin' })),
    (e: unknown) =>
      e instanceof BinaryProblem && e.kind === 'missing' && /extension for your platform/.test(e.message) && /archive/.test(e.message) && /restls\.path/.test(e.message) && !/go install/.test(e.message),
  );
});

test('chooseBinary: a bundled binary that cannot run gives way to the next; none usable is one problem naming each', async () => {
  const ok = { version: { code: 0, stdout: 'restls v0.2.0 (go)\n' }, help: { code: 0, stdout: '  serve  x\n' } };
  const run: Runner = async (f, args) => (f === '/b/restls' ? { stderr: '', ...ok[args[0] as 'version' | 'help'] } : { code: 1, stdout: '', stderr: 'exec format error' });
  const c = { found: [{ path: '/ext/bin/linux-x64/restls', source: 'extension' as const }, { path: '/b/restls', source: 'PATH' as const }] };
  const got = await chooseBinary(c, run);
  assert.deepEqual(got.found, { path: '/b/restls', source: 'PATH' });
  assert.equal(got.version, '0.2.0');
  assert.match(got.skipped[0], /\/ext\/bin\/linux-x64\/restls \(from extension\) does not look like restls: .*exec format error/);
  await assert.rejects(chooseBinary({ found: [c.found[0]], settingProblem: 'restls.path is "x", but /ws/x is not an executable file. Fix restls.path.' }, run), (e: unknown) =>
    e instanceof BinaryProblem && /exec format error/.test(e.message) && /restls\.path is "x"/.test(e.message),
  );
  await assert.rejects(chooseBinary({ found: [] }, run), (e: unknown) => e instanceof BinaryProblem && e.kind === 'missing' && /extension for your platform/.test(e.message));
});

test('parseVersion', () => {
  assert.equal(parseVersion('restls dev (go1.26.8)\n'), 'dev');
  assert.equal(parseVersion('restls v0.3.1 (go1.26.0)'), '0.3.1');
  assert.equal(parseVersion('restls 1.2.3'), '1.2.3');
  assert.equal(parseVersion('other 1.0.0'), undefined);
  assert.equal(parseVersion(''), undefined);
});

test('versionOK', () => {
  assert.ok(versionOK('dev'));
  assert.ok(versionOK('0.0.0-20261122030000-abcdef123456'), 'pseudo-versions are development builds');
  assert.ok(versionOK('0.1.0'));
  assert.ok(versionOK('0.2.0'));
  assert.ok(versionOK('1.0.0-rc.1'));
  assert.ok(!versionOK('0.0.9'));
  assert.ok(!versionOK('garbage'));
});

const runner =
  (answers: Record<string, { code: number; stdout: string; stderr?: string }>): Runner =>
  async (_f, args) => ({ stderr: '', ...answers[args[0]] });

test('checkBinary: accepts a restls with serve', async () => {
  const r = runner({ version: { code: 0, stdout: 'restls v0.1.0 (go1.26)\n' }, help: { code: 0, stdout: 'Commands:\n  serve      run the language server\n  services   list\n' } });
  assert.equal(await checkBinary({ path: '/b/restls', source: 'PATH' }, r), '0.1.0');
});

test('checkBinary: rejects what is not restls, too old, or has no serve', async () => {
  const f = { path: '/b/restls', source: 'PATH' as const };
  const cases: [Record<string, { code: number; stdout: string; stderr?: string }>, RegExp][] = [
    [{ version: { code: 2, stdout: '', stderr: 'unknown command "version"\n' }, help: { code: 0, stdout: '' } }, /does not look like restls.*unknown command/],
    [{ version: { code: 0, stdout: 'something 1.0\n' }, help: { code: 0, stdout: '' } }, /did not print a restls version/],
    [{ version: { code: 0, stdout: 'restls v0.0.1 (go)\n' }, help: { code: 0, stdout: '  serve  x\n' } }, /restls 0\.0\.1; this extension needs 0\.1\.0/],
    [{ version: { code: 0, stdout: 'restls dev (go)\n' }, help: { code: 0, stdout: 'Commands:\n  services   list\n' } }, /has no `serve` command/],
  ];
  for (const [answers, re] of cases) {
    await assert.rejects(checkBinary(f, runner(answers)), (e: unknown) => e instanceof BinaryProblem && e.kind === 'version' && re.test(e.message) && e.message.includes('/b/restls'));
  }
});

test('checkBinary and findBinary against real executables', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'restls-bin-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const good = path.join(dir, 'good', 'restls');
  const old = path.join(dir, 'old', 'restls');
  const notExec = path.join(dir, 'noexec', 'restls');
  for (const [p, script] of [
    [good, '#!/bin/sh\ncase "$1" in version) echo "restls v0.4.0 (go1.26)";; help) printf "Commands:\\n  serve      language server\\n";; esac\n'],
    [old, '#!/bin/sh\ncase "$1" in version) echo "restls v0.0.3 (go1.26)";; help) printf "  serve  x\\n";; esac\n'],
    [notExec, '#!/bin/sh\necho restls dev\n'],
  ]) {
    fs.mkdirSync(path.dirname(p), { recursive: true });
    fs.writeFileSync(p, script, { mode: p === notExec ? 0o644 : 0o755 });
  }
  const env = { ...process.env, PATH: [path.dirname(notExec), path.dirname(good)].join(path.delimiter) };
  const found = findBinary('', undefined, dir, { platform: process.platform, env, isExecutable: (await import('../src/binary')).realHost.isExecutable });
  assert.deepEqual(found, { path: good, source: 'PATH' }, 'a non-executable file on PATH is skipped');
  assert.equal(await checkBinary(found, realRunner), '0.4.0');
  await assert.rejects(checkBinary({ path: old, source: 'setting' }, realRunner), /0\.0\.3/);
  await assert.rejects(checkBinary({ path: path.join(dir, 'missing'), source: 'setting' }, realRunner), BinaryProblem);
});
