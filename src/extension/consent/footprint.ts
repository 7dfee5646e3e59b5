// The footprint a script states about itself in its header ("-- Footprint: 10,000 rows; about 40 MB of log per run;
// about 5 s per run on a real server …", as every shipped sample does, issue 28), for the consent view: the user sees
// what the file says it will do before confirming. It is the file's own claim, shown as such — bounded, one line,
// control characters removed — and never sent to a server.
import { l10n } from '../l10n';

const MAX_LINES = 3;
const MAX_CHARS = 400;

/**
 * The header's "Footprint:" statement: from the line `-- Footprint:` to the first line ending with a full stop (at most
 * three lines), looked for only in the comment block that opens the file. Null when there is none.
 */
export function statedFootprint(fileText: string): string | null {
  const lines = fileText.replace(/^\uFEFF/, '').split(/\r\n|\n|\r/);
  const header: string[] = [];
  for (const line of lines) {
    const t = line.trim();
    if (t === '') continue;
    if (!t.startsWith('--')) break;
    header.push(t.replace(/^--+\s?/, ''));
  }
  const at = header.findIndex((l) => /^Footprint:/i.test(l));
  if (at < 0) return null;
  const parts: string[] = [];
  for (const line of header.slice(at, at + MAX_LINES)) {
    parts.push(line.trim());
    if (/\.\s*$/.test(line)) break;
  }
  // eslint-disable-next-line no-control-regex
  const text = parts.join(' ').replace(/[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069]/g, '').replace(/\s+/g, ' ').trim();
  return text.length > MAX_CHARS ? `${text.slice(0, MAX_CHARS - 1)}…` : text;
}

/** The consent note for it ("The file's header says: Footprint: …"), or none. */
export function footprintNotes(fileText: string): string[] {
  const stated = statedFootprint(fileText);
  return stated === null ? [] : [l10n.t("The file's header says what it does — {0} (the file's own statement, not checked).", stated)];
}
