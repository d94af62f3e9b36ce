// The extension keeps no copy of the server's rules (issue 34 item 4;
// docs/decisions.md, "What the editor asks the server"): which files are
// scripts and tests, the fixture names, and which environment is in
// force are the server's answers. This fails when src/ grows a copy
// again. Comments may name the files; code may not.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';

const SRC = path.join(__dirname, '..', '..', '..', 'src');

/** code is a source file without its comment lines and trailing comments (strings stay). */
function code(file: string): string {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => !/^\s*(\/\/|\/\*|\*)/.test(l))
    .map((l) => l.replace(/\s\/\/\s.*$/, ''))
    .join('\n');
}

const sources = fs.readdirSync(SRC).filter((f) => f.endsWith('.ts'));

const copies: [RegExp, string][] = [
  [/\.test\.ya?ml/, "the test-file suffix (the server's testFiles glob)"],
  [/\.mock\.(ya?ml|json)/, "the fixture suffixes (restls/documentInfo's fixtures)"],
  [/script-code\/|script-handler\/|\*\*\/scripts\/|\.script\.js/, "a default glob of scripts (the server's scripts globs)"],
  [/DEFAULT_INCLUDE|activeSources/, 'a default list of scripts or a choice of sources'],
  [/environments\s*\.\s*(includes|indexOf|find)\s*\(|hasOwnProperty\s*\.\s*call\s*\(\s*[\w.]*environments\s*,/, "a choice among environments (restls/status's environment)"],
];

test('src/ holds no copy of a rule the server decides', () => {
  assert.ok(sources.length > 5, `no sources under ${SRC}`);
  const found: string[] = [];
  for (const f of sources) {
    const text = code(path.join(SRC, f));
    for (const [re, what] of copies) {
      const m = re.exec(text);
      if (m) {
        found.push(`src/${f}: "${m[0]}": ${what}`);
      }
    }
  }
  assert.deepEqual(found, []);
});

test('the check finds a copy (it is not vacuous)', () => {
  const planted = "export const TEST_GLOB = '**/*.test.yaml';\nif (Object.prototype.hasOwnProperty.call(s.environments, name)) {}\n";
  const hits = copies.filter(([re]) => re.test(planted)).map(([, what]) => what);
  assert.equal(hits.length, 2, hits.join('; '));
});

test('the directories left out are the server\'s skip glob, or its one copy for the search before a server runs', () => {
  const found: string[] = [];
  for (const f of sources) {
    code(path.join(SRC, f))
      .split('\n')
      .forEach((l) => {
        if (/node_modules|\{\.\*,/.test(l) && !/^export const SKIP_BEFORE_SERVER = /.test(l)) {
          found.push(`src/${f}: ${l.trim()}`);
        }
      });
  }
  assert.deepEqual(found, [], 'a glob of skipped directories of its own: use the server\'s skip (Files.skip), or SKIP_BEFORE_SERVER before a server answers');
});
