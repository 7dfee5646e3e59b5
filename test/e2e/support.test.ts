// Unit tests for the pure parts of the e2e harness (VSIX listing and checks, host-suite result parsing,
// fixture line lookup, panel table reading, the seeded stand-in profile and scaled S1); they run in `npm test`, without code-server or a browser.
import * as assert from 'node:assert/strict';
import { RESULT_MARKER } from './host/marker';
import type { Outcome } from './support/harness';
import { parseResultLines } from './support/hostSuite';
import { vsixContentProblems, zipEntryNames } from './support/vsix';
import { lineOf } from './support/workbench';
import { validateStoredProfile } from '../../src/db/storedProfiles';
import { analyze } from '../../src/tsql';
import { cell, leadingNumber, type MetricTable } from './support/panel';
import { scaledS1, standinConnectionSetting, STANDIN_PROFILE_NAME } from './support/standin';

/** A stored (uncompressed) zip laid out as APPNOTE.TXT 4.3 describes, with an optional archive comment. */
function storedZip(files: Record<string, string>, comment = ''): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const [name, text] of Object.entries(files)) {
    const nameBytes = Buffer.from(name, 'utf8');
    const data = Buffer.from(text, 'utf8');
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(nameBytes.length, 26);
    locals.push(local, nameBytes, data);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(nameBytes.length, 28);
    central.writeUInt32LE(offset, 42);
    centrals.push(central, nameBytes);
    offset += 30 + nameBytes.length + data.length;
  }
  const centralSize = centrals.reduce((n, b) => n + b.length, 0);
  const eocd = Buffer.alloc(22);
  eocd.writeUInt32LE(0x06054b50, 0);
  eocd.writeUInt16LE(Object.keys(files).length, 8);
  eocd.writeUInt16LE(Object.keys(files).length, 10);
  eocd.writeUInt32LE(centralSize, 12);
  eocd.writeUInt32LE(offset, 16);
  eocd.writeUInt16LE(Buffer.byteLength(comment), 20);
  return Buffer.concat([...locals, ...centrals, eocd, Buffer.from(comment)]);
}

