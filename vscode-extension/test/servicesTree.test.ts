import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { treeNodes } from '../src/servicesTree';

// The shape of restls.serviceTree (lsp/service_tree.go; the golden files
// in lsp/testdata/golden/servicetree hold real answers).
const answer = {
  kinds: [
    {
      kind: 'scriptService',
      hints: true,
      message: '2 services',
      services: [
        {
          serviceId: 'crm',
          url: 'https://crm.example.com/api/v2',
          description: 'CRM',
          auth: 'basic',
          defined: { file: '/cfg/application.yml', uri: 'file:///cfg/application.yml', range: { start: { line: 8, character: 6 }, end: { line: 8, character: 20 } } },
        },
        { serviceId: 'docs', url: 'https://docs.example.com', auth: 'oAuth', oAuthId: 'docs-oauth', defined: { file: 'config/script-service-api.xml' } },
        { url: 'no id: left out' },
      ],
    },
    { kind: 'scriptTask', hints: false, message: 'no serviceId hints: script-handler-api.xml:3:5: url is required', services: [] },
    { kind: 'validationScript', hints: true, message: '0 services: the configuration declares none', services: [] },
    { services: [] },
  ],
  files: [
    {
      file: '/cfg/application.yml',
      uri: 'file:///cfg/application.yml',
      problems: [
        { severity: 'warning', code: 'service-insecure-url', message: 'service "legacy" uses plain http', serviceId: 'legacy', range: { start: { line: 9, character: 6 }, end: { line: 9, character: 40 } } },
        { severity: 'error', code: 'config-syntax', message: 'bad' },
      ],
    },
    { file: '/cfg/config.xml', uri: 'file:///cfg/config.xml', problems: [] },
  ],
  other: [{ severity: 'error', code: 'config-not-found', message: 'no configuration found in /nowhere' }],
};

test('treeNodes: kinds -> serviceIds with url, description and auth kind; the definition to reveal', () => {
  const roots = treeNodes(answer);
  assert.deepEqual(
    roots.map((r) => [r.id, r.label, r.description, r.icon]),
    [
      ['scriptService', 'Scripts (scriptService)', '2 services', 'symbol-namespace'],
      ['scriptTask', 'Script handlers (scriptTask)', 'no serviceId hints: script-handler-api.xml:3:5: url is required', 'warning'],
      ['validationScript', 'Script validators (validationScript)', '0 services: the configuration declares none', 'symbol-namespace'],
      ['files', 'Configuration files', '3 problems', 'warning'],
    ],
  );
  const [crm, docs] = roots[0].children!;
  assert.deepEqual(crm, {
    id: 'scriptService/crm',
    kind: 'service',
    label: 'crm',
    description: 'https://crm.example.com/api/v2',
    tooltip: 'crm: https://crm.example.com/api/v2\nCRM\nbasic authorization\nDefined in /cfg/application.yml:9',
    icon: 'lock',
    location: { uri: 'file:///cfg/application.yml', range: { start: { line: 8, character: 6 }, end: { line: 8, character: 20 } } },
  });
  assert.equal(docs.tooltip, 'docs: https://docs.example.com\nOAuth (docs-oauth)\nDefined in config/script-service-api.xml');
  assert.equal(docs.location, undefined, 'no URI (a session shown other paths): nothing to reveal');
  assert.equal(roots[0].children!.length, 2, 'an entry without serviceId is left out');
  assert.deepEqual(roots[1].children!.map((c) => [c.kind, c.label]), [['message', 'no serviceId hints: script-handler-api.xml:3:5: url is required']]);
});

test('treeNodes: configuration files with their problems; problems without a file first', () => {
  const files = treeNodes(answer).at(-1)!;
  const [other, yml, xml] = files.children!;
  assert.deepEqual([other.kind, other.label, other.icon, other.location], ['problem', 'no configuration found in /nowhere', 'error', undefined]);
  assert.deepEqual([yml.label, yml.description, yml.resourceUri], ['application.yml', '2 problems, 1 error', 'file:///cfg/application.yml']);
  assert.deepEqual(yml.children![0], {
    id: 'file:/cfg/application.yml/0',
    kind: 'problem',
    label: 'service "legacy" uses plain http',
    description: 'line 10 · service-insecure-url',
    tooltip: 'warning (service-insecure-url): service "legacy" uses plain http',
    icon: 'warning',
    location: { uri: 'file:///cfg/application.yml', range: { start: { line: 9, character: 6 }, end: { line: 9, character: 40 } } },
  });
  assert.deepEqual(yml.children![1].location, { uri: 'file:///cfg/application.yml', range: undefined });
  assert.deepEqual([xml.label, xml.description, xml.children], ['config.xml', 'no problems', undefined]);
});

test('treeNodes never throws on junk', () => {
  for (const junk of [undefined, null, 3, 'x', [], { kinds: 'x', files: 5 }, { kinds: [null, 1, { kind: 'k', services: [null, { serviceId: 5 }] }] }]) {
    assert.doesNotThrow(() => treeNodes(junk));
  }
  assert.deepEqual(treeNodes({}), []);
});
