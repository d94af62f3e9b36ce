import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import type { FaultsResult } from '../src/protocol';
import { faultsTable } from '../src/faults';

// An answer of restls.exploreFaults (Go's lsp.FaultsResult, generated).
const answer: FaultsResult = {
  script: 'orders.js',
  fixtures: 'orders.mock.yaml',
  summary: 'orders.js: 1 call site, 2 runs, 1 handled, 1 crashed: 1 failing',
  sites: [{ line: 3, method: 'GET', serviceId: 'crm', path: 'customers/42', operation: 'GET /customers/{id}', tally: '1 handled, 1 crashed', findings: [
    { outcome: '404', verdict: 'handled', detail: 'returned null', fails: false },
    { outcome: 'connect-timeout', verdict: 'crashed', detail: "TypeError at line 5: Cannot read property 'code' of undefined", fails: true },
  ] }],
  runs: 2, cut: 0, failing: 1, notes: ['a note'],
};

test('faultsTable prints the exploration as restls faults does', () => {
  const t = faultsTable(answer)!;
  assert.equal(t.summary, 'orders.js: 1 call site, 2 runs, 1 handled, 1 crashed: 1 failing');
  assert.equal(t.failing, 1);
  assert.equal(t.text, [
    'orders.js: 1 call site, 2 runs, 1 handled, 1 crashed: 1 failing',
    '',
    'orders.js:3 GET crm path "customers/42" (GET /customers/{id})',
    '       404                handled    returned null',
    "  FAIL connect-timeout    crashed    TypeError at line 5: Cannot read property 'code' of undefined",
    '',
    'note: a note',
    '',
  ].join('\n'));
});

test('faultsTable reads junk without throwing', () => {
  assert.equal(faultsTable(null), undefined);
  assert.equal(faultsTable([1]), undefined);
  const t = faultsTable({ script: 3, sites: [null, { findings: 'x' }, { line: 'a', findings: [null, { outcome: 1 }] }], notes: [null, 'cut 4'] })!;
  assert.match(t.text, /note: cut 4/);
  assert.equal(t.failing, 0);
});
