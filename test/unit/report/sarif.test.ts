// SARIF 2.1.0 of the analyzer's diagnostics, checked against the OASIS standard's required properties and constraints
// (section numbers of https://docs.oasis-open.org/sarif/sarif/v2.1.0/sarif-v2.1.0.html), and `analyze --sarif FILE`.
import { strict as assert } from 'node:assert';
import { runCli } from '../../../src/cli/dispatch';
import type { CliIO } from '../../../src/cli/io';
import { analysisToSarif, pathToSarifUri, SARIF_RULES, sarifMessageText } from '../../../src/report/sarif';
import { analyze } from '../../../src/tsql/index';

const LOOP = ['DECLARE @i int = 0;', 'WHILE @i < 10', 'BEGIN', '  BEGIN TRAN;', '  INSERT INTO dbo.t (v) VALUES (@i);', '  COMMIT;', '  SET @i += 1;', 'END', 'ALTER DATABASE lab SET DELAYED_DURABILITY = FORCED;'].join('\n');

// SARIF is deeply nested JSON; the checks below read it loosely on purpose.
type Json = Record<string, any>;

/** The spec's MUSTs for what we emit; returns the violations. */
function sarifProblems(log: Json): string[] {
  const p: string[] = [];
  if (log.version !== '2.1.0') p.push('§3.13.2 version must be "2.1.0"');
  if (!Array.isArray(log.runs)) p.push('§3.13.4 runs must be an array');
  for (const [ri, run] of (log.runs ?? []).entries()) {
    const driver = run.tool?.driver;
    if (!driver) p.push(`§3.14.6/§3.18.2 runs[${ri}].tool.driver is required`);
    if (typeof driver?.name !== 'string' || driver.name === '') p.push('§3.19.8 driver.name is required');
    const rules: Json[] = driver?.rules ?? [];
    const ids = new Set<string>();
    for (const r of rules) {
      if (typeof r.id !== 'string') p.push('§3.49.3 reportingDescriptor.id is required');
      if (ids.has(r.id)) p.push(`§3.19.23 rule ids must be unique (${r.id})`);
      ids.add(r.id);
      if (r.shortDescription && typeof r.shortDescription.text !== 'string') p.push('§3.11.8 message.text must be a string');
      if (r.defaultConfiguration && !['none', 'note', 'warning', 'error'].includes(r.defaultConfiguration.level)) p.push('§3.50.3 level');
    }
    if (run.columnKind !== undefined && !['utf16CodeUnits', 'unicodeCodePoints'].includes(run.columnKind)) p.push('§3.14.17 columnKind');
    for (const res of run.results ?? []) {
      if (typeof res.message?.text !== 'string' && typeof res.message?.id !== 'string') p.push('§3.27.11 result.message is required, with text or id');
      if (res.level !== undefined && !['none', 'note', 'warning', 'error'].includes(res.level)) p.push('§3.27.10 level');
      if (res.ruleIndex !== undefined && rules[res.ruleIndex]?.id !== res.ruleId) p.push('§3.27.6 ruleIndex must point at the rule whose id is ruleId');
      for (const loc of res.locations ?? []) {
        const phys = loc.physicalLocation;
        if (!phys?.artifactLocation) p.push('§3.29.3 physicalLocation.artifactLocation');
        const uri = phys?.artifactLocation?.uri;
        if (typeof uri !== 'string' || /[\s\\]/.test(uri)) p.push(`§3.4.3 uri must be a valid URI reference, got ${uri}`);
        const base = phys?.artifactLocation?.uriBaseId;
        if (base !== undefined && !(base in (run.originalUriBaseIds ?? {}))) p.push(`§3.14.14 uriBaseId ${base} not in originalUriBaseIds`);
        const r = phys?.region;
        if (r) {
          for (const k of ['startLine', 'startColumn', 'endLine', 'endColumn']) if (r[k] !== undefined && !(Number.isInteger(r[k]) && r[k] >= 1)) p.push(`§3.30 ${k} must be an integer ≥ 1`);
          if (r.endLine < r.startLine || (r.endLine === r.startLine && r.endColumn < r.startColumn)) p.push('§3.30 region end before start');
        }
      }
    }
  }
  return p;
}

