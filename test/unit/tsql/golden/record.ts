// The golden record of one T-SQL fixture: what the current core says about it (tokens in summary, the scanner's
// structure, the statements, the routines and the findings under each option set), rendered as stable text. The
// golden test (../golden.test.ts) compares it with test/unit/tsql/golden/*.json; update.ts writes those files.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { generateScript } from '../../../../bench/tsql-workload';
import { analyze } from '../../../../src/tsql/analyze';
import { splitBatches } from '../../../../src/tsql/batches';
import { keywordName } from '../../../../src/tsql/keywords';
import { lex, TokenKind, type TokenStream } from '../../../../src/tsql/lexer';
import { LineIndex } from '../../../../src/tsql/lines';
import { scanStructure } from '../../../../src/tsql/structure';
import type { AnalysisOptions, DiagnosticCode } from '../../../../src/tsql/types';

export const ROOT = path.resolve(__dirname, '../../../..');
export const GOLDEN_DIR = __dirname;

export interface Fixture {
  /** Stable name; the golden file is `<name>.json`. */
  name: string;
  /** Where the text comes from (a path from the repository root, or the generator call). */
  source: string;
  text(): string;
}

/** Folders holding our own T-SQL fixtures (searched recursively for *.sql). */
const FIXTURE_DIRS = ['samples', 'test/corpus', 'test/e2e/fixtures/workspace', 'test/eval/fixture'];

function sqlFilesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    const rel = `${dir}/${entry.name}`;
    if (entry.isDirectory()) out.push(...sqlFilesUnder(rel));
    else if (entry.name.endsWith('.sql')) out.push(rel);
  }
  return out;
}

