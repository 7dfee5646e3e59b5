// What the consent view shows and what a confirmation covers: the parts a run sends (setup, measured, a deploy, a
// procedure call with the definition it runs), each with its exact text and document lines, what in it changes data
// or schema, and the keys the store remembers. vscode-free, unit-tested; consentGate.ts puts it on screen.
import { splitSetup, SetupMarkerError } from '../../profile/setupMarkers';
import { withSessionParam } from '../../profile/sessionParam';
import { sessionParamText, sessionVariableOf, sweepPart } from './sessionPlan';
import type { WorkloadBatch } from '../../db/types';
import { changesText, classifyBatch, type ChangingStatement } from '../../tsql';
import { consentKey } from './consentStore';
import type { ConsentPart } from './consentPart';
import { l10n } from '../l10n';
import { oneLineField } from '../../shared/visibleText';

export type { ConsentKeyKind, ConsentPart } from './consentPart';

export interface ConsentRequest {
  /** "Profile batch 3 (lines 18–25)", what the user asked for. */
  action: string;
  file: { uri: string; name: string; text: string };
  connection: { profileName: string; server: string; database: string };
  parts: ConsentPart[];
  /** The modal's button: "Run", "Deploy and Run". */
  confirmLabel: string;
  /** Said before the text ("The selection runs as an ad-hoc batch outside procedure dbo.p: …"). */
  notes: string[];
}

/** The start of every consent modal's message (tests and the fake vscode find it by this). */
export const CONSENT_MESSAGE_PREFIX = 'Durability Lens: confirm what runs —';

/** The modal holds at most this much text; beyond it, the whole text opens in a read-only tab beside. */
export const MODAL_MAX_LINES = 120;
export const MODAL_MAX_CHARS = 12_000;

/**
 * The parts of a profile or comparison, as the profile layer will send them: the script's setup (markers, the same
 * split profileRun/runComparison make) then the measured batches; empty batches are never sent, so not shown.
 */
export function partsOfWorkload(batches: readonly (WorkloadBatch & { empty?: boolean })[], mode: 'profile' | 'compare', sessions?: readonly number[] | undefined): ConsentPart[] {
  const usable = batches.filter((b) => !b.empty);
  let split: { setup: WorkloadBatch[]; measured: WorkloadBatch[] };
  let markerProblem: string | null = null;
  try {
    split = splitSetup(usable);
  } catch (err) {
    if (!(err instanceof SetupMarkerError)) throw err;
    split = { setup: [], measured: [...usable] };
    markerProblem = err.message;
  }
  const setupHeading = mode === 'compare' ? l10n.t('Setup — runs unmeasured before every run of the comparison') : l10n.t('Setup — runs first, unmeasured');
  const measuredHeading = markerProblem
    ? l10n.t('Batches (the setup markers do not pair up — {0} — so the run stops before sending anything)', markerProblem)
    : mode === 'compare' ? l10n.t('Measured — runs in every run of the comparison (each mode, warm-up included)') : l10n.t('Measured');
  const part = (b: WorkloadBatch, heading: string): ConsentPart => {
    const kind = classifyBatch(b.text, b.firstLine);
    return { heading, text: b.text, firstLine: b.firstLine, repeat: b.repeat, changes: kind.changes, key: 'run' };
  };
  // The measured batches that use the session variable are sent with it as a parameter (profile/sessionParam.ts).
  const variable = markerProblem ? null : sessionVariableOf(usable);
  const withParameter = new Set(variable ? withSessionParam(split.measured, variable, 1).filter((b) => b.parameters?.length).map((b) => b.firstLine) : []);
  const measured = split.measured.map((b) => part(b, withParameter.has(b.firstLine) ? `${measuredHeading}, ${sessionParamText(variable!, sessions)}` : measuredHeading));
  const sweep = mode === 'compare' ? sweepPart(measured, variable, sessions) : null;
  return [...split.setup.map((b) => part(b, setupHeading)), ...measured, ...(sweep ? [sweep] : [])];
}

/** True when something in the request changes data or schema (or might: unknown counts as a change). */
export function needsConsent(request: Pick<ConsentRequest, 'parts'>): boolean {
  return request.parts.some((p) => p.changes === null || p.changes.length > 0);
}

export function connectionText(c: ConsentRequest['connection']): string {
  return l10n.t('database {0} on {1} ("{2}")', oneLineField(c.database), oneLineField(c.server), oneLineField(c.profileName));
}

/** The keys a confirmation of this request remembers (and a later run must find, all of them). */
export function consentKeys(request: Pick<ConsentRequest, 'parts' | 'connection'>): string[] {
  const connection = JSON.stringify([request.connection.profileName, request.connection.server, request.connection.database]);
  return request.parts.filter((p) => p.key !== null).map((p) => consentKey({ connection, kind: p.key!, text: p.text, repeat: p.repeat }));
}

