// Settings: reading restls.* into plain values, resolving paths the way a
// user expects (relative to the workspace folder, ~ and ${workspaceFolder}
// expanded), and deciding whether a change needs a server restart or only a
// reconfiguration. Pure functions over a small interface so tests need no
// vscode.

import * as os from 'os';
import * as path from 'path';

/** SECTION is the settings section, also the workspace/configuration section the server asks for. */
export const SECTION = 'restls';

/** Settings are the restls.* values as the user wrote them. */
export interface Settings {
  path: string;
  configRoot: string;
  properties: string[];
  serviceXml: string;
  handlerXml: string;
  platformConfig: string;
  scriptKinds: Record<string, string>;
  /** inlayHints is restls.inlayHints (default true). */
  inlayHints: boolean;
  /** openapi is restls.openapi: a serviceId map or a list of descriptions; undefined when unset. */
  openapi: Record<string, string> | string[] | undefined;
  /** include is restls.include as written; empty leaves the server's globs of scripts. */
  include: string[];
  logLevel: string;
  traceServer: string;
  /** serverArgs are added to `restls serve`'s arguments. */
  serverArgs: string[];
  /** serverEnv are added to the server process's environment. */
  serverEnv: Record<string, string>;
  /** environments are named sets of configuration sources (restls.environments), sent to the server, which lists and picks. */
  environments: Record<string, Sources>;
}

/** Sources are the five settings that choose the configuration; an environment holds one set. */
export interface Sources {
  configRoot: string;
  properties: string[];
  serviceXml: string;
  handlerXml: string;
  platformConfig: string;
}

/** ServerConfig is what the server receives as initializationOptions and as the `restls` configuration section: absolute paths, no editor-only keys. */
export interface ServerConfig {
  configRoot: string;
  properties: string[];
  serviceXml: string;
  handlerXml: string;
  platformConfig: string;
  scriptKinds: Record<string, string>;
  /** inlayHints is sent only when restls.inlayHints is off: on is the server's default. */
  inlayHints?: boolean;
  /** openapi is sent only when restls.openapi is set: unset leaves the project file's and the server's. */
  openapi?: Record<string, string> | string[];
  /** environment is the name picked in this workspace, sent as picked: the server decides what it names (docs/lsp.md, "environment"); sent only when one is picked. */
  environment?: string;
  /** environments are restls.environments with absolute paths; sent only when there are some. */
  environments?: Record<string, Sources>;
  /** include is restls.include; sent only when set: unset leaves the server's globs of scripts. */
  include?: string[];
}

/** ConfigurationLike is the part of vscode.WorkspaceConfiguration used here. */
export interface ConfigurationLike {
  get<T>(key: string): T | undefined;
}

function str(v: unknown, def = ''): string {
  return typeof v === 'string' ? v.trim() : def;
}

function strList(v: unknown, def: readonly string[] = []): string[] {
  if (typeof v === 'string') {
    return v.trim() ? [v.trim()] : [...def];
  }
  if (!Array.isArray(v)) {
    return [...def];
  }
  return v.filter((x): x is string => typeof x === 'string' && x.trim() !== '').map((x) => x.trim());
}

function strMap(v: unknown, trim = true): Record<string, string> {
  const out: Record<string, string> = {};
  if (v && typeof v === 'object' && !Array.isArray(v)) {
    for (const [k, val] of Object.entries(v as Record<string, unknown>)) {
      if (typeof val === 'string' && k.trim() !== '') {
        out[k.trim()] = trim ? val.trim() : val;
      }
    }
  }
  return out;
}

/** readSettings reads restls.* with defaults for missing or mistyped values (a bad value in settings.json must not stop the extension). */
export function readSettings(cfg: ConfigurationLike): Settings {
  return {
    path: str(cfg.get('path')),
    configRoot: str(cfg.get('configRoot')),
    properties: strList(cfg.get('properties')),
    serviceXml: str(cfg.get('serviceXml')),
    handlerXml: str(cfg.get('handlerXml')),
    platformConfig: str(cfg.get('platformConfig')),
    scriptKinds: strMap(cfg.get('scriptKinds')),
    openapi: readOpenAPI(cfg.get('openapi')),
    inlayHints: cfg.get('inlayHints') !== false,
    include: strList(cfg.get('include')),
    logLevel: str(cfg.get('logLevel'), 'info') || 'info',
    traceServer: str(cfg.get('trace.server'), 'off') || 'off',
    serverArgs: strList(cfg.get('serverArgs')),
    serverEnv: strMap(cfg.get('serverEnv'), false),
    environments: readEnvironments(cfg.get('environments')),
  };
}

