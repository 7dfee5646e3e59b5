// No conditional spreads in src/ (issue 32): option objects are built once and passed down, and an optional field is
// read where it is used (`x?: T | undefined`), not added by `...(x ? { x } : {})` or `...(cond && { … })` at every
// call site. The failure lists each offending file:line, in every folder (no allow-list).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { sourceFiles, srcRelative, withoutComments } from './sourceGraph';

/** The text inside the parentheses that open at `open` (strings skipped), or null when they never close. */
function parenthesised(code: string, open: number): string | null {
  let depth = 0;
  for (let i = open; i < code.length; i++) {
    const c = code[i]!;
    if (c === "'" || c === '"' || c === '`') {
      let j = i + 1;
      while (j < code.length && code[j] !== c) j += code[j] === '\\' ? 2 : 1;
      i = j;
    } else if (c === '(' || c === '[' || c === '{') depth++;
    else if (c === ')' || c === ']' || c === '}') {
      depth--;
      if (depth === 0) return code.slice(open + 1, i);
    }
  }
  return null;
}

/** Whether a spread operand adds an object only under a condition: `c ? {…} : {}`, `c ? {} : {…}`, `c && {…}`. */
export function isConditionalObject(operand: string): boolean {
  const s = operand.trim();
  return /\?[\s\S]*:\s*\{\s*\}$/.test(s) || /\?\s*\{\s*\}\s*:/.test(s) || /&&\s*\{[\s\S]*\}$/.test(s);
}

/** `line: source line` of each conditional object spread in `text`. */
export function conditionalSpreads(text: string): { line: number; source: string }[] {
  const code = withoutComments(text);
  const lines = text.split('\n');
  const found: { line: number; source: string }[] = [];
  for (const match of code.matchAll(/\.\.\.\s*\(/g)) {
    const open = match.index! + match[0].length - 1;
    const operand = parenthesised(code, open);
    if (operand === null || !isConditionalObject(operand)) continue;
    const line = code.slice(0, match.index).split('\n').length;
    found.push({ line, source: lines[line - 1]!.trim() });
  }
  return found;
}

describe('src/ conditional spreads', () => {
  it('has no `...(x ? { x } : {})` or `...(cond && { … })` anywhere in src/', () => {
    const offenders = sourceFiles().flatMap((file) =>
      conditionalSpreads(readFileSync(file, 'utf8')).map((s) => `${srcRelative(file)}:${s.line}: ${s.source}`),
    );
    assert.deepEqual(offenders, []);
  });

  it('finds each form, on its own line, across lines, and not in comments', () => {
    const text = [
      'const a = { ...(x ? { x } : {}) };',
      'const b = { ...(cond && { y: 1 }) };',
      'const c = { ...(/^a/.test(u) ? {} : { base: 1 }) };',
      'const d = {',
      '  ...(plan.sessions && plan.sessions.length > 0',
      '    ? { sessions: plan.sessions }',
      '    : {}),',
      '};',
      '// ...(x ? { x } : {}) in a comment is prose',
    ].join('\n');
    assert.deepEqual(conditionalSpreads(text).map((s) => s.line), [1, 2, 3, 5]);
  });

  it('leaves array spreads, plain spreads and fallbacks alone', () => {
    const text = [
      'const a = [...(x ? [x] : [])];',
      'const b = { ...options, ...(defaults ?? {}) };',
      "const c = { ...f(x ? 'a' : 'b') };",
      'const d = { ...(x ? { a: 1 } : { a: 2 }) };',
    ].join('\n');
    assert.deepEqual(conditionalSpreads(text), []);
  });
});
