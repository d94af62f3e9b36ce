// The Services view's data: restls.serviceTree's answer read tolerantly
// and turned into plain nodes (kinds -> serviceIds, configuration files ->
// problems). Pure functions so tests need no vscode; servicesView.ts turns
// the nodes into tree items.

import * as path from 'path';

/** Range is an LSP range (0-based line, UTF-16 character). */
export interface Range {
  start: { line: number; character: number };
  end: { line: number; character: number };
}

/** Location is where a node's definition is: a file URI and maybe a range. */
export interface Location {
  uri: string;
  range?: Range;
}

/** Node is one row of the Services view. */
export interface Node {
  id: string;
  kind: 'kind' | 'service' | 'files' | 'file' | 'problem' | 'message';
  label: string;
  description?: string;
  tooltip?: string;
  /** icon is a codicon id. */
  icon?: string;
  /** location is what a click reveals. */
  location?: Location;
  /** resourceUri gives a file its file icon. */
  resourceUri?: string;
  children?: Node[];
}

const KIND_LABEL: Record<string, string> = {
  scriptService: 'Scripts (scriptService)',
  scriptTask: 'Script handlers (scriptTask)',
  validationScript: 'Script validators (validationScript)',
};

const AUTH_LABEL: Record<string, string> = {
  none: 'no authorization',
  basic: 'basic authorization',
  oAuth: 'OAuth',
};

function obj(v: unknown): Record<string, unknown> {
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

function arr(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function range(v: unknown): Range | undefined {
  const r = obj(v);
  const s = obj(r.start);
  const e = obj(r.end);
  const n = (x: unknown) => (typeof x === 'number' && Number.isFinite(x) && x >= 0 ? x : undefined);
  const sl = n(s.line);
  const sc = n(s.character);
  if (sl === undefined || sc === undefined) {
    return undefined;
  }
  return { start: { line: sl, character: sc }, end: { line: n(e.line) ?? sl, character: n(e.character) ?? sc } };
}

function severityIcon(sev: string): string {
  return sev === 'error' ? 'error' : sev === 'warning' ? 'warning' : 'info';
}

function problemNode(id: string, p: Record<string, unknown>, uri: string): Node {
  const r = range(p.range);
  const sev = str(p.severity) || 'info';
  const code = str(p.code);
  const message = str(p.message) || code || 'problem';
  return {
    id,
    kind: 'problem',
    label: message,
    description: [r ? `line ${r.start.line + 1}` : '', code].filter(Boolean).join(' · ') || undefined,
    tooltip: `${sev}${code ? ` (${code})` : ''}: ${message}`,
    icon: severityIcon(sev),
    location: uri ? { uri, range: r } : undefined,
  };
}

/**
 * treeNodes turns a restls.serviceTree answer into the view's roots: one
 * node per script kind holding its serviceIds (url as description;
 * description and kind of authorization in the tooltip, never a
 * credential), then "Configuration files" with each file read and its
 * problems. A missing or oddly typed field leaves a row out; it never
 * throws.
 */
export function treeNodes(answer: unknown): Node[] {
  const a = obj(answer);
  const roots: Node[] = [];
  for (const k of arr(a.kinds)) {
    const o = obj(k);
    const kind = str(o.kind);
    if (!kind) {
      continue;
    }
    const services: Node[] = [];
    for (const sv of arr(o.services)) {
      const s = obj(sv);
      const id = str(s.serviceId);
      if (!id) {
        continue;
      }
      const auth = str(s.auth) || 'none';
      const authText = auth === 'oAuth' && str(s.oAuthId) ? `OAuth (${str(s.oAuthId)})` : (AUTH_LABEL[auth] ?? auth);
      const def = obj(s.defined);
      const r = range(def.range);
      const where = str(def.file) ? `${str(def.file)}${r ? `:${r.start.line + 1}` : ''}` : '';
      services.push({
        id: `${kind}/${id}`,
        kind: 'service',
        label: id,
        description: str(s.url),
        tooltip: [`${id}: ${str(s.url)}`, str(s.description), authText, where ? `Defined in ${where}` : ''].filter(Boolean).join('\n'),
        icon: auth === 'none' ? 'globe' : 'lock',
        location: str(def.uri) ? { uri: str(def.uri), range: r } : undefined,
      });
    }
    const message = str(o.message);
    roots.push({
      id: kind,
      kind: 'kind',
      label: KIND_LABEL[kind] ?? kind,
      description: message || `${services.length} services`,
      tooltip: o.hints === false ? `No serviceId hints for ${kind}: ${message}` : `${kind}: ${message || services.length + ' services'}`,
      icon: o.hints === false ? 'warning' : 'symbol-namespace',
      children: services.length > 0 ? services : [{ id: `${kind}/-`, kind: 'message', label: o.hints === false ? message || 'no serviceId hints' : 'no services', icon: 'info' }],
    });
  }
  const files: Node[] = [];
  for (const f of arr(a.files)) {
    const o = obj(f);
    const file = str(o.file);
    if (!file) {
      continue;
    }
    const uri = str(o.uri);
    const problems = arr(o.problems).map((p, i) => problemNode(`file:${file}/${i}`, obj(p), uri));
    const errors = problems.filter((p) => p.icon === 'error').length;
    files.push({
      id: `file:${file}`,
      kind: 'file',
      label: path.basename(file.replace(/\\/g, '/')),
      description: problems.length === 0 ? 'no problems' : `${problems.length} problem${problems.length === 1 ? '' : 's'}${errors ? `, ${errors} error${errors === 1 ? '' : 's'}` : ''}`,
      tooltip: file,
      resourceUri: uri || undefined,
      location: uri ? { uri } : undefined,
      children: problems.length > 0 ? problems : undefined,
    });
  }
  const other = arr(a.other).map((p, i) => problemNode(`other/${i}`, obj(p), ''));
  if (files.length > 0 || other.length > 0) {
    const n = files.reduce((acc, f) => acc + (f.children?.length ?? 0), 0) + other.length;
    roots.push({
      id: 'files',
      kind: 'files',
      label: 'Configuration files',
      description: n === 0 ? 'no problems' : `${n} problem${n === 1 ? '' : 's'}`,
      icon: n === 0 ? 'pass' : 'warning',
      children: [...other, ...files],
    });
  }
  return roots;
}
