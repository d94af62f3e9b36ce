// Dry-run modes, the fixture file beside a script, the restls.runScript
// arguments of each mode and the CodeLens titles: pure functions.
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { MissingMocks, lensesFor, mockCandidates, mockFileFor, modeLabel, progressMessage, readDefaultMode, runArgsFor } from '../src/dryRun';

const U = 'file:///ws/scripts/orders.js';
const S = '/ws/scripts/orders.js';
const has = (...files: string[]) => (f: string) => files.includes(f);

test('mockCandidates: the .mock.yaml then the .mock.json beside the script, whatever its extension', () => {
  assert.deepEqual(mockCandidates(S), ['/ws/scripts/orders.mock.yaml', '/ws/scripts/orders.mock.json']);
  assert.deepEqual(mockCandidates('/ws/a.task.js'), ['/ws/a.task.mock.yaml', '/ws/a.task.mock.json']);
  assert.deepEqual(mockCandidates('/ws/noext'), ['/ws/noext.mock.yaml', '/ws/noext.mock.json']);
  assert.equal(mockFileFor(S, has()), undefined);
  assert.equal(mockFileFor(S, has('/ws/scripts/orders.mock.json')), '/ws/scripts/orders.mock.json');
  assert.equal(mockFileFor(S, has('/ws/scripts/orders.mock.json', '/ws/scripts/orders.mock.yaml')), '/ws/scripts/orders.mock.yaml');
});

test('runArgsFor: each mode as restls.runScript arguments', () => {
  const yaml = has('/ws/scripts/orders.mock.yaml');
  assert.deepEqual(runArgsFor(U, S, 'auto', yaml), { uri: U, mock: 'auto' });
  assert.deepEqual(runArgsFor(U, S, 'auto', has()), { uri: U, mock: 'auto' }, 'the server decides and says which');
  assert.deepEqual(runArgsFor(U, S, 'live', yaml), { uri: U, mock: false });
  assert.deepEqual(runArgsFor(U, S, 'mock', yaml), { uri: U, mock: '/ws/scripts/orders.mock.yaml' });
  assert.deepEqual(runArgsFor(U, S, 'record', has()), { uri: U, record: 'auto' });
  assert.deepEqual(runArgsFor('untitled:Untitled-1', undefined, 'auto', yaml), { uri: 'untitled:Untitled-1', mock: 'auto' });
  assert.throws(() => runArgsFor(U, S, 'mock', has()), (e: unknown) => e instanceof MissingMocks && /there is no orders\.mock\.yaml \(or \.mock\.json\) beside orders\.js: record the mocks first/.test(e.message));
  assert.throws(() => runArgsFor('untitled:Untitled-1', undefined, 'mock', yaml), MissingMocks);
});

test('readDefaultMode: auto, live or mock; anything else is auto', () => {
  for (const m of ['auto', 'live', 'mock']) {
    assert.equal(readDefaultMode(m), m);
  }
  for (const v of [undefined, null, 'record', 'MOCK', 3, {}]) {
    assert.equal(readDefaultMode(v), 'auto');
  }
});

test('lensesFor: "Dry run with mocks" only when the file exists; no recording for a document that is not a file', () => {
  const titles = (ls: { title: string; mode: string }[]) => ls.map((l) => `${l.title} -> ${l.mode}`);
  assert.deepEqual(titles(lensesFor(S, has())), ['$(play) Dry run -> live', '$(record) Record mocks -> record']);
  const both = lensesFor(S, has('/ws/scripts/orders.mock.json'));
  assert.deepEqual(titles(both), ['$(play) Dry run -> live', '$(beaker) Dry run with mocks -> mock', '$(record) Record mocks -> record']);
  assert.match(both[1].tooltip, /orders\.mock\.json/);
  assert.match(both[2].tooltip, /orders\.mock\.json/, 'recording updates the file that exists');
  assert.match(lensesFor(S, has())[1].tooltip, /orders\.mock\.yaml/, 'a new recording is YAML');
  assert.deepEqual(titles(lensesFor(undefined, has())), ['$(play) Dry run -> live']);
});

test('modeLabel: what the Response Preview says ran', () => {
  assert.equal(modeLabel('live', undefined), 'live services');
  assert.equal(modeLabel('mock', '/ws/orders.mock.yaml'), 'mocks from orders.mock.yaml');
  assert.equal(modeLabel('mock', undefined), 'mocks');
  assert.equal(modeLabel('record', '/ws/orders.mock.yaml'), 'live, recorded to orders.mock.yaml');
  assert.equal(modeLabel(undefined, '/ws/orders.mock.yaml'), undefined, 'an older server says nothing');
  assert.equal(modeLabel('<b>', undefined), undefined);
});

test('progressMessage: a report that only restates the script is dropped (the title says it); others are shown', () => {
  assert.equal(progressMessage(`running ${S}`, S, U), undefined, 'restls serve names the path');
  assert.equal(progressMessage(`running ${U}`, undefined, U), undefined, 'or the URI of an unsaved document');
  assert.equal(progressMessage('running orders.js', S, U), undefined);
  assert.equal(progressMessage('  ', S, U), undefined);
  assert.equal(progressMessage(undefined, S, U), undefined);
  assert.equal(progressMessage('calling crm (1 of 2)', S, U), 'calling crm (1 of 2)');
  assert.equal(progressMessage('running /ws/scripts/other.js', S, U), 'running /ws/scripts/other.js');
});
