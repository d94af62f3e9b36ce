import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { test } from 'node:test';
import {
  classifyChange,
  configured,
  scriptSelector,
  testFileSelector,
  readSettings,
  readsInput,
  resolvePath,
  readEnvironments,
  serverArgs,
  serverConfig,
  serverEnv,
} from '../src/settings';

const cfg = (values: Record<string, unknown>) => ({ get: <T>(k: string) => values[k] as T | undefined });

test('readSettings: defaults when nothing is set', () => {
  const s = readSettings(cfg({}));
  assert.equal(s.path, '');
  assert.deepEqual(s.properties, []);
  assert.deepEqual(s.include, [], "unset: the server's globs of scripts");
  assert.equal(s.logLevel, 'info');
  assert.equal(s.traceServer, 'off');
  assert.deepEqual(s.scriptKinds, {});
});

test('readSettings: mistyped values fall back instead of throwing', () => {
  const s = readSettings(cfg({ path: 42, properties: 'a.yml', include: [], scriptKinds: ['x'], logLevel: null, 'trace.server': 'verbose' }));
  assert.equal(s.path, '');
  assert.deepEqual(s.properties, ['a.yml'], 'a single string is a one-element list');
  assert.deepEqual(s.include, [], "empty: the server's globs of scripts");
  assert.deepEqual(s.scriptKinds, {});
  assert.equal(s.logLevel, 'info');
  assert.equal(s.traceServer, 'verbose');
});

test('readSettings: lists drop blanks and non-strings, values are trimmed', () => {
  const s = readSettings(cfg({ properties: [' a.yml ', '', 3, 'b.properties'], scriptKinds: { ' h/**/*.js ': ' scriptTask ', bad: 1 } }));
  assert.deepEqual(s.properties, ['a.yml', 'b.properties']);
  assert.deepEqual(s.scriptKinds, { 'h/**/*.js': 'scriptTask' });
});

test('resolvePath: workspace-relative, ~, ${workspaceFolder}, ${userHome}', () => {
  const ws = '/ws/project';
  const home = '/home/u';
  assert.equal(resolvePath('', ws, home), '');
  assert.equal(resolvePath('conf', ws, home), path.join(ws, 'conf'));
  assert.equal(resolvePath('/etc/x', ws, home), '/etc/x');
  assert.equal(resolvePath('~/bin/restls', ws, home), path.join(home, 'bin/restls'));
  assert.equal(resolvePath('~', ws, home), home);
  assert.equal(resolvePath('${workspaceFolder}/testdata/config', ws, home), path.join(ws, 'testdata/config'));
  assert.equal(resolvePath('${userHome}/c', ws, home), path.join(home, 'c'));
  assert.equal(resolvePath('rel', undefined, home), 'rel', 'without a folder the server resolves it');
});

test('serverConfig: the workspace folder is the config root only when no source is set', () => {
  const base = readSettings(cfg({}));
  assert.equal(serverConfig(base, '/ws').configRoot, '/ws');
  const withXml = readSettings(cfg({ serviceXml: 'a/script-service-api.xml' }));
  const c = serverConfig(withXml, '/ws');
  assert.equal(c.configRoot, '');
  assert.equal(c.serviceXml, '/ws/a/script-service-api.xml');
  const full = serverConfig(readSettings(cfg({ configRoot: 'testdata/config', properties: ['p.yml'], handlerXml: '/abs/h.xml', platformConfig: 'c.xml', scriptKinds: { '**/h/*.js': 'scriptTask' } })), '/ws');
  assert.deepEqual(full, {
    configRoot: '/ws/testdata/config',
    properties: ['/ws/p.yml'],
    serviceXml: '',
    handlerXml: '/abs/h.xml',
    platformConfig: '/ws/c.xml',
    scriptKinds: { '**/h/*.js': 'scriptTask' },
  });
  assert.ok(!('path' in full) && !('include' in full) && !('environments' in full) && !('environment' in full), 'editor-only settings are not sent; include, environments and environment only when set');
  assert.deepEqual(serverConfig(readSettings(cfg({ include: ['**/handlers/*.js'] })), '/ws').include, ['**/handlers/*.js'], 'include is the server\'s to decide with');
});