/** Every change of the request, in document order (the modal's summary line). */
export function allChanges(request: Pick<ConsentRequest, 'parts'>): ChangingStatement[] {
  return request.parts.flatMap((p) => (p.ownLines ? [] : p.changes ?? [])).sort((a, b) => a.line - b.line);
}

/** The modal's message: short (the dialog shows it in bold above the text); the detail says what and where in full. */
export function consentMessage(request: ConsentRequest): string {
  // The English text starts with CONSENT_MESSAGE_PREFIX (tests find the modal by it).
  return l10n.t('Durability Lens: confirm what runs — this changes data or schema on database {0}. Nothing has run yet.', oneLineField(request.connection.database));
}

function linesText(first: number, last: number): string {
  return first === last ? l10n.t('line {0}', first + 1) : l10n.t('lines {0}–{1}', first + 1, last + 1);
}

/** "   7 │ text" for each line; runs of blank lines shown once (their numbers still say where the text is). */
function numbered(text: string, firstLine: number | null): string[] {
  const lines = text.split(/\r\n|\n|\r/);
  while (lines.length > 1 && lines[lines.length - 1]!.trim() === '') lines.pop();
  const width = String((firstLine ?? 0) + lines.length).length;
  const out: string[] = [];
  let blank = false;
  lines.forEach((line, i) => {
    const isBlank = line.trim() === '';
    if (isBlank && blank) return;
    blank = isBlank;
    const number = firstLine === null ? ''.padStart(width) : String(firstLine + i + 1).padStart(width);
    out.push(`${number} │ ${line}`);
  });
  return out;
}

function partHeading(p: ConsentPart): string {
  const lineCount = p.text.split(/\r\n|\n|\r/).length;
  const where = p.firstLine === null ? l10n.t('not in the document') : linesText(p.firstLine, p.firstLine + lineCount - 1);
  const repeat = p.repeat > 1 ? `, ${l10n.t('GO {0}: sent {0} times', p.repeat)}` : '';
  const changes = p.summary !== undefined ? ` — ${p.summary}`
    : p.changes === null ? ` — ${l10n.t('may change data or schema: {0}', p.unknown ?? l10n.t('not known'))}`
    : p.changes.length > 0 ? ` — ${l10n.t('changes: {0}', changesText(p.changes))}` : ` — ${l10n.t('reads only')}`;
  return `${p.heading} (${where}${repeat})${changes}`;
}

/**
 * The whole consent text: who, where, what changes, then each part's heading and its exact text with document line
 * numbers. The modal shows it (up to MODAL_MAX_*), the read-only tab shows all of it.
 */
export function consentText(request: ConsentRequest): string {
  const changes = allChanges(request);
  const head = [
    l10n.t('{0}: Durability Lens will send the T-SQL below from {1} to {2}.', request.action, request.file.name, connectionText(request.connection)),
    changes.length === 0
      ? l10n.t('It may change data or schema: see below.')
      : request.parts.some((p) => p.ownLines || p.changes === null)
        ? l10n.t('It changes data or schema: {0}, and see below.', changesText(changes, 8))
        : l10n.t('It changes data or schema: {0}.', changesText(changes, 8)),
    ...request.notes,
    l10n.t('Confirming is remembered for this file in this workspace until the file changes.'),
  ];
  const body = request.parts.flatMap((p) => ['', `── ${partHeading(p)} ──`, ...numbered(p.text, p.firstLine)]);
  // Every line as it runs: a bidi override or a control in the T-SQL, a file or routine name would make the text read
  // otherwise than the server reads it (Trojan Source), so each shows as a visible escape (\u202e) on its own line.
  return [...head, ...body].map(oneLineField).join('\n');
}

/** The text for the modal: all of it when it fits, else its start and a pointer to the tab that holds the rest. */
export function modalText(whole: string, tabName: string): { text: string; truncated: boolean } {
  const lines = whole.split('\n');
  if (lines.length <= MODAL_MAX_LINES && whole.length <= MODAL_MAX_CHARS) return { text: whole, truncated: false };
  const kept: string[] = [];
  let chars = 0;
  for (const line of lines) {
    if (kept.length >= MODAL_MAX_LINES || chars + line.length + 1 > MODAL_MAX_CHARS) break;
    kept.push(line);
    chars += line.length + 1;
  }
  const rest = lines.length - kept.length;
  const more = rest === 1
    ? l10n.t('… 1 more line: the whole text is in the read-only tab "{0}". Choose "{1}" to read it there first.', tabName, l10n.t('Review in Editor'))
    : l10n.t('… {0} more lines: the whole text is in the read-only tab "{1}". Choose "{2}" to read it there first.', rest, tabName, l10n.t('Review in Editor'));
  return { text: `${kept.join('\n')}\n${more}`, truncated: true };
}
