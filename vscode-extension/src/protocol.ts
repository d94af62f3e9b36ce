// Shapes the server sends: the `restls run --json` object returned by the
// restls.runScript command, the restls.services map and the restls/status
// notification. Parsing is tolerant: a missing or oddly typed field degrades
// the display, it never throws.

/** RunError is the script's uncaught error. */
export interface RunError {
  name?: string;
  message?: string;
  code?: string;
  serviceId?: string;
  status?: number | { code?: number; message?: string };
  body?: unknown;
  line?: number;
  column?: number;
}

/** Call is one REST call the script made during the dry run (runtime/restclient.Call). */
export interface Call {
  serviceId?: string;
  method?: string;
  url?: string;
  requestHeaders?: Record<string, unknown>;
  requestBody?: unknown;
  status?: number | { code?: number; message?: string } | null;
  responseHeaders?: Record<string, unknown>;
  /** responseBody is the JSON body, or a string holding non-JSON text. */
  responseBody?: unknown;
  responseBodyTruncated?: boolean;
  /** body is accepted as an older name of responseBody. */
  body?: unknown;
  durationMs?: number;
  errorCode?: string;
  errorMessage?: string;
  error?: unknown;
  /** curl is a POSIX shell command line that repeats the request, credentials as $RESTLS_TOKEN_... variables. */
  curl?: string;
  /** events are token requests, retries, mock notes and the like. */
  events?: { kind?: string; message?: string }[] | null;
  /** contract lists how the answer breaks the service's API description (restclient.ContractNote). */
  contract?: { operation?: string; path?: string; rule?: string; message?: string }[] | null;
  [key: string]: unknown;
}

/** RunResult is the `restls run --json` object. */
export interface RunResult {
  result?: unknown;
  error?: RunError | null;
  calls?: Call[];
  logs?: unknown[];
  /** mode is how the calls were answered: live, mock or record (restls serve's dry runs). */
  mode?: string;
}

/** Service is one entry of the services map. */
export interface Service {
  url?: string;
  description?: string;
}

/** KindStatus is the state of one script kind's registry. */
export interface KindStatus {
  kind: string;
  /** count is the number of usable serviceIds; undefined when unknown. */
  count: number | undefined;
  /** reason is why there are no serviceId hints; undefined when there are. */
  reason: string | undefined;
  /** message is the server's one-line summary, for the tooltip. */
  message: string | undefined;
}

function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

function countOf(v: unknown): number | undefined {
  if (typeof v === 'number') {
    return num(v);
  }
  if (Array.isArray(v)) {
    return v.length;
  }
  if (v && typeof v === 'object') {
    return Object.keys(v).length;
  }
  return undefined;
}

function text(v: unknown): string | undefined {
  if (typeof v === 'string') {
    return v.trim() || undefined;
  }
  if (v && typeof v === 'object' && typeof (v as { message?: unknown }).message === 'string') {
    return (v as { message: string }).message;
  }
  return undefined;
}

function kindEntry(kind: string, v: unknown): KindStatus {
  if (typeof v === 'number') {
    return { kind, count: v, reason: undefined, message: undefined };
  }
  const o = (v && typeof v === 'object' ? v : {}) as Record<string, unknown>;
  const count = countOf(o.services ?? o.count ?? o.ids);
  const message = text(o.message);
  let reason = text(o.reason) ?? text(o.error) ?? text(o.why);
  // restls serve: {kind, services, hints, message}; hints false means the
  // registry could not be used, and message says why.
  if (o.hints === false || count === 0) {
    reason = reason ?? (message ? message.replace(/^no serviceId hints:\s*/i, '') : undefined);
  }
  return { kind: typeof o.kind === 'string' ? o.kind : kind, count: o.hints === false ? 0 : count, reason, message };
}

/**
 * parseStatus reads a restls/status notification into one entry per kind.
 * restls serve sends {kinds: [{kind, services, hints, message}], sources,
 * problems}; also accepted: {kinds: {K: entry}}, {K: entry}, [entry], or
 * one entry with a kind field.
 */
export function parseStatus(params: unknown): Map<string, KindStatus> {
  const out = new Map<string, KindStatus>();
  const add = (k: string, v: unknown) => {
    const e = kindEntry(k, v);
    out.set(e.kind, e);
  };
  let p = params;
  if (p && typeof p === 'object' && !Array.isArray(p) && 'kinds' in (p as object)) {
    p = (p as { kinds: unknown }).kinds;
  }
  if (Array.isArray(p)) {
    for (const e of p) {
      if (e && typeof e === 'object' && typeof (e as { kind?: unknown }).kind === 'string') {
        add((e as { kind: string }).kind, e);
      }
    }
    return out;
  }
  if (p && typeof p === 'object') {
    const o = p as Record<string, unknown>;
    if (typeof o.kind === 'string') {
      add(o.kind, o);
      return out;
    }
    for (const [k, v] of Object.entries(o)) {
      if (k !== 'sources' && k !== 'problems' && v !== null && (typeof v === 'object' || typeof v === 'number')) {
        add(k, v);
      }
    }
  }
  return out;
}

function isServiceMap(v: unknown): v is Record<string, Service> {
  if (!v || typeof v !== 'object' || Array.isArray(v)) {
    return false;
  }
  const vals = Object.values(v as object);
  return vals.every((s) => s && typeof s === 'object' && ('url' in s || 'description' in s));
}

