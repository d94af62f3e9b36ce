// Finding the restls binary and checking that it can serve: restls.path,
// then `restls` on PATH, then bin/restls inside the extension. Every failure
// is a BinaryProblem with a message that says what to do, shown once.

import { execFile } from 'child_process';
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
  source: 'setting' | 'PATH' | 'extension';
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

function exeNames(host: Host): string[] {
  if (host.platform !== 'win32') {
    return ['restls'];
  }
  const exts = (host.env.PATHEXT ?? '.EXE;.CMD;.BAT').split(';').filter(Boolean);
  return exts.map((e) => 'restls' + e.toLowerCase());
}

/**
 * findBinary returns the binary to run. An explicit restls.path is used as
 * given (never silently replaced by another binary); otherwise PATH, then
 * the extension's own bin/ directory.
 */
export function findBinary(setting: string, workspaceFolder: string | undefined, extensionPath: string, host: Host = realHost): Found {
  const fix = 'Install restls (`go install github.com/restls/restls/cmd/restls@latest`, or `make build` in the restls source tree) and put it on PATH, or set restls.path to the binary.';
  if (setting) {
    const p = resolvePath(setting, workspaceFolder, host.env.HOME ?? host.env.USERPROFILE);
    if (host.isExecutable(p)) {
      return { path: p, source: 'setting' };
    }
    if (host.platform === 'win32' && host.isExecutable(p + '.exe')) {
      return { path: p + '.exe', source: 'setting' };
    }
    throw new BinaryProblem(`restls.path is "${setting}", but ${p} is not an executable file. Fix restls.path, or clear it to use restls from PATH.`, 'missing');
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
        return { path: p, source: 'PATH' };
      }
    }
  }
  for (const name of exeNames(host)) {
    const p = path.join(extensionPath, 'bin', name);
    if (host.isExecutable(p)) {
      return { path: p, source: 'extension' };
    }
  }
  throw new BinaryProblem(`The restls binary was not found on PATH or in the extension. ${fix}`, 'missing');
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
  const upgrade = 'Install a newer restls (`make build` in the restls source tree, or `go install github.com/restls/restls/cmd/restls@latest`) or point restls.path at one.';
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