/** readOpenAPI reads restls.openapi: a map of serviceIds to descriptions or a list of descriptions; anything else is unset. */
export function readOpenAPI(v: unknown): Record<string, string> | string[] | undefined {
  if (Array.isArray(v)) {
    return strList(v);
  }
  if (v && typeof v === 'object') {
    return strMap(v);
  }
  return undefined;
}

/** readEnvironments reads restls.environments; an entry that is not an object is left out. */
export function readEnvironments(v: unknown): Record<string, Sources> {
  const out: Record<string, Sources> = {};
  if (!v || typeof v !== 'object' || Array.isArray(v)) {
    return out;
  }
  for (const [name, e] of Object.entries(v as Record<string, unknown>)) {
    if (!name.trim() || !e || typeof e !== 'object' || Array.isArray(e)) {
      continue;
    }
    const o = e as Record<string, unknown>;
    out[name.trim()] = {
      configRoot: str(o.configRoot),
      properties: strList(o.properties),
      serviceXml: str(o.serviceXml),
      handlerXml: str(o.handlerXml),
      platformConfig: str(o.platformConfig),
    };
  }
  return out;
}

/**
 * resolvePath expands ~ and ${workspaceFolder} (also ${userHome}) and makes
 * a relative path absolute against the workspace folder. An empty value
 * stays empty (meaning "not set"). Without a workspace folder a relative
 * path is left as written, and the server resolves it against its own
 * working directory.
 */
export function resolvePath(p: string, workspaceFolder: string | undefined, home: string = os.homedir()): string {
  if (!p) {
    return '';
  }
  let out = p
    .replace(/\$\{userHome\}/g, home)
    .replace(/\$\{workspaceFolder\}/g, workspaceFolder ?? '.');
  if (out === '~') {
    out = home;
  } else if (out.startsWith('~/') || out.startsWith('~\\')) {
    out = path.join(home, out.slice(2));
  }
  if (!path.isAbsolute(out) && workspaceFolder) {
    out = path.join(workspaceFolder, out);
  }
  return out;
}

/**
 * serverConfig turns settings into what the server gets. When no source is
 * set at all, the workspace folder is the config root, the way
 * `restls services` defaults to the current directory; except for the
 * folder the server runs in (serverDir), where the server's own default
 * holds: the project file it finds there (restls.yaml), else that folder.
 * Each of restls.environments gets the same resolution. environment is
 * the name picked in this workspace, sent as it is: the server lists the
 * environments and decides which one is in force (restls/status).
 */
export function serverConfig(s: Settings, workspaceFolder: string | undefined, environment?: string, serverDir?: string): ServerConfig {
  const out: ServerConfig = {
    ...resolveSources(s, workspaceFolder, serverDir),
    scriptKinds: { ...s.scriptKinds },
  };
  if (!s.inlayHints) {
    out.inlayHints = false;
  }
  if (environment !== undefined) {
    out.environment = environment;
  }
  const names = Object.keys(s.environments);
  if (names.length > 0) {
    out.environments = Object.fromEntries(names.map((n) => [n, resolveSources(s.environments[n], workspaceFolder, serverDir)]));
  }
  if (s.include.length > 0) {
    out.include = [...s.include];
  }
  if (s.openapi !== undefined) {
    out.openapi = Array.isArray(s.openapi) ? [...s.openapi] : { ...s.openapi };
  }
  return out;
}

/** resolveSources makes one set of sources' paths absolute, with the workspace folder as the config root when none is set (serverConfig). */
function resolveSources(src: Sources, workspaceFolder: string | undefined, serverDir: string | undefined): Sources {
  const r = (p: string) => resolvePath(p, workspaceFolder);
  let configRoot = r(src.configRoot);
  const anyFile = src.properties.length > 0 || src.serviceXml || src.handlerXml || src.platformConfig;
  if (!configRoot && !anyFile && workspaceFolder && workspaceFolder !== serverDir) {
    configRoot = workspaceFolder;
  }
  return {
    configRoot,
    properties: src.properties.map(r),
    serviceXml: r(src.serviceXml),
    handlerXml: r(src.handlerXml),
    platformConfig: r(src.platformConfig),
  };
}

/** Change says what a settings change needs. */
export type Change = 'none' | 'reconfigure' | 'restart';

/**
 * classifyChange compares two settings. The binary, its log level and the
 * globs of scripts (include: the server answers them at initialize, and
 * the document selector is built from that answer) are fixed when the
 * server starts, so they need
 * a restart; the registry sources and kinds are sent to the running server;
 * trace.server is applied by the language client itself.
 */
