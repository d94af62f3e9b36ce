// Settings: reading restls.* into plain values, resolving paths the way a
// user expects (relative to the workspace folder, ~ and ${workspaceFolder}
// expanded), and deciding whether a change needs a server restart or only a
// reconfiguration. Pure functions over a small interface so tests need no
// vscode.

import * as os from 'os';
import * as path from 'path';

/** SECTION is the settings section, also the workspace/configuration section the server asks for. */
export const SECTION = 'restls';

/** DEFAULT_INCLUDE mirrors the default of restls.include in package.json. */
export const DEFAULT_INCLUDE: readonly string[] = [
  '**/script-code/**/*.js',
  '**/script-handler/**/*.js',
  '**/scripts/**/*.js',
  '**/*.script.js',
];

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
  include: string[];
  logLevel: string;
  traceServer: string;
  /** serverArgs are added to `restls serve`'s arguments. */
  serverArgs: string[];
  /** serverEnv are added to the server process's environment. */
  serverEnv: Record<string, string>;
  /** environments are named sets of configuration sources (restls.environments). */
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
  /** environment names one of the project file's environments (restls.yaml), which the server reads; sent only when one is picked. */
  environment?: string;
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
  const include = strList(cfg.get('include'), DEFAULT_INCLUDE);
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
    include: include.length > 0 ? include : [...DEFAULT_INCLUDE],
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
 * activeSources are the sources in use: the environment named active when
 * restls.environments has it (as a whole: a field it does not set is
 * unset, never taken from the plain settings), else the plain settings.
 */
export function activeSources(s: Settings, active: string | undefined): { name: string | undefined; sources: Sources } {
  if (active !== undefined && Object.prototype.hasOwnProperty.call(s.environments, active)) {
    return { name: active, sources: s.environments[active] };
  }
  return { name: undefined, sources: { configRoot: s.configRoot, properties: s.properties, serviceXml: s.serviceXml, handlerXml: s.handlerXml, platformConfig: s.platformConfig } };
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
 * environment is a restls.environments name, or else one of the project
 * file's environments, which the server resolves.
 */
export function serverConfig(s: Settings, workspaceFolder: string | undefined, environment?: string, serverDir?: string): ServerConfig {
  const r = (p: string) => resolvePath(p, workspaceFolder);
  const src = activeSources(s, environment).sources;
  let configRoot = r(src.configRoot);
  const anyFile = src.properties.length > 0 || src.serviceXml || src.handlerXml || src.platformConfig;
  if (!configRoot && !anyFile && workspaceFolder && workspaceFolder !== serverDir) {
    configRoot = workspaceFolder;
  }
  const out: ServerConfig = {
    configRoot,
    properties: src.properties.map(r),
    serviceXml: r(src.serviceXml),
    handlerXml: r(src.handlerXml),
    platformConfig: r(src.platformConfig),
    scriptKinds: { ...s.scriptKinds },
  };
  if (!s.inlayHints) {
    out.inlayHints = false;
  }
  if (environment !== undefined && !Object.prototype.hasOwnProperty.call(s.environments, environment)) {
    out.environment = environment;
  }
  if (s.openapi !== undefined) {
    out.openapi = Array.isArray(s.openapi) ? [...s.openapi] : { ...s.openapi };
  }
  return out;
}

/** Change says what a settings change needs. */
export type Change = 'none' | 'reconfigure' | 'restart';

/**
 * classifyChange compares two settings. The binary, its log level and the
 * document selector (include) are fixed when the server starts, so they need
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

/** documentSelector builds the selector from restls.include: only matching JavaScript files on disk, never every JavaScript file. */
export function documentSelector(include: readonly string[]): { scheme: string; language: string; pattern: string }[] {
  return include.map((pattern) => ({ scheme: 'file', language: 'javascript', pattern }));
}

/**
 * CONFIG_PATTERNS are the service configuration files restls serves too
 * (references, rename, code lens, service-unused), and the project file
 * restls.yaml (its problems as it is typed): by name, whatever language
 * another extension gives them, so that a YAML or XML tool keeps every
 * other file and keeps these as well (both servers get them).
 */
export const CONFIG_PATTERNS = ['**/application.{yml,yaml,properties}', '**/script-*-api.xml', '**/restls.yaml'] as const;

/** configDocumentSelector selects the service configuration files on disk. */
export function configDocumentSelector(): { scheme: string; pattern: string }[] {
  return CONFIG_PATTERNS.map((pattern) => ({ scheme: 'file', pattern }));
}

/** readsInput tells whether a script reads context.input, so a dry run needs an input file. */
export function readsInput(text: string): boolean {
  return /\bcontext\s*(?:\.\s*input\b|\[\s*(['"])input\1\s*\])/.test(text);
}
