// Finding the restls binary and checking that it can serve: the one
// bundled in a platform .vsix, then restls.path, then `restls` on PATH.
// Every failure is a BinaryProblem with a message that says what to do,
// shown once.

import { execFile } from 'child_process';
import { Files, filesFrom } from './protocol';
import * as fs from 'fs';
import * as path from 'path';
import { resolvePath } from './settings';

/** MIN_VERSION is the oldest release whose `serve` speaks the protocol this extension expects. Development builds ("dev", pseudo-versions) are accepted. */
export const MIN_VERSION = '0.1.0';

/** Host is what discovery touches, injectable for tests. */
export interface Host {
  platform: NodeJS.Platform;
  env: Record<string, string | undefined>;
  isExecutable(file: string): boolean;
}

export const realHost: Host = {
  platform: process.platform,
  env: process.env,
  isExecutable(file: string): boolean {
    try {
      const st = fs.statSync(file);
      if (!st.isFile()) {
        return false;
      }
      if (process.platform === 'win32') {
        return true;
      }
      fs.accessSync(file, fs.constants.X_OK);
      return true;
    } catch {
      return false;
    }
  },
};

/** Found is a binary and where it came from (for the log). */
export interface Found {
  path: string;
  source: 'extension' | 'setting' | 'PATH';
}

/** BinaryProblem is a binary that is missing, not executable or too old; message says what to do. */
export class BinaryProblem extends Error {
  constructor(
    message: string,
    readonly kind: 'missing' | 'version',
  ) {
    super(message);
    this.name = 'BinaryProblem';
  }
}

/** INSTALL is what a user without a binary should do. */
export const INSTALL =
  'Install the restls extension for your platform (the .vsix named after it, e.g. restls-<version>-linux-x64.vsix, carries the binary), or download the restls archive for your platform, unpack it and put restls on PATH or set restls.path to it.';

function exeNames(host: Host): string[] {
  if (host.platform !== 'win32') {
    return ['restls'];
  }
  const exts = (host.env.PATHEXT ?? '.EXE;.CMD;.BAT').split(';').filter(Boolean);
  return exts.map((e) => 'restls' + e.toLowerCase());
}

/** vsceTarget is VS Code's name of a platform (the `vsce package --target` of a platform .vsix): linux-x64, darwin-arm64, win32-x64... */
export function vsceTarget(platform: NodeJS.Platform, arch: string): string {
  return `${platform}-${arch}`;
}

/**
 * bundledPaths are where a platform .vsix carries its binary:
 * bin/<target>/restls (restls.exe on Windows), as `make dist` packs it;
 * then bin/restls, for a binary copied there by hand.
 */
export function bundledPaths(extensionPath: string, host: Host, arch: string = process.arch): string[] {
  const exe = host.platform === 'win32' ? 'restls.exe' : 'restls';
  return [path.join(extensionPath, 'bin', vsceTarget(host.platform, arch), exe), path.join(extensionPath, 'bin', exe)];
}

/**
 * Candidates are the binaries to try, in order, and why an explicit
 * restls.path cannot be used (it then ends the list: PATH never silently
 * replaces a binary the user chose).
 */
export interface Candidates {
  found: Found[];
  settingProblem?: string;
}

/**
 * findCandidates lists the binaries to try: the one bundled in the
 * extension first, then restls.path, then `restls` on PATH.
 */
export function findCandidates(setting: string, workspaceFolder: string | undefined, extensionPath: string, host: Host = realHost, arch: string = process.arch): Candidates {
  const found: Found[] = [];
  const bundled = bundledPaths(extensionPath, host, arch).find((p) => host.isExecutable(p));
  if (bundled) {
    found.push({ path: bundled, source: 'extension' });
  }
  if (setting) {
    const p = resolvePath(setting, workspaceFolder, host.env.HOME ?? host.env.USERPROFILE);
    if (host.isExecutable(p)) {
      found.push({ path: p, source: 'setting' });
    } else if (host.platform === 'win32' && host.isExecutable(p + '.exe')) {
      found.push({ path: p + '.exe', source: 'setting' });
    } else {
      return { found, settingProblem: `restls.path is "${setting}", but ${p} is not an executable file. Fix restls.path, or clear it to use restls from PATH.` };
    }
    return { found };
  }
  const sep = host.platform === 'win32' ? ';' : ':';
  const pathVar = host.env.PATH ?? host.env.Path ?? '';
  for (const dir of pathVar.split(sep)) {
    if (!dir) {
      continue;
    }
    for (const name of exeNames(host)) {
      const p = path.join(dir, name);
      if (host.isExecutable(p)) {
        found.push({ path: p, source: 'PATH' });
        return { found };
      }
    }
  }
  return { found };
}

/**
 * findBinary returns the first binary to try: the bundled one, then
 * restls.path, then PATH. It throws when there is none.
 */
export function findBinary(setting: string, workspaceFolder: string | undefined, extensionPath: string, host: Host = realHost, arch: string = process.arch): Found {
  const c = findCandidates(setting, workspaceFolder, extensionPath, host, arch);
  if (c.found.length > 0) {
    return c.found[0];
  }
  throw new BinaryProblem(c.settingProblem ?? `The restls binary was not found in the extension or on PATH. ${INSTALL}`, 'missing');
}