test('classifyChange: restart for binary, log level and include; reconfigure for sources; none otherwise', () => {
  const a = readSettings(cfg({}));
  const with_ = (v: Record<string, unknown>) => readSettings(cfg(v));
  assert.equal(classifyChange(a, with_({})), 'none');
  assert.equal(classifyChange(a, with_({ 'trace.server': 'verbose' })), 'none', 'the client applies trace itself');
  assert.equal(classifyChange(a, with_({ path: '/x/restls' })), 'restart');
  assert.equal(classifyChange(a, with_({ logLevel: 'debug' })), 'restart');
  assert.equal(classifyChange(a, with_({ include: ['**/*.js'] })), 'restart');
  for (const k of ['configRoot', 'serviceXml', 'handlerXml', 'platformConfig']) {
    assert.equal(classifyChange(a, with_({ [k]: 'x' })), 'reconfigure', k);
  }
  assert.equal(classifyChange(a, with_({ properties: ['p.yml'] })), 'reconfigure');
  assert.equal(classifyChange(a, with_({ scriptKinds: { '*.js': 'scriptTask' } })), 'reconfigure');
});

test('serverArgs: serve with the log level (the client adds --stdio)', () => {
  assert.deepEqual(serverArgs(readSettings(cfg({ logLevel: 'debug' }))), ['serve', '--log-level', 'debug']);
});

test('scriptSelector and testFileSelector: the server\'s globs, files on disk only', () => {
  assert.deepEqual(scriptSelector(['**/scripts/**/*.js']), [{ scheme: 'file', language: 'javascript', pattern: '**/scripts/**/*.js' }]);
  assert.deepEqual(scriptSelector([]), [], 'a server that names none: no script');
  assert.deepEqual(testFileSelector('**/*.spec.yaml'), [{ scheme: 'file', language: 'yaml', pattern: '**/*.spec.yaml' }]);
  assert.deepEqual(testFileSelector(''), []);
});

test('configured: a workspace set up for restls starts the server when a file is opened', () => {
  assert.equal(configured(readSettings(cfg({}))), false);
  for (const v of [{ configRoot: 'x' }, { properties: ['p.yml'] }, { serviceXml: 'a.xml' }, { environments: { t: { configRoot: 'x' } } }, { include: ['**/*.js'] }, { serverArgs: ['--project', 'x'] }]) {
    assert.equal(configured(readSettings(cfg(v))), true, JSON.stringify(v));
  }
});

test('readsInput', () => {
  assert.ok(readsInput('var id = context.input.id;'));
  assert.ok(readsInput('var i = context . input;'));
  assert.ok(readsInput("var i = context['input'];"));
  assert.ok(!readsInput('var i = context.inputs;'));
  assert.ok(!readsInput('var i = mycontext.input;'));
  assert.ok(!readsInput("api.rest.v1.get('crm', {}, {})"));
});

test('restls.environments: read tolerantly, sent resolved with the pick; the server decides', () => {
  const s = readSettings(
    cfg({
      configRoot: 'webforms',
      properties: ['base.yml'],
      scriptKinds: { '**/h/*.js': 'scriptTask' },
      environments: {
        test: { configRoot: 'envs/test', properties: 'test.yml' },
        production: { serviceXml: '/etc/prod/script-service-api.xml', platformConfig: 7 },
        junk: 'x',
        ' ': {},
        list: [1],
      },
    }),
  );
  assert.deepEqual(Object.keys(s.environments), ['test', 'production']);
  assert.deepEqual(s.environments.test, { configRoot: 'envs/test', properties: ['test.yml'], serviceXml: '', handlerXml: '', platformConfig: '' });
  const environments = {
    test: { configRoot: '/ws/envs/test', properties: ['/ws/test.yml'], serviceXml: '', handlerXml: '', platformConfig: '' },
    // Only a file: no configRoot, not even the workspace folder.
    production: { configRoot: '', properties: [], serviceXml: '/etc/prod/script-service-api.xml', handlerXml: '', platformConfig: '' },
  };
  const plain = { configRoot: '/ws/webforms', properties: ['/ws/base.yml'], serviceXml: '', handlerXml: '', platformConfig: '', scriptKinds: { '**/h/*.js': 'scriptTask' } };
  assert.deepEqual(serverConfig(s, '/ws'), { ...plain, environments });
  // The pick is sent as picked, whatever it names: the server decides
  // (a name no longer defined is its warning and its default).
  assert.deepEqual(serverConfig(s, '/ws', 'test'), { ...plain, environments, environment: 'test' });
  assert.deepEqual(serverConfig(s, '/ws', 'nope'), { ...plain, environments, environment: 'nope' });
  assert.deepEqual(readEnvironments({ empty: {} }), { empty: { configRoot: '', properties: [], serviceXml: '', handlerXml: '', platformConfig: '' } });
  assert.equal(serverConfig(readSettings(cfg({ environments: { empty: {} } })), '/ws', 'empty').environments!.empty.configRoot, '/ws', 'an empty environment reads the workspace folder');
  assert.deepEqual(readEnvironments(null), {});
});

