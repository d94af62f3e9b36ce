// Dry-run modes and mock files: the restls.runScript arguments of each
// mode and the CodeLens titles above a script, from what the server says
// about the script (restls/documentInfo: its fixture files and the one
// that exists; the server names them, the extension never does). Pure
// functions so tests need no vscode.

import * as path from 'path';
import type { CommandParams, DocumentInfo } from './protocol';

/** DryRunMode is how a dry run answers its calls: live (the real services), mock (the fixture file beside the script), record (live, writing that file) or auto (mock when the file exists, else live). */
export type DryRunMode = 'auto' | 'live' | 'mock' | 'record';

/** DEFAULT_MODES are the values of restls.dryRun.mode, the mode of the editor-title button and the keybinding. */
export const DEFAULT_MODES: readonly DryRunMode[] = ['auto', 'live', 'mock'];

/** readDefaultMode reads restls.dryRun.mode; anything else is auto. */
export function readDefaultMode(v: unknown): DryRunMode {
  return typeof v === 'string' && (DEFAULT_MODES as readonly string[]).includes(v) ? (v as DryRunMode) : 'auto';
}

/**
 * RunArgs are restls.runScript's argument, as the server declares it (Go's
 * lsp.RunScriptArgs): mock is a fixture file path, "auto" or false (live);
 * record the fixture file path to write, or "auto".
 */
export type RunArgs = CommandParams['restls.runScript'];

/** MissingMocks is the answer of runArgsFor when mock mode has no file to read. */
export class MissingMocks extends Error {
  constructor(readonly script: string, fixtures: readonly string[]) {
    const names = fixtures.map((f) => path.basename(f));
    super(`there is no ${names.length > 0 ? names.join(' or ') : 'fixture file'} beside ${path.basename(script)}: record the mocks first ("Record mocks" above the script) or write the file by hand`);
  }
}

/**
 * runArgsFor builds restls.runScript's arguments for a run of the script
 * at uri in mode; info is the server's restls/documentInfo for it
 * (undefined when the server did not say). mock mode names the file the
 * server found, so a file deleted since is an error rather than a silent
 * live run; it throws MissingMocks when there is none.
 */
export function runArgsFor(uri: string, info: DocumentInfo | undefined, mode: DryRunMode): RunArgs {
  switch (mode) {
    case 'live':
      return { uri, mock: false };
    case 'mock': {
      if (!info?.mockFile) {
        throw new MissingMocks(info?.displayPath || uri, info?.fixtures ?? []);
      }
      return { uri, mock: info.mockFile };
    }
    case 'record':
      return { uri, record: 'auto' };
    default:
      return { uri, mock: 'auto' };
  }
}

/** Lens is one CodeLens above a script: its title and the mode it runs. */
export interface Lens {
  title: string;
  tooltip: string;
  mode: DryRunMode;
}

/** lensesFor are the CodeLenses above a script, from the server's restls/documentInfo: "Dry run with mocks" only when its fixture file exists, "Record mocks" only for a file. */
export function lensesFor(info: DocumentInfo | undefined): Lens[] {
  const lenses: Lens[] = [{ title: '$(play) Dry run', tooltip: 'Run the script against the configured services (restls: Dry-run Script, live)', mode: 'live' }];
  if (info?.mockFile) {
    lenses.push({ title: '$(beaker) Dry run with mocks', tooltip: `Run the script with the answers in ${path.basename(info.mockFile)}, offline`, mode: 'mock' });
  }
  const target = info?.mockFile || info?.fixtures?.[0];
  if (target) {
    lenses.push({ title: '$(record) Record mocks', tooltip: `Run the script against the configured services and write their answers to ${path.basename(target)}`, mode: 'record' });
  }
  return lenses;
}

/** modeLabel says in the Response Preview which mode ran, from the result's mode field and the fixture file the run used. */
export function modeLabel(mode: unknown, file: string | undefined): string | undefined {
  const name = file ? path.basename(file) : undefined;
  switch (mode) {
    case 'live':
      return 'live services';
    case 'mock':
      return name ? `mocks from ${name}` : 'mocks';
    case 'record':
      return name ? `live, recorded to ${name}` : 'live, recorded';
    default:
      return undefined;
  }
}

/**
 * progressMessage is what the dry-run notification adds to its title
 * ("restls: dry run of orders.js") from a $/progress report, or undefined
 * when the report only restates which script runs ("running
 * /path/to/orders.js", which restls serve sends first): the title says
 * that already, and the same words twice read like two indicators.
 */
export function progressMessage(message: string | undefined, script: string | undefined, uri: string): string | undefined {
  const m = message?.trim();
  if (!m) {
    return undefined;
  }
  const restated = /^running\s+(.+)$/i.exec(m);
  if (restated) {
    const what = restated[1].trim();
    const names = [uri, script, script ? path.basename(script) : undefined].filter((x): x is string => !!x);
    if (names.includes(what)) {
      return undefined;
    }
  }
  return m;
}
