// Reading what the server sends: the restls.services map, the restls/status
// notification and the custom requests' answers. The shapes themselves are
// generated from the Go types that write them (web/designer/src/wire.gen.d.ts,
// shared with the designer; regenerate with
// `go test ./web -run TestWireTypesUpToDate -update`), never written here.
// Parsing is tolerant: a missing or oddly typed field degrades the display,
// it never throws.

import type { CompareResult, DocumentInfo, Files, KindSource, RunError, ScriptKind, Status, Tolerant } from '../../web/designer/src/wire.gen';

export type { CommandParams, CommandResults, Status, CompareResult, DocumentInfo, Experimental, FaultsResult, Files, KindDecision, RunResult, UpdateFixturesResult } from '../../web/designer/src/wire.gen';

/** Service is one entry of the services map. */
export interface Service {
  url?: string;
  description?: string;
}

/** KindSummary is what the status bar shows of one script kind's registry (from Go's lsp.KindStatus). */
export interface KindSummary {
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

function text(v: unknown): string | undefined {
  return typeof v === 'string' ? v.trim() || undefined : undefined;
}

/**
 * parseStatus reads a restls/status notification (Go's lsp.Status, the
 * generated Status) into one entry per kind. It reads only that shape, as
 * untrusted JSON: an entry without a kind name is skipped, junk gives no
 * entries; it never throws.
 */
export function parseStatus(params: unknown): Map<string, KindSummary> {
  const out = new Map<string, KindSummary>();
  const p = (params && typeof params === 'object' && !Array.isArray(params) ? params : {}) as Tolerant<Status>;
  for (const e of Array.isArray(p.kinds) ? p.kinds : []) {
    if (!e || typeof e !== 'object' || typeof e.kind !== 'string' || !e.kind) {
      continue;
    }
    const count = num(e.services);
    const message = text(e.message);
    // hints false: the registry could not be used, and message says why.
    const reason = e.hints === false || count === 0 ? message?.replace(/^no serviceId hints:\s*/i, '') : undefined;
    out.set(e.kind, { kind: e.kind, count: e.hints === false ? 0 : count, reason, message });
  }
  return out;
}

/**
 * environmentsFrom reads the environments of a restls/status: the ones
 * the server offers and the one in force (undefined: none). The server
 * lists and decides them; this only reads the answer.
 */
export function environmentsFrom(params: unknown): { environments: string[]; environment: string | undefined } {
  const p = (params && typeof params === 'object' && !Array.isArray(params) ? params : {}) as Tolerant<Status>;
  const environments = Array.isArray(p.environments) ? p.environments.filter((e): e is string => typeof e === 'string' && e !== '') : [];
  return { environments, environment: typeof p.environment === 'string' && p.environment !== '' ? p.environment : undefined };
}

/**
 * filesFrom reads the server's globs of scripts and test files (Go's
 * lsp.Files: the initialize result's capabilities.experimental.restls,
 * and every restls/status); undefined when v names no globs of scripts
 * (a server older than them).
 */
export function filesFrom(v: unknown): Files | undefined {
  const p = (v && typeof v === 'object' && !Array.isArray(v) ? v : {}) as Tolerant<Files>;
  if (!Array.isArray(p.scripts)) {
    return undefined;
  }
  return {
    scripts: p.scripts.filter((g): g is string => typeof g === 'string' && g !== ''),
    testFiles: typeof p.testFiles === 'string' ? p.testFiles : '',
    skip: typeof p.skip === 'string' ? p.skip : '',
  };
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
export function statusCode(s: RunError['status'] | number | null): { code?: number; message?: string } {
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
    kind: { kind: k.kind as ScriptKind, source: (typeof k.source === 'string' ? k.source : '') as KindSource, ...(typeof k.glob === 'string' && k.glob ? { glob: k.glob } : {}) },
    fixtures,
    mockFile: typeof o.mockFile === 'string' ? o.mockFile : '',
    // A server that does not say is older than the field: the document it
    // was sent was selected as a script.
    script: typeof o.script === 'boolean' ? o.script : true,
    displayPath: typeof o.displayPath === 'string' ? o.displayPath : '',
  };
}

/** compareAnswerFrom reads a compare command's answer; undefined for a shape it does not know. */
export function compareAnswerFrom(v: unknown): CompareResult | undefined {
  if (!v || typeof v !== 'object') {
    return undefined;
  }
  const o = v as Record<string, unknown>;
  const d = o.diff as Record<string, unknown> | undefined;
  if (!d || typeof d !== 'object' || typeof d.same !== 'boolean' || typeof o.text !== 'string') {
    return undefined;
  }
  return v as CompareResult;
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
