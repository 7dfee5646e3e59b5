// docs/reliability.md's table (and the README's copy) must be exactly the cases in cases.ts, and every case must be the title of a test in
// this folder. DURABILITY_LENS_WRITE_DOCS=1 rewrites the table between the markers instead of checking it.
import { strict as assert } from 'node:assert';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as cases from './cases';

const DOCS = [join(__dirname, '../../docs/reliability.md'), join(__dirname, '../../README.md')];
const BEGIN = '<!-- reliability-table:begin (generated from test/reliability/cases.ts) -->';
const END = '<!-- reliability-table:end -->';

function cell(text: string): string {
  return text.replace(/\|/g, '\\|');
}

export function renderTable(): string {
  const groups: Array<[string, cases.ReliabilityCase[]]> = [
    ['connection drop', [...Object.values(cases.DROP_CASES), cases.SWEEP_CASE, cases.PROFILE_SWEEP_CASE]],
    ['server fault', Object.values(cases.FAULT_CASES)],
    ['cancel', [cases.CANCEL_BEFORE_CHANGE, ...cases.CANCEL_STEPS.map(cases.cancelCase)]],
    ['hostile names', Object.values(cases.HOSTILE_CASES)],
    ['load', Object.values(cases.LOAD_CASES)],
    ['processes and signals', Object.values(cases.PROCESS_CASES)],
    ['ownership and concurrency', Object.values(cases.OWNERSHIP_CASES)],
    ['claim across connections and machines', Object.values(cases.CLAIM_CASES)],
  ];
  const rows = ['| area | case (test title) | outcome |', '|---|---|---|'];
  for (const [area, list] of groups) for (const c of list) rows.push(`| ${area} | ${cell(c.title)} | ${cell(c.outcome)} |`);
  return rows.join('\n');
}

describe('reliability: docs/reliability.md', () => {
  for (const DOC of DOCS) {
    it(`the table in ${DOC.split('/').slice(-2).join('/')} lists exactly the reliability cases with their outcomes`, () => {
      const doc = readFileSync(DOC, 'utf8');
      const start = doc.indexOf(BEGIN);
      const end = doc.indexOf(END);
      assert.ok(start >= 0 && end > start, `markers missing in ${DOC}`);
      const table = renderTable();
      if (process.env.DURABILITY_LENS_WRITE_DOCS === '1') {
        writeFileSync(DOC, `${doc.slice(0, start + BEGIN.length)}\n${table}\n${doc.slice(end)}`);
        return;
      }
      assert.equal(doc.slice(start + BEGIN.length, end).trim(), table, 'regenerate: DURABILITY_LENS_WRITE_DOCS=1 npx mocha test/reliability/docs.test.ts');
    });
  }

  it('every case in the table is the title of a test in test/reliability', () => {
    const dir = __dirname;
    const sources = readdirSync(dir)
      .filter((f) => f.endsWith('.test.ts') && f !== 'docs.test.ts')
      .map((f) => readFileSync(join(dir, f), 'utf8'))
      .join('\n');
    const groups = { DROP_CASES: cases.DROP_CASES, FAULT_CASES: cases.FAULT_CASES, HOSTILE_CASES: cases.HOSTILE_CASES, LOAD_CASES: cases.LOAD_CASES, PROCESS_CASES: cases.PROCESS_CASES, OWNERSHIP_CASES: cases.OWNERSHIP_CASES, CLAIM_CASES: cases.CLAIM_CASES };
    for (const [group, list] of Object.entries(groups)) {
      for (const key of Object.keys(list)) assert.ok(sources.includes(`it(${group}.${key}.title,`), `no it(${group}.${key}.title, ...) test`);
    }
    for (const name of ['SWEEP_CASE', 'PROFILE_SWEEP_CASE', 'CANCEL_BEFORE_CHANGE']) assert.ok(sources.includes(`it(${name}.title,`), `no it(${name}.title, ...) test`);
    // Cancel cases are one test per step, generated in a loop over CANCEL_STEPS.
    assert.match(sources, /for \(const step of CANCEL_STEPS\) \{\s*it\(cancelCase\(step\)\.title,/);
    const titles = cases.allCases().map((c) => c.title);
    assert.equal(new Set(titles).size, titles.length, 'case titles are unique');
  });
});
