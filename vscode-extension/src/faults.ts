// Fault exploration in VS Code (issue 36): the palette command "restls:
// Explore Faults of This Script" asks the server's restls.exploreFaults
// and shows its table; the "Faults" CodeLenses above each call, the
// warnings and their "Add a test case" quick fixes are the server's and
// come through the language client as they are.

import type { FaultsResult, Tolerant } from '../../web/designer/src/wire.gen';

/** EXPLORE_FAULTS is the palette command; SERVER_EXPLORE_FAULTS the server's command (also the lenses'). */
export const EXPLORE_FAULTS = 'restls.exploreFaultsOfScript';
export const SERVER_EXPLORE_FAULTS = 'restls.exploreFaults';

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

/**
 * faultsTable is an exploration as restls faults prints it (its first
 * line, then per call site the line, call, and each outcome's verdict and
 * what happened), read tolerantly: junk gives an empty table, never a
 * throw. undefined when the answer is no exploration at all.
 */
export function faultsTable(answer: unknown): { summary: string; text: string; failing: number } | undefined {
  if (!answer || typeof answer !== 'object' || Array.isArray(answer)) {
    return undefined;
  }
  const r = answer as Tolerant<FaultsResult>;
  const script = str(r.script);
  const summary = str(r.summary);
  const lines = [summary];
  for (const s of Array.isArray(r.sites) ? r.sites : []) {
    if (!s || typeof s !== 'object') {
      continue;
    }
    const op = str(s.operation) ? ` (${str(s.operation)})` : '';
    lines.push('', `${script}:${typeof s.line === 'number' ? s.line : '?'} ${str(s.method)} ${str(s.serviceId)} path ${JSON.stringify(str(s.path))}${op}`);
    for (const f of Array.isArray(s.findings) ? s.findings : []) {
      if (f && typeof f === 'object') {
        lines.push(`  ${f.fails === true ? 'FAIL' : '    '} ${str(f.outcome).padEnd(18)} ${str(f.verdict).padEnd(10)} ${str(f.detail)}`);
      }
    }
  }
  for (const n of Array.isArray(r.notes) ? r.notes : []) {
    lines.push('', `note: ${str(n)}`);
  }
  return { summary, text: lines.join('\n') + '\n', failing: typeof r.failing === 'number' ? r.failing : 0 };
}
