// Dry-run modes, the restls.runScript arguments of each mode and the
// CodeLens titles, from the server's restls/documentInfo: pure functions.
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { MissingMocks, lensesFor, modeLabel, progressMessage, readDefaultMode, runArgsFor } from '../src/dryRun';
import { DocumentInfo, documentInfoFrom } from '../src/protocol';

const U = 'file:///ws/scripts/orders.js';
const S = '/ws/scripts/orders.js';
const FIXTURES = ['/ws/scripts/orders.mock.yaml', '/ws/scripts/orders.mock.json'];
/** info is the server's answer for orders.js, with mockFile the fixture file that exists. */
const info = (mockFile = ''): DocumentInfo => ({ kind: { kind: 'scriptService', source: 'default' }, fixtures: FIXTURES, mockFile, script: true, displayPath: 'scripts/orders.js' });
const untitled: DocumentInfo = { kind: { kind: 'scriptService', source: 'default' }, fixtures: [], mockFile: '', script: true, displayPath: 'untitled:Untitled-1' };

test('documentInfoFrom: the server\'s answer, tolerant of odd shapes', () => {
  const answer = { kind: { kind: 'scriptTask', source: 'kindMap', glob: '**/tasks/**' }, fixtures: FIXTURES, mockFile: FIXTURES[1], script: false, displayPath: 'tasks/a.js' };
  assert.deepEqual(documentInfoFrom(answer), answer);
  assert.deepEqual(documentInfoFrom({ kind: { kind: 'scriptService', source: 'default' }, fixtures: [3, ''], mockFile: null }), {
    kind: { kind: 'scriptService', source: 'default' },
    fixtures: [],
    mockFile: '',
    script: true,
    displayPath: '',
  });
  for (const v of [null, undefined, 'x', {}, { kind: 'scriptTask' }, { kind: { kind: '' } }]) {
    assert.equal(documentInfoFrom(v), undefined, JSON.stringify(v));
  }
});

test('runArgsFor: each mode as restls.runScript arguments', () => {
  const yaml = info(FIXTURES[0]);
  assert.deepEqual(runArgsFor(U, yaml, 'auto'), { uri: U, mock: 'auto' });
  assert.deepEqual(runArgsFor(U, info(), 'auto'), { uri: U, mock: 'auto' }, 'the server decides and says which');
  assert.deepEqual(runArgsFor(U, yaml, 'live'), { uri: U, mock: false });
  assert.deepEqual(runArgsFor(U, yaml, 'mock'), { uri: U, mock: '/ws/scripts/orders.mock.yaml' });
  assert.deepEqual(runArgsFor(U, info(), 'record'), { uri: U, record: 'auto' });
  assert.deepEqual(runArgsFor('untitled:Untitled-1', untitled, 'auto'), { uri: 'untitled:Untitled-1', mock: 'auto' });
  assert.deepEqual(runArgsFor(U, undefined, 'live'), { uri: U, mock: false }, 'a server that did not answer');
  assert.throws(() => runArgsFor(U, info(), 'mock'), (e: unknown) => e instanceof MissingMocks && /there is no orders\.mock\.yaml or orders\.mock\.json beside orders\.js: record the mocks first/.test(e.message));
  assert.throws(() => runArgsFor('untitled:Untitled-1', untitled, 'mock'), MissingMocks);
  assert.throws(() => runArgsFor(U, undefined, 'mock'), MissingMocks);
});

test('readDefaultMode: auto, live or mock; anything else is auto', () => {
  for (const m of ['auto', 'live', 'mock']) {
    assert.equal(readDefaultMode(m), m);
  }
  for (const v of [undefined, null, 'record', 'MOCK', 3, {}]) {
    assert.equal(readDefaultMode(v), 'auto');
  }
});

test('lensesFor: "Dry run with mocks" only when the server found the file; no recording for a document that is not a file', () => {
  const titles = (ls: { title: string; mode: string }[]) => ls.map((l) => `${l.title} -> ${l.mode}`);
  assert.deepEqual(titles(lensesFor(info())), ['$(play) Dry run -> live', '$(record) Record mocks -> record']);
  const both = lensesFor(info(FIXTURES[1]));
  assert.deepEqual(titles(both), ['$(play) Dry run -> live', '$(beaker) Dry run with mocks -> mock', '$(record) Record mocks -> record']);
  assert.match(both[1].tooltip, /orders\.mock\.json/);
  assert.match(both[2].tooltip, /orders\.mock\.json/, 'recording updates the file that exists');
  assert.match(lensesFor(info())[1].tooltip, /orders\.mock\.yaml/, 'a new recording goes to the first fixture file the server names');
  assert.deepEqual(titles(lensesFor(untitled)), ['$(play) Dry run -> live']);
  assert.deepEqual(titles(lensesFor(undefined)), ['$(play) Dry run -> live'], 'no server answer yet');
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
