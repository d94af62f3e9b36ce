import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import type { FaultsResult } from '../src/protocol';
import { faultsTable } from '../src/faults';

// An answer of restls.exploreFaults (Go's lsp.FaultsResult, generated).
const answer: FaultsResult = {
  script: 'orders.js',
  fixtures: 'orders.mock.yaml',
  summary: '1 call site, 2 runs, 1 handled, 1 crashed',
  sites: [{ line: 3, method: 'GET', serviceId: 'crm', path: 'customers/42', tally: '1 handled, 1 crashed', findings: [
    { outcome: '404', verdict: 'handled', detail: 'returned null', fails: false },
    { outcome: 'connect-timeout', verdict: 'crashed', detail: "TypeError at line 5: Cannot read property 'code' of undefined", fails: true },
  ] }],
  runs: 2, cut: 0, failing: 1,
};

test('faultsTable prints the exploration as restls faults does', () => {
  const t = faultsTable(answer)!;
  assert.equal(t.summary, 'orders.js: 1 call site, 2 runs, 1 handled, 1 crashed');
  assert.equal(t.failing, 1);
  assert.equal(t.text, [
    'orders.js: 1 call site, 2 runs, 1 handled, 1 crashed',
    '',
    'orders.js:3 GET crm path "customers/42"',
    '  404                handled    returned null',
    "  connect-timeout    crashed    TypeError at line 5: Cannot read property 'code' of undefined",
    '',
  ].join('\n'));
});

test('faultsTable reads junk without throwing', () => {
  assert.equal(faultsTable(null), undefined);
  assert.equal(faultsTable([1]), undefined);
  const t = faultsTable({ script: 3, sites: [null, { findings: 'x' }, { line: 'a', findings: [null, { outcome: 1 }] }], cut: 4 })!;
  assert.match(t.text, /the run cap cut 4/);
  assert.equal(t.failing, 0);
});
