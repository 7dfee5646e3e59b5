// JUnit XML of the gates, parsed with @xmldom/xmldom and checked against the rules of Jenkins xunit-plugin's
// junit-10.xsd (the schema CI servers validate JUnit reports with): element nesting, required and declared attributes,
// the SUREFIRE_TIME pattern; hostile metric text stays well-formed and reads back unchanged.
import { strict as assert } from 'node:assert';
import { DOMParser, type Element } from '@xmldom/xmldom';
import type { GateResult } from '../../../src/report/gates';
import { gatesToJunit } from '../../../src/report/junit';

/** junit-10.xsd: per element, the attributes it declares, those it requires, and the child elements it allows. */
const SCHEMA: Record<string, { declared: string[]; required: string[]; children: string[] }> = {
  testsuites: { declared: ['name', 'time', 'tests', 'failures', 'errors'], required: [], children: ['testsuite'] },
  testsuite: {
    declared: ['name', 'tests', 'failures', 'errors', 'group', 'time', 'skipped', 'timestamp', 'hostname', 'id', 'package', 'file', 'log', 'url'],
    required: ['name', 'tests', 'failures', 'errors'],
    children: ['testsuite', 'properties', 'testcase', 'system-out', 'system-err'],
  },
  testcase: { declared: ['name', 'time', 'classname', 'group'], required: ['name'], children: ['skipped', 'error', 'failure', 'system-out', 'system-err'] },
  failure: { declared: ['type', 'message'], required: [], children: [] },
  skipped: { declared: ['type', 'message'], required: [], children: [] },
  'system-out': { declared: [], required: [], children: [] },
};
const SUREFIRE_TIME = /^(([0-9]{0,3},)*[0-9]{3}|[0-9]{0,3})*(\.[0-9]*)?$/;

function validate(el: Element, problems: string[]): void {
  const rule = SCHEMA[el.nodeName];
  if (!rule) return void problems.push(`undeclared element <${el.nodeName}>`);
  for (const a of Array.from(el.attributes)) if (!rule.declared.includes(a.name)) problems.push(`<${el.nodeName}> has undeclared attribute ${a.name}`);
  for (const a of rule.required) if (!el.hasAttribute(a)) problems.push(`<${el.nodeName}> lacks required ${a}`);
  if ((el.nodeName === 'testsuite' || el.nodeName === 'testsuites') && el.hasAttribute('time') && !SUREFIRE_TIME.test(el.getAttribute('time')!)) problems.push(`time ${el.getAttribute('time')} is not SUREFIRE_TIME`);
  for (const c of Array.from(el.childNodes)) {
    if (c.nodeType !== 1) continue;
    if (!rule.children.includes(c.nodeName)) problems.push(`<${c.nodeName}> not allowed in <${el.nodeName}>`);
    validate(c as Element, problems);
  }
}

function gate(o: Partial<GateResult> & Pick<GateResult, 'metric' | 'status' | 'message'>): GateResult {
  return { mode: 'DISABLED', baseline: 2, value: 500, limit: 7.5, tolerance: { relative: 0.25, absolute: 5 }, ...o };
}

describe('report: JUnit XML of the gates', () => {
  const results: GateResult[] = [
    gate({ metric: 'logFlushes', status: 'fail', message: 'logFlushes (DISABLED): baseline 2, now 500 — REGRESSION, above the limit 7.5 (baseline +25% +5).' }),
    gate({ metric: 'logFlushesPerWriteTransaction', status: 'pass', baseline: 2, value: 1, limit: 2.6, message: 'logFlushesPerWriteTransaction (DISABLED): baseline 2, now 1 — within the limit 2.6.' }),
    gate({ metric: 'writelogWaits', status: 'not-measured', value: null, limit: null, message: 'writelogWaits (DISABLED): not measured in this run, so not checked.' }),
    gate({ metric: 'speedup', mode: null, status: 'pass', message: 'speedup: within.' }),
  ];

  it('is valid against junit-10.xsd: one testcase per gate, counts that add up', () => {
    const xml = gatesToJunit(results, { suiteName: 'durability-lens compare npm test', timeSeconds: 12.5, timestamp: new Date('2026-11-23T10:00:00.123Z') });
    const errors: string[] = [];
    const doc = new DOMParser({ onError: (level, msg) => void errors.push(`${level}: ${msg}`) }).parseFromString(xml, 'text/xml');
    assert.deepEqual(errors, []);
    const problems: string[] = [];
    validate(doc.documentElement!, problems);
    assert.deepEqual(problems, []);
    const suite = doc.getElementsByTagName('testsuite')[0]!;
    assert.equal(suite.getAttribute('tests'), '4');
    assert.equal(suite.getAttribute('failures'), '1');
    assert.equal(suite.getAttribute('skipped'), '1');
    assert.equal(suite.getAttribute('time'), '12.500');
    assert.equal(suite.getAttribute('timestamp'), '2026-11-23T10:00:00');
    const cases = Array.from(suite.getElementsByTagName('testcase'));
    assert.deepEqual(cases.map((c) => c.getAttribute('name')), ['logFlushes (DISABLED)', 'logFlushesPerWriteTransaction (DISABLED)', 'writelogWaits (DISABLED)', 'speedup']);
    assert.deepEqual(cases.map((c) => c.getAttribute('classname')), ['durability-lens.gates.DISABLED', 'durability-lens.gates.DISABLED', 'durability-lens.gates.DISABLED', 'durability-lens.gates']);
    const failure = cases[0]!.getElementsByTagName('failure')[0]!;
    assert.equal(failure.getAttribute('message'), results[0]!.message);
    assert.equal(failure.textContent, 'metric=logFlushes mode=DISABLED baseline=2 value=500 limit=7.5');
    assert.equal(cases[2]!.getElementsByTagName('skipped')[0]!.getAttribute('message'), results[2]!.message);
  });

  it('hostile text (markup, quotes, control characters, line breaks) stays well-formed and reads back', () => {
    const nasty = 'a<b>&"c\' ]]> <!-- x --> \u0007bell\nline\ttab';
    const xml = gatesToJunit([gate({ metric: 'logFlushes', mode: 'DIS"<ABLED>', status: 'fail', message: nasty })], { suiteName: `suite ${nasty}` });
    const errors: string[] = [];
    const doc = new DOMParser({ onError: (level, msg) => void errors.push(`${level}: ${msg}`) }).parseFromString(xml, 'text/xml');
    assert.deepEqual(errors, []);
    const failure = doc.getElementsByTagName('failure')[0]!;
    // The BEL (not an XML character) is written as visible \u0007 text; everything else is the original text.
    assert.equal(failure.getAttribute('message'), nasty.replace('\u0007', '\\u0007'));
    assert.equal(doc.getElementsByTagName('testcase')[0]!.getAttribute('name'), 'logFlushes (DIS"<ABLED>)');
    assert.equal(doc.getElementsByTagName('testsuite')[0]!.getAttribute('name'), `suite ${nasty.replace('\u0007', '\\u0007')}`);
  });

  it('no gates: an empty suite, still valid', () => {
    const doc = new DOMParser().parseFromString(gatesToJunit([], { suiteName: 'empty' }), 'text/xml');
    const problems: string[] = [];
    validate(doc.documentElement!, problems);
    assert.deepEqual(problems, []);
    assert.equal(doc.getElementsByTagName('testsuite')[0]!.getAttribute('tests'), '0');
  });
});
