// The findings of the held-out evaluation: the analyzer run over local checkouts of the repositories a manifest lists,
// each finding keyed by the text around it (normalised tokens), so a label survives line shifts, reformatting and
// copies of the same code in several files. Reads only local files; fetches nothing.

import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { decodeScript, NotTextError } from '../src/cli/textDecoding';
import { analyze } from '../src/tsql/analyze';
import { lex, TokenKind, type TokenStream } from '../src/tsql/lexer';
import { LineIndex } from '../src/tsql/lines';
import type { DiagnosticCode, DiagnosticSeverity } from '../src/tsql/types';
import type { Sampler, Split } from './eval-diagnostics-sample';

export interface ManifestRepository {
  /** `owner/name` on GitHub; checked out under `<root>/<owner>+<name>/`. */
  repository: string;
  commit: string;
  /** tuning or heldout: its role now; absent for the delayed-durability scripts, which are their own set. */
  split?: Split;
  /** The evaluation round that added it (1: the seeded split, 2: the fresh held-out set). */
  round?: number;
  /** The round whose held-out set it was (a spent held-out set is tuning data afterwards). */
  heldOutIn?: number;
  kind?: string;
  /** Globs (`**` `*` `?`, case-insensitive) or exact paths inside the repository. */
  paths: string[];
  /** Globs left out in this repository only (a vendored copy of another repository). */
  exclude?: string[];
}

export interface Manifest {
  /** Seed of round 1's split and of every sample. */
  seed: number;
  /** Each round's rule; `sampler` is the one its held-out set was measured with (absent: clusters). */
  rounds?: { round: number; sampler?: Sampler }[];
  /** Globs left out in every repository (folders of other SQL dialects). */
  exclude?: string[];
  repositories: ManifestRepository[];
  /** Scripts that use delayed durability, for the two codes about it (their own set, not split). */
  delayedDurability?: ManifestRepository[];
}

export interface Finding {
  repository: string;
  /** Inside the repository, with `/`. */
  path: string;
  /** 1-based. */
  line: number;
  column: number;
  code: DiagnosticCode;
  severity: DiagnosticSeverity;
  message: string;
  /** `code:hash` of the normalised tokens around the finding: the label key. */
  key: string;
  /**
   * What copies of the same finding share across files and versions (clustering merges findings with the same key or
   * family): in a routine, its name without version suffix, the statement's head and its rank among findings with the
   * same head there; elsewhere, the tokens around it with version suffixes and numbers folded.
   */
  family: string;
  /**
   * The outermost loop around it (`line:column` of its WHILE in this file), or null outside a loop: the per-loop
   * sampler draws loops, so the statements of one loop weigh one.
   */
  loop: string | null;
}

export interface Collected {
  findings: Finding[];
  files: number;
  /** Files that could not be read as text (binary, undecodable), with why. */
  skipped: { repository: string; path: string; reason: string }[];
  /** Repositories the manifest names whose folder is missing under the root. */
  missing: string[];
}

/** Tokens on each side of a finding that make its key: enough to tell one loop from another, short enough that a
 * copy of the same procedure elsewhere with a different header still falls in the same cluster. */
export const KEY_WINDOW = 24;

export function checkoutFolder(repository: string): string {
  return repository.replace('/', '+');
}