test('restls.serverArgs and restls.serverEnv: after the log level; env added, an empty value removes', () => {
  const s = readSettings(cfg({ logLevel: 'debug', serverArgs: ['--run-timeout', '2m', 3], serverEnv: { GOMEMLIMIT: '256MiB', HOME: '', X: ' spaced ', N: 1 } }));
  assert.deepEqual(serverArgs(s), ['serve', '--log-level', 'debug', '--run-timeout', '2m']);
  assert.deepEqual(serverEnv(s, { PATH: '/bin', HOME: '/home/u', UNSET: undefined }), { PATH: '/bin', GOMEMLIMIT: '256MiB', X: ' spaced ' });
  assert.deepEqual(serverEnv(readSettings(cfg({})), { PATH: '/bin' }), { PATH: '/bin' });
});

test('classifyChange: serverArgs and serverEnv restart, environments reconfigure', () => {
  const base = readSettings(cfg({}));
  assert.equal(classifyChange(base, readSettings(cfg({ serverArgs: ['--max-runs', '1'] }))), 'restart');
  assert.equal(classifyChange(base, readSettings(cfg({ serverEnv: { A: 'b' } }))), 'restart');
  assert.equal(classifyChange(base, readSettings(cfg({ environments: { t: { configRoot: 'x' } } }))), 'reconfigure');
});

test('serverConfig: restls.openapi is sent only when set, in the form written', () => {
  assert.ok(!('openapi' in serverConfig(readSettings(cfg({})), '/ws')), 'unset: the project file and --openapi stay in force');
  assert.deepEqual(serverConfig(readSettings(cfg({ openapi: { crm: 'openapi/crm.yaml' } })), '/ws').openapi, { crm: 'openapi/crm.yaml' });
  assert.deepEqual(serverConfig(readSettings(cfg({ openapi: ['https://crm.example.test/o.json', ''] })), '/ws').openapi, ['https://crm.example.test/o.json']);
  assert.ok(!('openapi' in serverConfig(readSettings(cfg({ openapi: 'crm.yaml' })), '/ws')), 'a mistyped value is unset');
  assert.equal(classifyChange(readSettings(cfg({})), readSettings(cfg({ openapi: { crm: 'c.yaml' } }))), 'reconfigure');
});

test('serverConfig: the folder the server runs in keeps the server\'s default (restls.yaml, else the folder); the pick is sent by name', () => {
  const base = readSettings(cfg({}));
  assert.equal(serverConfig(base, '/ws', undefined, '/ws').configRoot, '', 'the server finds restls.yaml from its working directory');
  assert.equal(serverConfig(base, '/other', undefined, '/ws').configRoot, '/other', 'another folder of a multi-root workspace is its own root');
  assert.equal(serverConfig(base, '/ws', 'prod', '/ws').environment, 'prod');
  const withEnvs = readSettings(cfg({ environments: { prod: { configRoot: 'envs/prod' } } }));
  const c = serverConfig(withEnvs, '/ws', 'prod', '/ws');
  assert.equal(c.environment, 'prod', 'an environment of the setting is picked by name too: the server picks');
  assert.equal(c.configRoot, '', 'the plain settings stay the plain settings');
  assert.equal(c.environments!.prod.configRoot, '/ws/envs/prod');
});

test('serverConfig: restls.inlayHints is sent only when off', () => {
  assert.ok(!('inlayHints' in serverConfig(readSettings(cfg({})), '/ws')));
  assert.equal(serverConfig(readSettings(cfg({ inlayHints: false })), '/ws').inlayHints, false);
});