export function classifyChange(before: Settings, after: Settings): Change {
  if (
    before.path !== after.path ||
    before.logLevel !== after.logLevel ||
    JSON.stringify(before.include) !== JSON.stringify(after.include) ||
    JSON.stringify(before.serverArgs) !== JSON.stringify(after.serverArgs) ||
    JSON.stringify(before.serverEnv) !== JSON.stringify(after.serverEnv)
  ) {
    return 'restart';
  }
  const keys: (keyof Settings)[] = ['configRoot', 'properties', 'serviceXml', 'handlerXml', 'platformConfig', 'scriptKinds', 'openapi', 'inlayHints', 'environments'];
  for (const k of keys) {
    if (JSON.stringify(before[k]) !== JSON.stringify(after[k])) {
      return 'reconfigure';
    }
  }
  return 'none';
}

/** serverArgs are the arguments of `restls serve` (the client adds --stdio): the log level, then restls.serverArgs. */
export function serverArgs(s: Settings): string[] {
  return ['serve', '--log-level', s.logLevel, ...s.serverArgs];
}

/** serverEnv is the server process's environment: the extension host's, with restls.serverEnv added (an empty value removes a variable). */
export function serverEnv(s: Settings, base: Record<string, string | undefined> = process.env): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(base)) {
    if (v !== undefined) {
      out[k] = v;
    }
  }
  for (const [k, v] of Object.entries(s.serverEnv)) {
    if (v === '') {
      delete out[k];
    } else {
      out[k] = v;
    }
  }
  return out;
}

/**
 * scriptSelector selects the documents the server named as scripts (its
 * globs of scripts: capabilities.experimental.restls at initialize, the
 * restls.include setting when set, else the server's default): JavaScript
 * files on disk, never every JavaScript file. The globs are the server's;
 * this only hands them to VS Code, which sends what they match.
 */
export function scriptSelector(globs: readonly string[]): { scheme: string; language: string; pattern: string }[] {
  return globs.map((pattern) => ({ scheme: 'file', language: 'javascript', pattern }));
}

/** testFileSelector selects the test files the server named (its testFiles glob): it diagnoses them. */
export function testFileSelector(glob: string | undefined): { scheme: string; language: string; pattern: string }[] {
  return glob ? [{ scheme: 'file', language: 'yaml', pattern: glob }] : [];
}

/**
 * configured tells whether the user set restls up for this workspace: a
 * configuration source, environments, script globs or server arguments.
 * Before a server runs there is nobody to ask which files are scripts, so
 * an open JavaScript file starts the server only in a workspace that is
 * set up (or that holds platform configuration or a project file).
 */
export function configured(s: Settings): boolean {
  return Boolean(
    s.configRoot || s.properties.length > 0 || s.serviceXml || s.handlerXml || s.platformConfig ||
      Object.keys(s.environments).length > 0 || s.include.length > 0 || s.serverArgs.length > 0,
  );
}

/**
 * CONFIG_PATTERNS are the service configuration files restls serves too
 * (references, rename, code lens, service-unused), and the project file
 * restls.yaml (its problems as it is typed): by name, whatever language
 * another extension gives them, so that a YAML or XML tool keeps every
 * other file and keeps these as well (both servers get them).
 */
export const CONFIG_PATTERNS = ['**/application.{yml,yaml,properties}', '**/script-*-api.xml', '**/restls.yaml'] as const;

/**
 * SKIP_BEFORE_SERVER is the server's skip glob (lsp.Files' skip, Go's
 * input.SkipDirGlob: hidden directories and node_modules, which no
 * project walk of restls enters) for the one search that runs before any
 * server answers: the search for a service configuration or restls.yaml
 * that decides whether to start a server at all. It cannot ask the server
 * (there is none yet, and asking the binary would spawn one for every
 * JavaScript workspace), so it is a copy; Go's input package's
 * TestExtensionSkipGlob fails when it differs from Go's. Everything else
 * uses the running server's skip.
 */
export const SKIP_BEFORE_SERVER = '**/{.*,node_modules}/**';

/** configDocumentSelector selects the service configuration files on disk. */
export function configDocumentSelector(): { scheme: string; pattern: string }[] {
  return CONFIG_PATTERNS.map((pattern) => ({ scheme: 'file', pattern }));
}

/** readsInput tells whether a script reads context.input, so a dry run needs an input file. */
export function readsInput(text: string): boolean {
  return /\bcontext\s*(?:\.\s*input\b|\[\s*(['"])input\1\s*\])/.test(text);
}
