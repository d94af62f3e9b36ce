import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { Status, parseStatus, servicesFor } from '../src/protocol';
import { StatusBar, statusView } from '../src/status';

// The payload restls serve sends (Go's lsp.Status, the generated Status).
const serverStatus: Status = {
  kinds: [
    { kind: 'scriptService', services: 12, hints: true, message: '12 services, 1 configuration errors' },
    { kind: 'scriptTask', services: 0, hints: false, message: 'no serviceId hints: script-handler-api.xml:3:5: url is required' },
    { kind: 'validationScript', services: 0, hints: true, message: '0 services: the configuration declares none' },
  ],
  sources: { configRoot: '/etc/webforms' },
  problems: { error: 1 },
  scripts: ['**/scripts/**/*.js'],
  testFiles: '**/*.test.yaml',
  skip: '**/{.*,node_modules}/**',
};

test('parseStatus reads restls serve\'s payload', () => {
  const m = parseStatus(serverStatus);
  assert.deepEqual([...m.keys()], ['scriptService', 'scriptTask', 'validationScript']);
  assert.equal(m.get('scriptService')!.count, 12);
  assert.equal(m.get('scriptService')!.reason, undefined);
  assert.equal(m.get('scriptTask')!.count, 0);
  assert.equal(m.get('scriptTask')!.reason, 'script-handler-api.xml:3:5: url is required');
  assert.equal(m.get('validationScript')!.reason, '0 services: the configuration declares none');
});

test('parseStatus reads only Go\'s shape, and tolerates junk in it', () => {
  // Shapes no Go type sends (an older client guessed at them) give nothing.
  assert.equal(parseStatus({ scriptService: { count: 2 } }).size, 0);
  assert.equal(parseStatus([{ kind: 'scriptTask', services: 2 }]).size, 0);
  assert.equal(parseStatus({ kind: 'scriptTask', error: 'boom' }).size, 0);
  const odd = parseStatus({ kinds: [null, 3, { kind: 7 }, { kind: 'scriptTask', services: 'many', hints: 'yes', message: 5 }] });
  assert.deepEqual([...odd.values()], [{ kind: 'scriptTask', count: undefined, reason: undefined, message: undefined }]);
  assert.equal(parseStatus(null).size, 0);
  assert.equal(parseStatus('x').size, 0);
  assert.equal(parseStatus({ kinds: 5 }).size, 0);
});

test('statusView: count, no hints with the reason, problem, loading', () => {
  const m = parseStatus(serverStatus);
  const ok = statusView('scriptService', m.get('scriptService'), undefined);
  assert.equal(ok.text, '$(check) restls: 12 services');
  assert.match(ok.tooltip, /12 services, 1 configuration errors/);
  assert.equal(ok.command, 'restls.showServices');
  const none = statusView('scriptTask', m.get('scriptTask'), undefined);
  assert.equal(none.text, '$(warning) restls: no serviceId hints');
  assert.match(none.tooltip, /scriptTask: script-handler-api\.xml:3:5: url is required/);
  assert.match(none.tooltip, /Reload Configuration/);
  assert.equal(statusView('scriptService', undefined, undefined).text, '$(sync~spin) restls');
  const bad = statusView('scriptService', m.get('scriptService'), 'restls.path is wrong');
  assert.equal(bad.text, '$(error) restls');
  assert.equal(bad.tooltip, 'restls.path is wrong');
});

test('StatusBar shows only for scripts and keeps the last status', () => {
  const item = { text: '', tooltip: '' as unknown, command: '' as unknown, visible: false, show() { this.visible = true; }, hide() { this.visible = false; } };
  const bar = new StatusBar(item);
  bar.update(serverStatus);
  assert.equal(item.visible, false, 'hidden until a script is active');
  bar.setActive('scriptService');
  assert.equal(item.visible, true);
  assert.equal(item.text, '$(check) restls: 12 services');
  bar.setActive('scriptTask');
  assert.equal(item.text, '$(warning) restls: no serviceId hints');
  bar.reset();
  assert.equal(item.text, '$(sync~spin) restls');
  bar.setActive(undefined);
  assert.equal(item.visible, false);
});

test('servicesFor: the map of one kind, or one kind out of all', () => {
  const one = { crm: { url: 'https://crm', description: 'CRM' } };
  assert.deepEqual(servicesFor(one, 'scriptService'), one);
  assert.deepEqual(servicesFor({ scriptService: one, scriptTask: {} }, 'scriptService'), one);
  assert.deepEqual(servicesFor({ scriptService: one, scriptTask: {} }, 'scriptTask'), {});
  assert.deepEqual(servicesFor(null, 'scriptService'), {});
  assert.deepEqual(servicesFor({}, 'scriptService'), {});
});

test('statusView: the active environment before the count; a click chooses another', () => {
  const m = parseStatus(serverStatus);
  const v = statusView('scriptService', m.get('scriptService'), undefined, 'production');
  assert.equal(v.text, '$(check) restls: production · 12 services');
  assert.equal(v.command, 'restls.selectEnvironment');
  assert.match(v.tooltip, /^Environment production\. .*Click to choose another environment\.$/);
  assert.equal(statusView('scriptTask', m.get('scriptTask'), undefined, 'test').text, '$(warning) restls: test · no serviceId hints');
  assert.equal(statusView('scriptService', undefined, undefined, 'test').text, '$(sync~spin) restls: test');
  // A server problem wins, and says nothing of the environment.
  assert.equal(statusView('scriptService', m.get('scriptService'), 'restls is missing', 'test').text, '$(error) restls');
  assert.equal(statusView('scriptService', m.get('scriptService'), undefined, undefined).text, '$(check) restls: 12 services');
});
