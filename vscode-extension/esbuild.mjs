// Bundles the extension into dist/extension.js (one file, vscode external),
// so the .vsix ships no node_modules.
import * as esbuild from 'esbuild';
import * as fs from 'node:fs';

const watch = process.argv.includes('--watch');
const ctx = await esbuild.context({
  entryPoints: ['src/extension.ts'],
  bundle: true,
  outfile: 'dist/extension.js',
  external: ['vscode'],
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  sourcemap: true,
  minify: !watch,
  logLevel: 'info',
});
// vscode-languageclient kills a server that ignores shutdown with
// terminateProcess.sh from its own directory, which is dist/ once bundled.
fs.mkdirSync('dist', { recursive: true });
fs.copyFileSync('node_modules/vscode-languageclient/lib/node/terminateProcess.sh', 'dist/terminateProcess.sh');
fs.chmodSync('dist/terminateProcess.sh', 0o755);
// The fixture schema (contributes.jsonValidation and yamlValidation) has
// one source, the one restls itself validates against.
// A staging copy of the extension outside the repository (a packaging
// step) has no ../runtime: it keeps the copy its dist/ already holds.
const schema = '../runtime/restclient/schema/mock.schema.json';
if (fs.existsSync(schema)) {
  fs.copyFileSync(schema, 'dist/mock.schema.json');
} else if (fs.existsSync('dist/mock.schema.json')) {
  console.log(`esbuild.mjs: no ${schema} here; keeping dist/mock.schema.json`);
} else {
  console.error(`esbuild.mjs: ${schema} is missing and dist/ holds no copy: build in the restls source tree first`);
  process.exit(1);
}

if (watch) {
  await ctx.watch();
} else {
  await ctx.rebuild();
  await ctx.dispose();
}
