// Language-server bounds: at most MAX_LENSES code lenses and MAX_DIAGNOSTICS diagnostics per document, with one
// summary diagnostic saying how many were left out, so an 8 MB script cannot produce hundreds of MB of JSON.
import * as assert from 'node:assert/strict';
import { DiagnosticSeverity } from 'vscode-languageserver/node';
import { MAX_LENSES, buildCodeLenses, lensCount } from '../../src/server/codeLenses';
import { MAX_DIAGNOSTICS, toLspDiagnostics } from '../../src/server/diagnostics';
import { analyze } from '../../src/tsql/analyze';

const LOOP = 'WHILE @i < 10 BEGIN BEGIN TRAN; INSERT dbo.t VALUES (@i); COMMIT; SET @i += 1; END\n';

describe('language server bounds', () => {
  // 2 MB (not 8) keeps the test quick from source; the caps make the output size independent of the input size.
  it('sends at most 500 lenses and 500 diagnostics for a 2 MB script, plus one summary of what was left out', function () {
    this.timeout(120000);
    const text = LOOP.repeat(Math.ceil((2 * 1024 * 1024) / LOOP.length));
    const analysis = analyze(text);
    const loops = analysis.loops.length;
    assert.ok(loops > 20000, `${loops} loops`);
    const lenses = buildCodeLenses(analysis, 'file:///big.sql', 1);
    assert.equal(MAX_LENSES, 500);
    // One "Profile batch" lens (one batch), then as many COMMIT lens pairs as fit.
    assert.equal(lenses.length, 499);
    assert.equal(lenses.filter((l) => l.command!.title === 'Profile batch').length, 1);
    const lensJson = JSON.stringify(lenses).length;
    assert.ok(lensJson < 1024 * 1024, `${lensJson} bytes of lens JSON`);

    const diagnostics = toLspDiagnostics(analysis, new Set());
    assert.equal(diagnostics.length, MAX_DIAGNOSTICS + 1);
    const summary = diagnostics[MAX_DIAGNOSTICS]!;
    assert.equal(summary.severity, DiagnosticSeverity.Information);
    const omittedDiagnostics = analysis.diagnostics.length - MAX_DIAGNOSTICS;
    const omittedLenses = lensCount(analysis) - MAX_LENSES;
    assert.ok(omittedLenses > 40000);
    assert.match(String(summary.message), new RegExp(`left out ${omittedDiagnostics} more diagnostics \\(only the first 500 are shown\\) and ${omittedLenses} code lenses \\(at most 500 are shown\\)`));
    assert.ok(JSON.stringify(diagnostics).length < 1024 * 1024);
  });

  it('keeps procedure lenses within MAX_LENSES too, and counts the ones left out', () => {
    const procs = analyze(Array.from({ length: 300 }, (_, i) => `CREATE PROCEDURE dbo.p${i} @a int AS SELECT @a;\nGO\n`).join(''));
    const lenses = buildCodeLenses(procs, 'file:///procs.sql', 1);
    assert.equal(lenses.length, MAX_LENSES);
    assert.equal(lensCount(procs), 600);
  });

  it('adds no summary when nothing is left out, and does not count lenses when lenses are off', () => {
    const small = analyze(LOOP.repeat(3));
    assert.equal(toLspDiagnostics(small, new Set()).length, 3);
    const many = analyze('BEGIN TRAN; COMMIT;\n'.repeat(300));
    assert.equal(buildCodeLenses(many, 'file:///x.sql', 1).length, 500);
    assert.equal(toLspDiagnostics(many, new Set()).length, 1);
    assert.match(String(toLspDiagnostics(many, new Set())[0]!.message), /left out 100 code lenses/);
    assert.deepEqual(toLspDiagnostics(many, new Set(), false), []);
  });
});