describe('e2e harness', () => {
  describe('zipEntryNames', () => {
    it('lists every file of a zip in central-directory order, past an archive comment', () => {
      const zip = storedZip({ 'extension/package.json': '{}', 'extension/dist/extension.js': 'x', 'extension/ünïcode.md': '' }, 'a comment');
      assert.deepEqual(zipEntryNames(zip), ['extension/package.json', 'extension/dist/extension.js', 'extension/ünïcode.md']);
    });
    it('rejects a buffer that is not a zip', () => {
      assert.throws(() => zipEntryNames(Buffer.alloc(100)), /not a zip archive/);
    });
  });

  describe('vsixContentProblems', () => {
    const good = ['extension/package.json', 'extension/dist/extension.js', 'extension/dist/extension.features.js', 'extension/dist/extension.driver.js', 'extension/dist/extension.languageClient.js', 'extension/dist/server.js', 'extension/dist/webview.js', 'extension/samples/s1.sql'];
    it('accepts bundles, manifest and samples', () => {
      assert.deepEqual(vsixContentProblems(good), []);
    });
    it('names a missing bundle', () => {
      assert.deepEqual(vsixContentProblems(good.filter((n) => !n.endsWith('server.js'))), ['missing extension/dist/server.js']);
    });
    it('names a missing driver chunk (the extension loads tedious from it on first connect)', () => {
      assert.deepEqual(vsixContentProblems(good.filter((n) => !n.endsWith('extension.driver.js'))), ['missing extension/dist/extension.driver.js']);
    });
    it('names node_modules, sources, hidden folders and source maps that slipped in', () => {
      const problems = vsixContentProblems([
        ...good, 'extension/node_modules/tedious/index.js', 'extension/src/tsql/lexer.ts', 'extension/.tmp/x.csv', 'extension/dist/extension.js.map',
      ]);
      assert.equal(problems.length, 5);
      assert.match(problems[0]!, /^node_modules packaged: extension\/node_modules\/tedious\/index.js$/);
      assert.match(problems.join('\n'), /sources\/tests\/caches packaged: extension\/src\/tsql\/lexer.ts/);
      assert.match(problems.join('\n'), /hidden folders packaged: extension\/.tmp\/x.csv/);
      assert.match(problems.join('\n'), /source maps packaged: extension\/dist\/extension.js.map/);
      assert.match(problems.join('\n'), /TypeScript sources packaged: extension\/src\/tsql\/lexer.ts/);
    });
  });

  describe('parseResultLines', () => {
    it('reads result lines wrapped in console decoration, keeps the first report of a test, and sees the end line', () => {
      const results = new Map<string, Outcome>();
      const done = { seen: false };
      const line = (o: object) => `%c INFO color: #33f ${RESULT_MARKER} ${JSON.stringify(o)}`;
      parseResultLines([
        'unrelated log line',
        line({ name: 'lenses', ok: true, ms: 12 }),
        line({ name: 'diagnostics', ok: false, ms: 30, error: 'diagnostic on line 9, expected 8' }),
        `${RESULT_MARKER} {broken json`,
      ].join('\n'), results, done);
      parseResultLines(line({ name: 'lenses', ok: false, ms: 99 }), results, done);
      assert.equal(done.seen, false);
      parseResultLines(line({ done: true, total: 2, failed: 1 }), results, done);
      assert.equal(done.seen, true);
      assert.deepEqual([...results.values()], [
        { name: 'extension host: lenses', ok: true, ms: 12, error: undefined },
        { name: 'extension host: diagnostics', ok: false, ms: 30, error: 'diagnostic on line 9, expected 8' },
      ]);
    });

    it('collects metrics lines (finite numbers only) apart from the test results', () => {
      const results = new Map<string, Outcome>();
      const done = { seen: false };
      const metrics: Record<string, number> = {};
      const line = (o: object) => `${RESULT_MARKER} ${JSON.stringify(o)}`;
      parseResultLines([
        line({ metrics: { activationMs: 23.5, activationCodeLoadingMs: 17.25, bogus: 'x' } }),
        line({ name: 'lenses', ok: true, ms: 5 }),
      ].join('\n'), results, done, metrics);
      assert.deepEqual(metrics, { activationMs: 23.5, activationCodeLoadingMs: 17.25 });
      assert.deepEqual([...results.keys()], ['lenses']);
      assert.equal(done.seen, false);
    });
  });

  describe('lineOf', () => {
    it('gives the 1-based line of the first match, across CRLF line ends', () => {
      assert.equal(lineOf('-- c\r\nDECLARE @i int;\r\nWHILE @i < 3\r\nWHILE 1=0', /^\s*WHILE\b/), 3);
    });
    it('fails loudly when the fixture lacks the line', () => {
      assert.throws(() => lineOf('SELECT 1', /^COMMIT/), /no line matching/);
    });
  });
  describe('panel table reading', () => {
    const table: MetricTable = {
      headers: ['Metric', 'DISABLED (3 runs)', 'FORCED (3 runs)', 'FORCED vs DISABLED'],
      rows: new Map([['Log writes', ['Log writes', '300', '1 (1 – 2)', '↓ ×0.0033']], ['Log bytes written', ['Log bytes written', '1.17 MB', '60 KB', '↓ ×0.05']]]),
    };
    it('finds a cell by row label and mode column, and reads the median it shows first', () => {
      assert.equal(cell(table, 'Log writes', 'FORCED'), '1 (1 – 2)');
      assert.equal(leadingNumber(cell(table, 'Log writes', 'FORCED')), 1);
      assert.equal(leadingNumber('10,694 (10,600 – 10,700)'), 10694);
      assert.equal(leadingNumber('0.2 ms/write'), 0.2);
      assert.ok(Number.isNaN(leadingNumber('n/a')));
    });
    it('names what is missing instead of returning undefined', () => {
      assert.throws(() => cell(table, 'WRITELOG waits', 'FORCED'), /no row "WRITELOG waits"/);
      assert.throws(() => cell(table, 'Log writes', 'ALLOWED'), /no column "ALLOWED"/);
    });
  });

  describe('stand-in profile and S1 fixture', () => {
    it('seeds a settings entry the extension accepts, without any secret', () => {
      const entry = standinConnectionSetting(14333);
      const checked = validateStoredProfile(entry);
      assert.ok(checked.ok, `rejected: ${JSON.stringify(checked)}`);
      assert.equal(checked.profile.name, STANDIN_PROFILE_NAME);
      assert.equal(checked.profile.port, 14333);
      assert.equal(checked.profile.development, true);
      assert.ok(!/password|secret|token|StandIn-1/i.test(JSON.stringify(entry)), 'a secret in the settings entry');
    });
    it('scales the S1 loop and keeps its setup marker and batches', () => {
      const text = scaledS1(300);
      assert.match(text, /WHILE @i < 300\b/);
      assert.doesNotMatch(text, /10000/);
      assert.match(text, /durability-lens: setup-end/);
      assert.equal(analyze(text).batches.filter((b) => !b.empty).length, 3);
    });
  });
});