/**
 * servicesFor picks one kind's services from a restls.services answer,
 * which is either {kind: {serviceId: service}} or the map of one kind.
 */
export function servicesFor(answer: unknown, kind: string): Record<string, Service> {
  if (!answer || typeof answer !== 'object') {
    return {};
  }
  const o = answer as Record<string, unknown>;
  if (kind in o && isServiceMap(o[kind]) && !('url' in (o[kind] as object))) {
    return o[kind] as Record<string, Service>;
  }
  if ('services' in o && isServiceMap(o.services)) {
    return o.services as Record<string, Service>;
  }
  if (isServiceMap(o)) {
    return o;
  }
  return {};
}

/** statusCode reads a call's or error's HTTP status, a number or {code, message}. */
export function statusCode(s: RunError['status'] | null): { code?: number; message?: string } {
  if (typeof s === 'number') {
    return { code: s };
  }
  if (s && typeof s === 'object') {
    return { code: num(s.code), message: typeof s.message === 'string' ? s.message : undefined };
  }
  return {};
}

/** DOCUMENT_INFO is the server's request that says what it decided about one script (docs/lsp.md, "Request restls/documentInfo"). */
export const DOCUMENT_INFO = 'restls/documentInfo';

/** KindDecision is a script's kind and which rule decided it: the first-line directive, a restls.scriptKinds glob (kindMap, with the glob) or the default. */
export interface KindDecision {
  kind: string;
  source: string;
  glob?: string;
}

/** DocumentInfo is the answer of restls/documentInfo: the server decides, the extension shows. */
export interface DocumentInfo {
  kind: KindDecision;
  /** fixtures are the fixture files beside the script, in the order a dry run with mock "auto" looks for them; empty for a document that is not a file. */
  fixtures: string[];
  /** mockFile is the fixture file a dry run with mocks reads, "" when there is none. */
  mockFile: string;
  displayPath: string;
}

/** documentInfoFrom reads a restls/documentInfo answer; undefined for null or a shape it does not know. */
export function documentInfoFrom(v: unknown): DocumentInfo | undefined {
  if (!v || typeof v !== 'object') {
    return undefined;
  }
  const o = v as Record<string, unknown>;
  const k = o.kind as Record<string, unknown> | undefined;
  if (!k || typeof k !== 'object' || typeof k.kind !== 'string' || !k.kind) {
    return undefined;
  }
  const fixtures = Array.isArray(o.fixtures) ? o.fixtures.filter((f): f is string => typeof f === 'string' && f !== '') : [];
  return {
    kind: { kind: k.kind, source: typeof k.source === 'string' ? k.source : '', ...(typeof k.glob === 'string' && k.glob ? { glob: k.glob } : {}) },
    fixtures,
    mockFile: typeof o.mockFile === 'string' ? o.mockFile : '',
    displayPath: typeof o.displayPath === 'string' ? o.displayPath : '',
  };
}

/** CompareAnswer is what restls.compareWithPrevious and restls.compareWithFixtures answer (docs/lsp.md, "Run history"): the typed diff and its text as the server renders it. */
export interface CompareAnswer {
  old: { time?: string; mode?: string; fixtures?: string; trimmed?: boolean };
  new: { time?: string; mode?: string; trimmed?: boolean };
  diff: { same: boolean; calls: unknown[]; result: unknown[]; oldCalls: number; newCalls: number };
  text: string;
}

/** compareAnswerFrom reads a compare command's answer; undefined for a shape it does not know. */
export function compareAnswerFrom(v: unknown): CompareAnswer | undefined {
  if (!v || typeof v !== 'object') {
    return undefined;
  }
  const o = v as Record<string, unknown>;
  const d = o.diff as Record<string, unknown> | undefined;
  if (!d || typeof d !== 'object' || typeof d.same !== 'boolean' || typeof o.text !== 'string') {
    return undefined;
  }
  return v as CompareAnswer;
}

/** UpdateFixturesAnswer is what restls.updateFixtures answers: the file written and how many answers went into it. */
export interface UpdateFixturesAnswer {
  file: string;
  calls: number;
  skipped: number;
}

/**
 * PasteCurlAnswer is what restls.pasteCurl answers (docs/lsp.md, "Paste
 * curl"): the text to insert at the position asked (the call, with the
 * notes as `// restls:` comment lines above it), the serviceId matched
 * and the notes.
 */
export interface PasteCurlAnswer {
  text: string;
  serviceId: string;
  notes: string[];
}

/** pasteCurlAnswerFrom reads restls.pasteCurl's answer; undefined for a shape it does not know. */
export function pasteCurlAnswerFrom(v: unknown): PasteCurlAnswer | undefined {
  if (!v || typeof v !== 'object') {
    return undefined;
  }
  const o = v as { edit?: { changes?: Record<string, { newText?: unknown }[]> }; serviceId?: unknown; notes?: unknown };
  const changes = o.edit?.changes;
  const edits = changes && typeof changes === 'object' ? Object.entries(changes) : [];
  // One edit, for the document asked about (the server canonicalises the URI).
  if (edits.length !== 1 || !Array.isArray(edits[0][1]) || edits[0][1].length !== 1 || typeof edits[0][1][0]?.newText !== 'string') {
    return undefined;
  }
  if (typeof o.serviceId !== 'string' || !Array.isArray(o.notes) || !o.notes.every((n) => typeof n === 'string')) {
    return undefined;
  }
  return { text: edits[0][1][0].newText as string, serviceId: o.serviceId, notes: o.notes as string[] };
}
