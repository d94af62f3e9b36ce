import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { test } from 'node:test';
import {
  DEFAULT_INCLUDE,
  classifyChange,
  documentSelector,
  readSettings,
  readsInput,
  resolvePath,
  activeSources,
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
  assert.deepEqual(s.include, [...DEFAULT_INCLUDE]);
  assert.equal(s.logLevel, 'info');
  assert.equal(s.traceServer, 'off');
  assert.deepEqual(s.scriptKinds, {});
});

test('readSettings: mistyped values fall back instead of throwing', () => {
  const s = readSettings(cfg({ path: 42, properties: 'a.yml', include: [], scriptKinds: ['x'], logLevel: null, 'trace.server': 'verbose' }));
  assert.equal(s.path, '');
  assert.deepEqual(s.properties, ['a.yml'], 'a single string is a one-element list');
  assert.deepEqual(s.include, [...DEFAULT_INCLUDE], 'an empty include would select nothing: default instead');
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
  assert.ok(!('path' in full) && !('include' in full), 'editor-only settings are not sent');
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

test('documentSelector: only included JavaScript files on disk', () => {
  assert.deepEqual(documentSelector(['**/scripts/**/*.js']), [{ scheme: 'file', language: 'javascript', pattern: '**/scripts/**/*.js' }]);
});

test('readsInput', () => {
  assert.ok(readsInput('var id = context.input.id;'));
  assert.ok(readsInput('var i = context . input;'));
  assert.ok(readsInput("var i = context['input'];"));
  assert.ok(!readsInput('var i = context.inputs;'));
  assert.ok(!readsInput('var i = mycontext.input;'));
  assert.ok(!readsInput("api.rest.v1.get('crm', {}, {})"));
});

test('restls.environments: read tolerantly; the active one replaces the five source settings as a whole', () => {
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
  assert.equal(activeSources(s, 'nope').name, undefined, 'a remembered name no longer defined falls back to the settings');
  assert.equal(activeSources(s, 'toString').name, undefined, 'not an inherited property');
  assert.deepEqual(serverConfig(s, '/ws'), {
    configRoot: '/ws/webforms',
    properties: ['/ws/base.yml'],
    serviceXml: '',
    handlerXml: '',
    platformConfig: '',
    scriptKinds: { '**/h/*.js': 'scriptTask' },
  });
  assert.deepEqual(serverConfig(s, '/ws', 'test'), {
    configRoot: '/ws/envs/test',
    properties: ['/ws/test.yml'],
    serviceXml: '',
    handlerXml: '',
    platformConfig: '',
    scriptKinds: { '**/h/*.js': 'scriptTask' },
  });
  // Only a file: no configRoot, not even the workspace folder.
  assert.deepEqual(serverConfig(s, '/ws', 'production'), {
    configRoot: '',
    properties: [],
    serviceXml: '/etc/prod/script-service-api.xml',
    handlerXml: '',
    platformConfig: '',
    scriptKinds: { '**/h/*.js': 'scriptTask' },
  });
  assert.deepEqual(readEnvironments({ empty: {} }), { empty: { configRoot: '', properties: [], serviceXml: '', handlerXml: '', platformConfig: '' } });
  assert.equal(serverConfig(readSettings(cfg({ environments: { empty: {} } })), '/ws', 'empty').configRoot, '/ws', 'an empty environment reads the workspace folder');
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

test('serverConfig: the folder the server runs in keeps the server\'s default (restls.yaml, else the folder); a project environment is sent by name', () => {
  const base = readSettings(cfg({}));
  assert.equal(serverConfig(base, '/ws', undefined, '/ws').configRoot, '', 'the server finds restls.yaml from its working directory');
  assert.equal(serverConfig(base, '/other', undefined, '/ws').configRoot, '/other', 'another folder of a multi-root workspace is its own root');
  assert.equal(serverConfig(base, '/ws', 'prod', '/ws').environment, 'prod', 'a name restls.environments lacks is the project file\'s');
  const withEnvs = readSettings(cfg({ environments: { prod: { configRoot: 'envs/prod' } } }));
  const c = serverConfig(withEnvs, '/ws', 'prod', '/ws');
  assert.ok(!('environment' in c), 'restls.environments is resolved here, not by the server');
  assert.equal(c.configRoot, '/ws/envs/prod');
});

test('serverConfig: restls.inlayHints is sent only when off', () => {
  assert.ok(!('inlayHints' in serverConfig(readSettings(cfg({})), '/ws')));
  assert.equal(serverConfig(readSettings(cfg({ inlayHints: false })), '/ws').inlayHints, false);
});