/** Every fixture, in name order: the .sql files of FIXTURE_DIRS and a slice of the benchmark's workload. */
export function fixtures(): Fixture[] {
  const files: Fixture[] = FIXTURE_DIRS.flatMap(sqlFilesUnder).map((rel) => ({
    name: rel.replace(/\.sql$/, '').replace(/\//g, '__'),
    source: rel,
    text: () => fs.readFileSync(path.join(ROOT, rel), 'utf8'),
  }));
  // What bench/tsql.bench.ts measures, at a size a golden file can hold: speed work on the core must keep its answers.
  files.push({ name: 'bench-workload-seed-42', source: 'bench/tsql-workload.ts generateScript(8000, 42)', text: () => generateScript(8_000, 42) });
  return files.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** Option sets the findings are recorded under (they change what delayed-durability findings say). */
const OPTION_SETS: Array<[string, AnalysisOptions]> = [
  ['default', {}],
  ['database Shop DISABLED', { database: { database: 'Shop', delayedDurability: 'DISABLED' } }],
  ['database Shop FORCED, commit-in-loop off', { database: { database: 'Shop', delayedDurability: 'FORCED' }, disabledCodes: new Set<DiagnosticCode>(['commit-in-loop']) }],
];

/** FNV-1a over the lexer's arrays: any change of a token's kind, place, keyword or flags changes it. */
function tokenDigest(t: TokenStream): string {
  let h = 0x811c9dc5;
  const mix = (v: number): void => { h = Math.imul(h ^ (v & 0xffff), 0x01000193); h = Math.imul(h ^ (v >>> 16), 0x01000193); };
  for (let i = 0; i < t.count; i++) { mix(t.kinds[i]!); mix(t.starts[i]!); mix(t.ends[i]!); mix(t.keywords[i]!); mix(t.flags[i]!); }
  for (let i = 0; i < t.comments.count; i++) { mix(t.comments.kinds[i]!); mix(t.comments.starts[i]!); mix(t.comments.ends[i]!); mix(t.comments.flags[i]!); }
  for (const g of t.goTokens) mix(g);
  return (h >>> 0).toString(16).padStart(8, '0');
}

/** Tokens in summary: counts by kind and keyword, and a digest of every token. */
function tokenSummary(t: TokenStream): Record<string, unknown> {
  const byKind: Record<string, number> = {};
  const byKeyword: Record<string, number> = {};
  for (let i = 0; i < t.count; i++) {
    const kind = TokenKind[t.kinds[i]!]!;
    byKind[kind] = (byKind[kind] ?? 0) + 1;
    if (t.keywords[i] !== 0) { const k = keywordName(t.keywords[i]!); byKeyword[k] = (byKeyword[k] ?? 0) + 1; }
  }
  return { count: t.count, comments: t.comments.count, goWords: t.goTokens.length, digest: tokenDigest(t), byKind, byKeyword };
}

/** `{ start: {line, character}, end: {...} }` → `"l:c-l:c"` (0-based, as the core reports them). */
function isRange(v: unknown): v is { start: { line: number; character: number }; end: { line: number; character: number } } {
  const r = v as { start?: { line?: unknown }; end?: { line?: unknown } } | null;
  return typeof r === 'object' && r !== null && typeof r.start?.line === 'number' && typeof r.end?.line === 'number' && Object.keys(r).length === 2;
}

/** Plain data with sorted keys and ranges as short strings; Sets and Maps as sorted arrays. */
function plain(v: unknown): unknown {
  if (isRange(v)) return `${v.start.line}:${v.start.character}-${v.end.line}:${v.end.character}`;
  if (Array.isArray(v)) return v.map(plain);
  if (v instanceof Set) return [...v].map(plain).sort();
  if (v !== null && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(v).sort()) {
      const value = (v as Record<string, unknown>)[key];
      if (value !== undefined) out[key] = plain(value);
    }
    return out;
  }
  return v;
}

/** The golden record of one text. */
export function recordOf(text: string): Record<string, unknown> {
  const tokens = lex(text);
  const spans = splitBatches(tokens, new LineIndex(text));
  const s = scanStructure(tokens, spans);
  // A COMMIT names the BEGIN it closes by that BEGIN's keyword offset (the node itself is listed under begins).
  const commits = s.commits.map(({ begin, ...c }) => ({ ...c, begin: begin === null ? null : begin.keyword.start }));
  // The statement table is listed once, with line and column, under `statements`.
  const structure = {
    begins: s.begins, commits, rollbacks: s.rollbacks, dml: s.dml, loops: s.loops, durabilitySettings: s.durabilitySettings,
    atomicBlocks: s.atomicBlocks, routines: s.routines, flushLogCalls: s.flushLogCalls, checkpoints: s.checkpoints,
  };
  const [first, ...others] = OPTION_SETS.map(([, o]) => analyze(text, o));
  const a = first!;
  const findings: Record<string, unknown> = {};
  OPTION_SETS.forEach(([label], i) => {
    const d = (i === 0 ? a : others[i - 1]!).diagnostics.map((x) => `${x.code} ${x.severity} ${plain(x.range)}: ${x.message}`);
    findings[label] = i > 0 && JSON.stringify(d) === JSON.stringify(findings.default) ? 'same as default' : d;
  });
  return {
    tokens: tokenSummary(tokens),
    batches: a.batches.map(({ text: batchText, ...b }) => ({ ...b, textLength: batchText.length })),
    structure,
    statements: (a.statements ?? []).map((x) => `${x.kind} ${plain(x.range)} b${x.batchIndex}`),
    analysis: {
      commits: a.commits, dml: a.dml, loops: a.loops, durabilitySettings: a.durabilitySettings, batchesWithDmlInLoop: a.batchesWithDmlInLoop,
      flushLogCalls: a.flushLogCalls, checkpoints: a.checkpoints, routines: a.routines ?? [], transactions: a.transactions ?? [],
    },
    findings,
  };
}

/**
 * Stable text of a record: objects one key a line (sorted), every array item on a line of its own as compact JSON,
 * so a changed statement or finding is a changed line in a diff.
 */
export function render(value: unknown, indent = ''): string {
  const v = plain(value);
  const inner = `${indent}  `;
  if (Array.isArray(v)) {
    if (v.length === 0) return '[]';
    return `[\n${v.map((item) => inner + JSON.stringify(item)).join(',\n')}\n${indent}]`;
  }
  if (v !== null && typeof v === 'object') {
    const entries = Object.entries(v);
    if (entries.length === 0) return '{}';
    return `{\n${entries.map(([k, x]) => `${inner}${JSON.stringify(k)}: ${render(x, inner)}`).join(',\n')}\n${indent}}`;
  }
  return JSON.stringify(v);
}

/** The golden file's text for a fixture. */
export function goldenText(f: Fixture): string {
  return `${render({ fixture: f.source, ...recordOf(f.text()) })}\n`;
}

export function goldenPath(f: Fixture): string {
  return path.join(GOLDEN_DIR, `${f.name}.json`);
}
