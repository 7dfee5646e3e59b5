// Our own corpus (test/corpus/*.sql, see its README): every diagnostic matches a hand label, the precision of each code
// is printed and must be ≥ 90 %, and every re-encoding of every file gives the same findings at the same places.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { readTextFile } from '../../../src/cli/io';
import { analyze } from '../../../src/tsql/analyze';
import type { Analysis } from '../../../src/tsql/types';

const CORPUS = path.resolve(__dirname, '../../corpus');
const FILES = fs.readdirSync(CORPUS).filter((f) => f.endsWith('.sql')).sort();
const CODES = ['autocommit-dml-in-loop', 'commit-in-loop', 'delayed-commit-needs-allowed', 'forced-durability-data-loss', 'unbalanced-transaction'];

interface Label { line: number; code: string; verdict: 'tp' | 'fp'; why: string }

/** `--! code tp|fp: why; code tp|fp: why` at the end of a line (0-based line numbers). */
function labelsOf(text: string): Label[] {
  const labels: Label[] = [];
  text.split(/\r\n|\r|\n/).forEach((line, i) => {
    const at = line.indexOf('--!');
    if (at < 0) return;
    for (const part of line.slice(at + 3).split(';')) {
      const m = /^\s*([a-z-]+)\s+(tp|fp)\s*:\s*(.+?)\s*$/.exec(part);
      if (!m) throw new Error(`line ${i + 1}: unreadable label ${JSON.stringify(part)}`);
      labels.push({ line: i, code: m[1]!, verdict: m[2] as 'tp' | 'fp', why: m[3]! });
    }
  });
  return labels;
}

/** What must not change with the encoding: every finding and structure, by line and column. */
function fingerprint(a: Analysis): unknown {
  return {
    diagnostics: a.diagnostics.map((d) => [d.code, d.severity, d.range]),
    routines: a.routines?.map((r) => [r.kind, r.name, r.bodyRange]),
    loops: a.loops.map((l) => l.range),
    dml: a.dml.map((d) => [d.kind, d.range, d.autocommit]),
    transactions: a.transactions?.map((t) => [t.kind, t.keywordRange, t.depth]),
    batches: a.batches.map((b) => [b.range, b.repeat]),
  };
}

function encodings(text: string): Record<string, Buffer> {
  const crlf = text.replace(/\r?\n/g, '\r\n');
  return {
    'utf-16le-bom': Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]),
    'utf-16be-bom': Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(text, 'utf16le').swap16()]),
    'utf-8-bom': Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text, 'utf8')]),
    'windows-1252': Buffer.from(Array.from(text, (c) => {
      const code = c.codePointAt(0)!;
      if (code === 0x20ac) return 0x80;
      if (code > 0xff) throw new Error(`corpus text must stay within windows-1252: ${c}`);
      return code;
    })),
    'crlf-utf-8': Buffer.from(crlf, 'utf8'),
  };
}

describe('tsql corpus', () => {
  const tally = new Map<string, { tp: number; fp: number }>(CODES.map((c) => [c, { tp: 0, fp: 0 }]));
  const routines = { total: 0, analysed: 0 };

  for (const file of FILES) {
    it(`${file}: every diagnostic is labelled and every label is found`, () => {
      const text = readTextFile(path.join(CORPUS, file), undefined, () => assert.fail('corpus files are UTF-8'));
      const labels = labelsOf(text);
      const a = analyze(text);
      const unlabelled: string[] = [];
      const unused = new Set(labels);
      for (const d of a.diagnostics) {
        const label = [...unused].find((l) => l.line === d.range.start.line && l.code === d.code);
        if (!label) { unlabelled.push(`${file}:${d.range.start.line + 1}:${d.range.start.character + 1} ${d.code} (${d.severity}): ${d.message}`); continue; }
        unused.delete(label);
        tally.get(d.code)![label.verdict]++;
      }
      assert.deepEqual(unlabelled, [], 'diagnostics with no hand label');
      assert.deepEqual([...unused].map((l) => `${file}:${l.line + 1} ${l.code}`), [], 'labels with no diagnostic');
      // A routine's body is always analysed: it starts after the header's AS and holds statements of its own.
      for (const r of a.routines ?? []) {
        routines.total++;
        const body = (a.statements ?? []).filter((s) => s.kind !== 'routine' &&
          (s.range.start.line > r.bodyRange.start.line || (s.range.start.line === r.bodyRange.start.line && s.range.start.character >= r.bodyRange.start.character)) &&
          (s.range.end.line < r.bodyRange.end.line || (s.range.end.line === r.bodyRange.end.line && s.range.end.character <= r.bodyRange.end.character)));
        assert.ok(r.external || body.length > 0, `${file}: ${r.name} has no analysed body`);
        assert.ok(!/\b(AS|BEGIN|WITH)\b/i.test(r.name.replace(/^\[|\]$/g, '')) || r.name.includes(' '), `${file}: routine name ${r.name} swallowed its header`);
        routines.analysed++;
      }
    });

    it(`${file}: the same findings at the same lines and columns in UTF-16 LE/BE, UTF-8 BOM, windows-1252 and CRLF`, () => {
      const text = fs.readFileSync(path.join(CORPUS, file), 'utf8');
      const expected = fingerprint(analyze(text));
      const tmp = fs.mkdtempSync(path.join(require('node:os').tmpdir(), 'dl-corpus-'));
      try {
        for (const [name, bytes] of Object.entries(encodings(text))) {
          const target = path.join(tmp, `${name}.sql`);
          fs.writeFileSync(target, bytes);
          let warned = '';
          const decoded = readTextFile(target, undefined, (w) => { warned += w; });
          assert.equal(warned !== '', name === 'windows-1252' && /[^\x00-\x7f]/.test(text), name);
          const got = analyze(decoded);
          if (name === 'crlf-utf-8') {
            // CRLF changes batch text but not any line or column.
            assert.deepEqual(fingerprint(got), expected, name);
          } else assert.deepEqual(fingerprint(got), expected, name);
        }
      } finally {
        fs.rmSync(tmp, { recursive: true, force: true });
      }
    });
  }

  after(() => {
    // Printed on every run: the figure the issue asks for.
    for (const [code, { tp, fp }] of tally) console.log(`    precision ${code} ${tp}/${tp + fp}`);
    console.log(`    routines analysed ${routines.analysed}/${routines.total}`);
  });

  it('has a precision of at least 90 % for every diagnostic code, over at least 3 findings each', function () {
    // Runs after the per-file tests (mocha keeps declaration order), so the tally is complete.
    for (const [code, { tp, fp }] of tally) {
      assert.ok(tp + fp >= 3, `${code}: only ${tp + fp} findings in the corpus, too few to measure`);
      assert.ok(tp / (tp + fp) >= 0.9, `${code}: precision ${tp}/${tp + fp} is below 90 %`);
    }
    assert.ok(routines.total >= 20, `only ${routines.total} routines in the corpus`);
  });
});