describe('report: SARIF 2.1.0 of the analyzer diagnostics', () => {
  it('meets the spec\'s required properties; commit-in-loop shows with its 1-based location and rule', () => {
    const log = analysisToSarif([{ uri: pathToSarifUri('db/scripts/load rows.sql'), diagnostics: analyze(LOOP).diagnostics }], { version: '0.1.0' }) as Json;
    assert.deepEqual(sarifProblems(log), []);
    const run = log.runs[0];
    assert.equal(run.tool.driver.semanticVersion, '0.1.0');
    assert.deepEqual(run.tool.driver.rules.map((r: Json) => r.id), Object.keys(SARIF_RULES));
    const commit = run.results.find((r: Json) => r.ruleId === 'commit-in-loop');
    assert.ok(commit, JSON.stringify(run.results.map((r: Json) => r.ruleId)));
    assert.equal(commit.level, 'note');
    assert.deepEqual(commit.locations[0].physicalLocation.artifactLocation, { uri: 'db/scripts/load%20rows.sql', uriBaseId: '%SRCROOT%' });
    assert.deepEqual(commit.locations[0].physicalLocation.region, { startLine: 6, startColumn: 3, endLine: 6, endColumn: 9 });
    const forced = run.results.find((r: Json) => r.ruleId === 'forced-durability-data-loss');
    assert.equal(forced.level, 'warning');
  });

  it('a file with no findings still gives a valid log with an empty result list', () => {
    const log = analysisToSarif([{ uri: 'clean.sql', diagnostics: analyze('SELECT 1;').diagnostics }]) as Json;
    assert.deepEqual(sarifProblems(log), []);
    assert.deepEqual(log.runs[0].results, []);
    assert.equal(log.runs[0].tool.driver.semanticVersion, undefined);
  });

  it('a file identifier that spells an embedded link ([text](target), §3.11.6) stays text: [, ] and \\ escaped', () => {
    // The database is named [click](https://evil.example/x) — a legal bracket-quoted identifier ("]]" is one "]").
    const sql = 'ALTER DATABASE [[click]](https://evil.example/x)\\]]] SET DELAYED_DURABILITY = FORCED;';
    const log = analysisToSarif([{ uri: 'db.sql', diagnostics: analyze(sql).diagnostics }]) as Json;
    const text: string = log.runs[0].results[0].message.text;
    assert.match(text, /database \\\[click\\\]\(https:\/\/evil\.example\/x\)\\\\\\\]/);
    // A SARIF reader's embedded-link syntax: an unescaped "[", link text, unescaped "]", then "(".
    assert.doesNotMatch(text, /(?<!\\)(?:\\\\)*\[(?:[^\]\\]|\\.)*(?<!\\)\]\(/);
    // Unescaping as a reader does gives the original message back.
    assert.equal(text.replace(/\\([\\[\]])/g, '$1'), analyze(sql).diagnostics[0]!.message);
    assert.equal(sarifMessageText('a\u001b[31mb\u007fc'), 'a \\[31mb c');
  });

  it('URIs: Windows separators become /, odd characters are percent-encoded, absolute file: URIs kept', () => {
    assert.equal(pathToSarifUri('a\\b c\\#1.sql', 'win32'), 'a/b%20c/%231.sql');
    assert.equal(pathToSarifUri('file:///tmp/x.sql'), 'file:///tmp/x.sql');
  });

  it('analyze FILE --sarif OUT writes the log; the normal report still goes to stdout', async () => {
    const written: Record<string, string> = {};
    const io: CliIO & { writeFile(p: string, t: string): void; out: string; err: string } = {
      out: '',
      err: '',
      stdout(t) { io.out += t; },
      stderr(t) { io.err += t; },
      readFile: (f) => { if (f === 'loop.sql') return LOOP; throw new Error(`ENOENT ${f}`); },
      writeFile: (p, t) => { written[p] = t; },
    };
    assert.equal(await runCli(['analyze', 'loop.sql', '--sarif', 'out.sarif'], io), 0, io.err);
    const log = JSON.parse(written['out.sarif']!);
    assert.deepEqual(sarifProblems(log), []);
    assert.equal(log.runs[0].results[0].locations[0].physicalLocation.artifactLocation.uri, 'loop.sql');
    assert.ok(log.runs[0].results.some((r: Json) => r.ruleId === 'commit-in-loop'));
    assert.match(io.out, /commit-in-loop/);
    assert.equal(await runCli(['analyze', 'loop.sql', '--sarif'], io), 2);
    assert.match(io.err, /--sarif needs a file to write/);
  });
});