/** `**` any folders, `*` any name characters, `?` one; case-insensitive, `/` separators. */
export function globToRegExp(glob: string): RegExp {
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '*' && glob[i + 1] === '*') {
      i++;
      if (glob[i + 1] === '/') { i++; out += '(?:.*/)?'; } else out += '.*';
    } else if (c === '*') out += '[^/]*';
    else if (c === '?') out += '[^/]';
    else out += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${out}$`, 'i');
}

function listFiles(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string, rel: string): void => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const relPath = rel === '' ? entry.name : `${rel}/${entry.name}`;
      if (entry.isDirectory()) walk(path.join(dir, entry.name), relPath);
      else if (entry.isFile()) out.push(relPath);
    }
  };
  walk(root, '');
  return out;
}

/** One token as the key sees it: lower case, identifier delimiters dropped, so `[dbo].[T]` and `dbo.t` agree. */
function normalisedToken(t: TokenStream, i: number): string {
  const text = t.text.slice(t.starts[i]!, t.ends[i]!);
  const kind = t.kinds[i] as TokenKind;
  if (kind === TokenKind.BracketId || kind === TokenKind.QuotedId) return text.slice(1, -1).toLowerCase();
  return text.toLowerCase();
}

/** Index of the first token starting at or after `offset`. */
function tokenAt(t: TokenStream, offset: number): number {
  let lo = 0, hi = t.count;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (t.starts[mid]! < offset) lo = mid + 1; else hi = mid;
  }
  return lo;
}

/** The key of a finding at `offset`: its code and a hash of the normalised tokens around it. */
export function findingKey(code: DiagnosticCode, t: TokenStream, offset: number): string {
  const at = tokenAt(t, offset);
  const parts: string[] = [];
  for (let i = Math.max(0, at - KEY_WINDOW); i < Math.min(t.count, at + KEY_WINDOW + 1); i++) parts.push(normalisedToken(t, i));
  return `${code}:${hash(parts.join(' '))}`;
}

function hash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 12);
}

/** A name with what schema versions change removed: `Resource_V2`, `Resource2`, `resource_v12` → `resource`. */
export function versionless(name: string): string {
  return name.toLowerCase().replace(/(?:[_-]?v?\d+)+$/, '') || name.toLowerCase();
}

/** A token as the family sees it: identifiers without version suffixes, every number the same. */
function familyToken(t: TokenStream, i: number): string {
  const kind = t.kinds[i] as TokenKind;
  if (kind === TokenKind.Number) return '0';
  const text = normalisedToken(t, i);
  if ((kind === TokenKind.Word && t.keywords[i] === 0) || kind === TokenKind.BracketId || kind === TokenKind.QuotedId) return versionless(text);
  return text;
}

/** Words that end a statement's head (what it does and to which object), and words its spelling may leave out. */
const HEAD_STOP = new Set(['where', 'set', 'values', 'select', 'output', 'with', 'on', 'using', '(', ';']);
const HEAD_NOISE = new Set(['from', 'into', 'tran', 'transaction', 'work']);

/** The first words of the statement at token `at`: `delete dbo.resource` for `DELETE FROM [dbo].[Resource_V2] WHERE`. */
function statementHead(t: TokenStream, at: number): string {
  const out: string[] = [];
  for (let i = at; i < t.count && out.length < 6; i++) {
    const token = familyToken(t, i);
    if (HEAD_STOP.has(token) && i > at) break;
    if (!HEAD_NOISE.has(token)) out.push(token);
  }
  return out.join(' ');
}

/** Families of a file's findings (code, offset, routine name or null), in the findings' order. */
export function findingFamilies(t: TokenStream, found: readonly { code: DiagnosticCode; offset: number; routine: string | null }[]): string[] {
  const ranks = new Map<string, number>();
  return found.map((f) => {
    const at = tokenAt(t, f.offset);
    if (f.routine === null) {
      const parts: string[] = [];
      for (let i = Math.max(0, at - KEY_WINDOW); i < Math.min(t.count, at + KEY_WINDOW + 1); i++) parts.push(familyToken(t, i));
      return `${f.code}|w:${hash(parts.join(' '))}`;
    }
    const head = `${f.code}|r:${versionless(f.routine.split('.').pop()!)}|${statementHead(t, at)}`;
    const rank = ranks.get(head) ?? 0;
    ranks.set(head, rank + 1);
    return `${head}|${rank}`;
  });
}

/** The findings of one script's text. */
export function findingsOfText(text: string, repository: string, filePath: string): Finding[] {
  // Sure findings at information whatever their code's current severity: the evaluation measures what a squiggle
  // would be (src/tsql/diagnose.ts SURE lowers codes that measured below 90 % to hints).
  const analysis = analyze(text, { promoteSure: true });
  if (analysis.diagnostics.length === 0) return [];
  const tokens = lex(text);
  const lines = new LineIndex(text);
  const offsetOf = (p: { line: number; character: number }): number => lines.lineStarts[p.line]! + p.character;
  const routines = (analysis.routines ?? []).map((r) => ({ name: r.name, start: offsetOf(r.range.start), end: offsetOf(r.range.end) }));
  const located = analysis.diagnostics.map((d) => {
    const offset = offsetOf(d.range.start);
    const routine = routines.find((r) => r.start <= offset && offset < r.end);
    return { code: d.code, offset, routine: routine === undefined ? null : routine.name };
  });
  const families = findingFamilies(tokens, located);
  const loops = analysis.loops.map((l) => ({ start: offsetOf(l.range.start), end: offsetOf(l.range.end), at: `${l.range.start.line + 1}:${l.range.start.character + 1}` }));
  return analysis.diagnostics.map((d, i) => ({
    repository, path: filePath, line: d.range.start.line + 1, column: d.range.start.character + 1, code: d.code,
    severity: d.severity, message: d.message, key: findingKey(d.code, tokens, located[i]!.offset), family: families[i]!,
    loop: outermostLoop(loops, located[i]!.offset),
  }));
}

/** The outermost of the loops (offset spans) holding `offset`: the one starting first. */
export function outermostLoop(loops: readonly { start: number; end: number; at: string }[], offset: number): string | null {
  let outer: { start: number; at: string } | null = null;
  for (const l of loops) if (l.start <= offset && offset < l.end && (outer === null || l.start < outer.start)) outer = l;
  return outer === null ? null : outer.at;
}

/** Runs the analyzer over every file the manifest entries name under `root`. */
export function collectFindings(root: string, entries: readonly ManifestRepository[], exclude: readonly string[] = []): Collected {
  const out: Collected = { findings: [], files: 0, skipped: [], missing: [] };
  const excluded = exclude.map(globToRegExp);
  for (const entry of entries) {
    const folder = path.join(root, checkoutFolder(entry.repository));
    if (!fs.existsSync(folder)) { out.missing.push(entry.repository); continue; }
    const patterns = entry.paths.map(globToRegExp);
    const excludedHere = [...excluded, ...(entry.exclude ?? []).map(globToRegExp)];
    for (const rel of listFiles(folder)) {
      if (!patterns.some((p) => p.test(rel)) || excludedHere.some((p) => p.test(rel))) continue;
      let text: string;
      try {
        text = decodeScript(fs.readFileSync(path.join(folder, rel))).text;
      } catch (e) {
        if (!(e instanceof NotTextError)) throw e;
        out.skipped.push({ repository: entry.repository, path: rel, reason: e.message });
        continue;
      }
      out.files++;
      out.findings.push(...findingsOfText(text, entry.repository, rel));
    }
  }
  return out;
}