/**
 * chooseBinary checks the candidates in order and returns the first that
 * can serve, with its version. A bundled binary that cannot run (a .vsix
 * for another platform) gives way to restls.path and PATH. When none can,
 * it throws one BinaryProblem that names each and what to do.
 */
export async function chooseBinary(c: Candidates, run: Runner = realRunner): Promise<{ found: Found; version: string; skipped: string[] }> {
  const skipped: string[] = [];
  for (const f of c.found) {
    try {
      return { found: f, version: await checkBinary(f, run), skipped };
    } catch (e) {
      if (!(e instanceof BinaryProblem)) {
        throw e;
      }
      skipped.push(e.message);
    }
  }
  if (c.settingProblem) {
    throw new BinaryProblem([...skipped, c.settingProblem].join(' '), 'missing');
  }
  if (skipped.length > 0) {
    throw new BinaryProblem(skipped.join(' '), 'version');
  }
  throw new BinaryProblem(`The restls binary was not found in the extension or on PATH. ${INSTALL}`, 'missing');
}

/** parseVersion reads `restls v0.3.1 (go1.26.0)` and returns "0.3.1", "dev", or undefined when the output is not restls's. */
export function parseVersion(out: string): string | undefined {
  const m = /^restls\s+(\S+)/m.exec(out.trim());
  if (!m) {
    return undefined;
  }
  return m[1].replace(/^v/, '');
}

function semver(v: string): [number, number, number] | undefined {
  const m = /^(\d+)\.(\d+)\.(\d+)(-[0-9A-Za-z.-]+)?$/.exec(v);
  if (!m) {
    return undefined;
  }
  return [Number(m[1]), Number(m[2]), Number(m[3])];
}

/** isPseudoVersion matches Go pseudo-versions (v0.0.0-20261122030000-abcdef123456), which are development builds. */
function isPseudoVersion(v: string): boolean {
  return /-\d{14}-[0-9a-f]{12}$/.test(v);
}

/**
 * versionOK tells whether a version can serve this extension: "dev" and Go
 * pseudo-versions are development builds from source and always accepted
 * (the `serve` check below still guards them).
 */
export function versionOK(v: string, min: string = MIN_VERSION): boolean {
  if (v === 'dev' || v === '(devel)' || isPseudoVersion(v)) {
    return true;
  }
  const a = semver(v);
  const b = semver(min);
  if (!a || !b) {
    return false;
  }
  for (let i = 0; i < 3; i++) {
    if (a[i] !== b[i]) {
      return a[i] > b[i];
    }
  }
  return true;
}

/** Runner runs a binary and returns its output, injectable for tests. */
export type Runner = (file: string, args: string[]) => Promise<{ code: number; stdout: string; stderr: string }>;

export const realRunner: Runner = (file, args) =>
  new Promise((resolve) => {
    execFile(file, args, { timeout: 10_000, windowsHide: true }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as NodeJS.ErrnoException).code === 'number' ? Number((err as NodeJS.ErrnoException).code) : 1) : 0;
      resolve({ code, stdout: String(stdout), stderr: err && !stderr ? String(err.message) : String(stderr) });
    });
  });

/**
 * checkBinary runs `restls version` and `restls help` and returns the
 * version, or throws a BinaryProblem naming the binary and the fix: not
 * restls at all, older than MIN_VERSION, or without a `serve` command.
 */
export async function checkBinary(found: Found, run: Runner = realRunner): Promise<string> {
  const upgrade = 'Install a newer restls (the extension for your platform, or the restls archive of a newer release) or point restls.path at one.';
  const v = await run(found.path, ['version']);
  const version = v.code === 0 ? parseVersion(v.stdout) : undefined;
  if (version === undefined) {
    const why = v.code !== 0 ? `it failed: ${(v.stderr || v.stdout).trim().split('\n')[0] || 'exit status ' + v.code}` : 'it did not print a restls version';
    throw new BinaryProblem(`${found.path} (from ${found.source}) does not look like restls: \`${path.basename(found.path)} version\` ${why}. ${upgrade}`, 'version');
  }
  if (!versionOK(version)) {
    throw new BinaryProblem(`${found.path} is restls ${version}; this extension needs ${MIN_VERSION} or newer. ${upgrade}`, 'version');
  }
  const h = await run(found.path, ['help']);
  if (!/^\s+serve\s/m.test(h.stdout + '\n' + h.stderr)) {
    throw new BinaryProblem(`${found.path} is restls ${version}, which has no \`serve\` command (the language server). ${upgrade}`, 'version');
  }
  return version;
}

/**
 * binaryFiles asks a restls binary for its default globs of scripts and
 * test files (`restls version --json`'s files: Go's lsp.Files), which the
 * extension needs before any server runs, to know whether an open file is
 * the server's; undefined when the binary does not say.
 */
export async function binaryFiles(found: Found, run: Runner = realRunner): Promise<Files | undefined> {
  const r = await run(found.path, ['version', '--json']);
  if (r.code !== 0) {
    return undefined;
  }
  try {
    return filesFrom((JSON.parse(r.stdout) as { files?: unknown }).files);
  } catch {
    return undefined;
  }
}
