// The T-SQL core still says what it said when the golden files were written: for each of our own fixtures (samples/,
// test fixtures, a slice of the benchmark workload) the tokens in summary, the structure, the statements, the routines
// and the findings under three option sets must equal test/unit/tsql/golden/<fixture>.json. A change that is meant
// is recorded with `npm run golden:update` and reviewed in the diff (see golden/README.md).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fixtures, GOLDEN_DIR, goldenPath, goldenText } from './golden/record';

const CONTEXT = 2;
const MAX_SHOWN = 40;

/**
 * A line diff of two texts, readable in a test failure: the common head and tail are left out, the lines between
 * are compared by longest common subsequence (cut to a window when large) and shown `-` expected / `+` actual, with
 * their line numbers in the expected file.
 */
export function lineDiff(expected: string, actual: string): string {
  const a = expected.split('\n');
  const b = actual.split('\n');
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const x = a.slice(head, a.length - tail);
  const y = b.slice(head, b.length - tail);
  const out: string[] = [`${x.length} expected line(s) and ${y.length} actual line(s) differ, from line ${head + 1}:`];
  // Rows of the whole stretch: ' ' same, '-' expected only, '+' actual only; LCS over a window (enough to pair up a
  // few changed lines), past it the two sides are listed one after the other.
  const rows: Array<[' ' | '-' | '+', string]> = [];
  for (let i = Math.max(0, head - CONTEXT); i < head; i++) rows.push([' ', `${String(i + 1).padStart(5)}  ${a[i]}`]);
  const w = 400;
  const xs = x.slice(0, w), ys = y.slice(0, w);
  const lcs: Uint16Array[] = Array.from({ length: xs.length + 1 }, () => new Uint16Array(ys.length + 1));
  for (let i = xs.length - 1; i >= 0; i--) for (let j = ys.length - 1; j >= 0; j--) lcs[i]![j] = xs[i] === ys[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
  let i = 0, j = 0;
  while (i < xs.length || j < ys.length) {
    if (i < xs.length && j < ys.length && xs[i] === ys[j]) { rows.push([' ', `${String(head + i + 1).padStart(5)}  ${xs[i]}`]); i++; j++; }
    else if (i < xs.length && (j === ys.length || lcs[i + 1]![j]! >= lcs[i]![j + 1]!)) { rows.push(['-', `${String(head + i + 1).padStart(5)}  ${xs[i]}`]); i++; }
    else rows.push(['+', `${''.padStart(5)}  ${ys[j++]}`]);
  }
  for (let k = w; k < x.length; k++) rows.push(['-', `${String(head + k + 1).padStart(5)}  ${x[k]}`]);
  for (let k = w; k < y.length; k++) rows.push(['+', `${''.padStart(5)}  ${y[k]}`]);
  for (let k = a.length - tail; k < Math.min(a.length, a.length - tail + CONTEXT); k++) rows.push([' ', `${String(k + 1).padStart(5)}  ${a[k]}`]);
  // Only the changed rows and CONTEXT rows around each, as in a unified diff.
  const near = rows.map((_, r) => rows.slice(Math.max(0, r - CONTEXT), r + CONTEXT + 1).some(([tag]) => tag !== ' '));
  let shown = 0, skipped = false;
  for (let r = 0; r < rows.length; r++) {
    if (!near[r]) { skipped = true; continue; }
    if (skipped && shown > 0) out.push('  …');
    skipped = false;
    if (shown++ === MAX_SHOWN) { out.push(`  … and more (${rows.filter(([tag]) => tag !== ' ').length} changed line(s) in all)`); break; }
    out.push(`${rows[r]![0]} ${rows[r]![1]}`);
  }
  return out.join('\n');
}

describe('tsql golden outputs', () => {
  const all = fixtures();

  it('has a golden file for every fixture, none for a fixture that is gone, and covers our fixtures', () => {
    // The fixture folders held 36 scripts when the golden files were first written; far fewer means a folder was lost.
    assert.ok(all.length >= 30, `found ${all.length} fixtures`);
    const wanted = all.map((f) => path.basename(goldenPath(f))).sort();
    const present = fs.readdirSync(GOLDEN_DIR).filter((n) => n.endsWith('.json')).sort();
    assert.deepEqual(present, wanted, 'golden files and fixtures differ: run `npm run golden:update`');
  });

  for (const f of all) {
    it(`${f.name}: the core's output equals its golden file`, () => {
      const file = goldenPath(f);
      const expected = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
      const actual = goldenText(f);
      if (actual === expected) return;
      assert.fail(`${f.source}: the T-SQL core's output differs from ${path.relative(process.cwd(), file)}.\n` +
        'If the change is intended, run `npm run golden:update` and review the diff; otherwise the core regressed.\n' +
        lineDiff(expected, actual));
    });
  }

  it('shows a changed line as - expected / + actual with its line number', () => {
    const diff = lineDiff('a\nb\nc\nd\n', 'a\nb\nX\nd\n');
    assert.match(diff, /^1 expected line\(s\) and 1 actual line\(s\) differ, from line 3:/);
    assert.match(diff, /^- {5}3 {2}c$/m);
    assert.match(diff, /^\+ {8}X$/m);
    assert.ok(diff.indexOf('-     3') < diff.indexOf('+        X'), diff);
    assert.match(diff, /^ {6}2 {2}b$/m);
  });
});
