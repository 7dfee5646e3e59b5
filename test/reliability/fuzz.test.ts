// Bounded fuzzing of everything that reads untrusted text or bytes: the T-SQL analysis (whole pipeline, with every
// range checked against the input), the XE XML reader (arbitrary and mutated-valid XML), and the stand-in's TDS
// parsers called directly (test/conformance fuzzes them over sockets; here each parser sees raw buffers), and the
// sinks server/file strings end up in: the CLI's terminal output, the Markdown export and the GRANTs we copy.
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { analyze } from '../../src/tsql';
import { LineIndex } from '../../src/tsql/lines';
import type { Analysis, Range } from '../../src/tsql';
import { readEventFileRows, readRingBufferXml } from '../../src/xe';
import { runCli } from '../../src/cli/dispatch';
import { isTerminalSafe } from '../../src/cli/terminalText';
import { rebuildGrants } from '../../src/probes/grantRebuild';
import { buildComparisonModel, toMarkdown } from '../../src/report';
import { makeRun } from '../unit/report/runFixture';
import { TdsProtocolError } from '../standin/tds/bytes';
import { parseLogin7 } from '../standin/tds/login7';
import { MessageAssembler } from '../standin/tds/packet';
import { parsePrelogin } from '../standin/tds/prelogin';
import { parseRpc, parseSqlBatch, parseTransactionManager, parseParameterDeclarations } from '../standin/tds/requests';
import { readTypedValue, readTypeInfo } from '../standin/tds/type-info';

// markdown-it (installed with @vscode/vsce; no type declarations here) renders as VS Code's Markdown preview does.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const markdown = new (require('markdown-it') as new (options: { html: boolean; linkify: boolean }) => { render(text: string): string })({ html: true, linkify: false });

/** Generous per-input bound: catches quadratic blow-ups and hangs, not a timing assertion. */
const PER_INPUT_MS = 1000;

function timed<T>(what: string, fn: () => T): T {
  const t0 = performance.now();
  const out = fn();
  const ms = performance.now() - t0;
  assert.ok(ms < PER_INPUT_MS, `${what} took ${ms.toFixed(0)} ms`);
  return out;
}

// ---- T-SQL ----

const piece = fc.constantFrom(
  'GO', 'GO 10000', 'GO -1', 'GO 99999999999999999999', '\n', '\r\n', '\r', '\u2028', "'", "N'", '[', ']', ']]', '"', '--', '/*', '*/',
  'BEGIN', 'END', 'TRAN', 'BEGIN TRAN', 'COMMIT', 'COMMIT TRAN WITH (DELAYED_DURABILITY = ON)', 'ROLLBACK', 'WHILE 1=1', 'IF', 'ELSE',
  'BEGIN TRY', 'END TRY', 'BEGIN CATCH', 'END CATCH', 'INSERT INTO t VALUES (1)', 'UPDATE t SET a = 1', 'DELETE t', 'MERGE', 'SELECT * INTO #x FROM t',
  'CREATE PROCEDURE p AS', 'WITH (', ')', '(', ';', 'ALTER DATABASE [x]]y] SET DELAYED_DURABILITY = FORCED', 'EXEC sys.sp_flush_log', 'CHECKPOINT',
  'DECLARE c CURSOR FOR SELECT 1', 'FETCH NEXT FROM c', '@@FETCH_STATUS', 'ATOMIC', 'é', '\uFEFF', '\u00A0', '\uD800', '🚀', '$', '`', 'x',
);
const script = fc.oneof(
  { weight: 3, arbitrary: fc.array(piece, { maxLength: 300 }).map((p) => p.join(' ')) },
  { weight: 2, arbitrary: fc.array(piece, { maxLength: 300 }).map((p) => p.join('')) },
  { weight: 1, arbitrary: fc.string({ maxLength: 2000 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 2000 }) },
  // Nesting from a few levels to past the structural scanner's cap (MAX_NESTING, 500), where it reads flat.
  { weight: 1, arbitrary: fc.tuple(fc.integer({ min: 1, max: 1500 }), fc.constantFrom('BEGIN ', '(', 'WHILE 1=1 BEGIN ', 'BEGIN TRAN ', 'IF 1=1 ')).map(([n, s]) => s.repeat(n)) },
);

function rangesOf(a: Analysis): Array<[string, Range]> {
  const out: Array<[string, Range]> = [];
  for (const b of a.batches) out.push(['batch', b.range]);
  for (const c of a.commits) {
    out.push(['commit', c.range], ['commit keyword', c.keywordRange]);
    if (c.beginRange) out.push(['begin', c.beginRange]);
  }
  for (const d of a.dml) out.push(['dml', d.range]);
  for (const l of a.loops) out.push(['loop', l.range]);
  for (const s of a.durabilitySettings) out.push(['setting', s.range]);
  for (const r of a.flushLogCalls) out.push(['flush', r]);
  for (const r of a.checkpoints) out.push(['checkpoint', r]);
  for (const d of a.diagnostics) out.push([`diagnostic ${d.code}`, d.range]);
  for (const s of a.statements ?? []) out.push(['statement', s.range]);
  return out;
}

describe('reliability: fuzzing', function () {
  this.timeout(120000);

  describe('T-SQL analysis', () => {
    it('analyze never throws, finishes each input in bounded time, and keeps every range inside the input and ordered', () => {
      fc.assert(
        fc.property(script, (text) => {
          const analysis = timed(`analyze(${text.length} chars)`, () => analyze(text));
          const lines = new LineIndex(text);
          const lineLength = (line: number) => {
            const start = lines.lineStarts[line]!;
            const next = line + 1 < lines.lineCount ? lines.lineStarts[line + 1]! : text.length;
            return text.slice(start, next).replace(/(\r\n|\r|\n)$/, '').length;
          };
          for (const [what, r] of rangesOf(analysis)) {
            for (const p of [r.start, r.end]) {
              assert.ok(Number.isInteger(p.line) && p.line >= 0 && p.line < lines.lineCount, `${what} line ${p.line} of ${lines.lineCount}`);
              assert.ok(Number.isInteger(p.character) && p.character >= 0 && p.character <= lineLength(p.line), `${what} character ${p.character} on line ${p.line}`);
            }
            const ordered = r.start.line < r.end.line || (r.start.line === r.end.line && r.start.character <= r.end.character);
            assert.ok(ordered, `${what} ${JSON.stringify(r)}`);
          }
          let previousEnd = 0;
          for (const b of analysis.batches) {
            assert.ok(b.startOffset >= previousEnd && b.endOffset >= b.startOffset && b.endOffset <= text.length, `batch ${b.index}`);
            assert.equal(b.text, text.slice(b.startOffset, b.endOffset));
            assert.ok(Number.isSafeInteger(b.repeat) && b.repeat >= 1, `repeat ${b.repeat}`);
            previousEnd = b.endOffset;
          }
        }),
        { numRuns: 400 },
      );
    });
  });

  it('analyze does not overflow the stack on 10,000 nested BEGIN / WHILE / IF (a 60 KB document)', () => {
    // The structural scanner recurses once per nesting level (~2,900 nested BEGINs used to throw RangeError out of
    // analyze()); past MAX_NESTING levels it now reads compound statements flat.
    for (const unit of ['BEGIN ', 'WHILE 1=1 BEGIN ', 'IF 1=1 ']) {
      const analysis = analyze(unit.repeat(10000));
      assert.equal(analysis.batches.length, 1);
    }
  });

  describe('XE XML reader', () => {
    const valid = readFileSync(join(__dirname, '../fixtures/xe/ring_buffer_basic.xml'), 'utf8');
    const eventTags = (xml: string) => xml.match(/<event[\s>/]/g)?.length ?? 0;

    function checkRead(xml: string): void {
      const result = timed(`readRingBufferXml(${xml.length} chars)`, () => readRingBufferXml(xml));
      assert.ok(result.events.length <= eventTags(xml), `${result.events.length} events from ${eventTags(xml)} <event tags`);
      assert.ok(Array.isArray(result.notes));
      for (const n of Object.values(result.lost)) assert.ok(Number.isFinite(n), `lost ${JSON.stringify(result.lost)}`);
    }

    it('valid fixture still parses (the mutations below start from real events)', () => {
      const result = readRingBufferXml(valid);
      assert.equal(result.parseError, null);
      assert.ok(result.events.length > 0 && result.events.length === eventTags(valid));
    });

    it('never throws on arbitrary text and never reports more events than <event tags', () => {
      const xmlish = fc.array(fc.constantFrom('<event', ' name="log_flush_start"', '>', '</event>', '<data name="x">', '<value>', '1', '</value>', '</data>', '<RingBufferTarget eventCount="-1" truncated="1">', '</RingBufferTarget>', '<![CDATA[', ']]>', '&amp;', '&#xD800;', '&bogus;', '<!--', '-->', '<?xml?>', '"', "'", '/>', '\u0000'), { maxLength: 200 }).map((p) => p.join(''));
      fc.assert(fc.property(fc.oneof(fc.string({ maxLength: 3000 }), xmlish), checkRead), { numRuns: 400 });
    });

    it('never throws on mutated valid XML (cut, duplicated, spliced, truncated)', () => {
      const mutation = fc.oneof(
        fc.tuple(fc.nat(valid.length), fc.nat(200)).map(([at, n]) => valid.slice(0, at) + valid.slice(at + n)),
        fc.tuple(fc.nat(valid.length), fc.nat(valid.length)).map(([a, b]) => valid.slice(0, Math.max(a, b)) + valid.slice(Math.min(a, b))),
        fc.tuple(fc.nat(valid.length), fc.string({ maxLength: 20 })).map(([at, s]) => valid.slice(0, at) + s + valid.slice(at)),
        fc.nat(valid.length).map((at) => valid.slice(0, at)),
        fc.tuple(fc.nat(valid.length), fc.constantFrom('<', '>', '"', '&', '/', '\u0000')).map(([at, ch]) => valid.slice(0, at) + ch + valid.slice(at + 1)),
      );
      fc.assert(fc.property(mutation, checkRead), { numRuns: 400 });
    });
  });

  describe('XE event_file rows', () => {
    const event = readFileSync(join(__dirname, '../fixtures/xe/ring_buffer_basic.xml'), 'utf8').match(/<event[\s\S]*?<\/event>/)![0];
    const value = fc.oneof(fc.string({ maxLength: 200 }), fc.constant(event), fc.nat(event.length).map((n) => event.slice(0, n)), fc.constant(null), fc.integer(), fc.bigInt());
    const row = fc.record({ event_data: value, file_name: fc.oneof(fc.string({ maxLength: 30 }), fc.constant(null), fc.integer()), file_offset: value });

    it('never throw, never report more events than rows with <event tags, and keep a well-formed cursor', () => {
      fc.assert(
        fc.property(fc.array(row, { maxLength: 20 }), (rows) => {
          const read = timed('readEventFileRows', () => readEventFileRows(rows, null));
          const tags = rows.reduce((n, r) => n + (typeof r.event_data === 'string' ? (r.event_data.match(/<event[\s>/]/g)?.length ?? 0) : 0), 0);
          assert.ok(read.events.length <= tags, `${read.events.length} events from ${tags} <event tags`);
          if (read.cursor) assert.match(read.cursor.offset, /^\d+$/);
        }),
        { numRuns: 300 },
      );
    });
  });

  describe('stand-in TDS parsers on raw buffers', () => {
    /** A parser may refuse garbage, but only with its own protocol error: anything else would be a parser bug. */
    function refusesCleanly(what: string, fn: () => unknown): void {
      try {
        timed(what, fn);
      } catch (err) {
        if (err instanceof TdsProtocolError) return;
        throw new Error(`${what} threw ${(err as Error)?.name}: ${(err as Error)?.message}`, { cause: err });
      }
    }
    const bytes = fc.uint8Array({ maxLength: 600 }).map((b) => Buffer.from(b));

    it('request, PRELOGIN and LOGIN7 parsers', () => {
      fc.assert(
        fc.property(bytes, (buf) => {
          refusesCleanly('parseSqlBatch', () => parseSqlBatch(buf));
          refusesCleanly('parseRpc', () => parseRpc(buf));
          refusesCleanly('parseTransactionManager', () => parseTransactionManager(buf));
          refusesCleanly('parsePrelogin', () => parsePrelogin(buf));
          refusesCleanly('parseLogin7', () => parseLogin7(buf));
        }),
        { numRuns: 500 },
      );
    });

    const typedValue = (buf: Buffer) => {
      const info = readTypeInfo(buf, 0);
      return readTypedValue(buf, info.offset, info.value);
    };

    it('TYPE_INFO and typed values never hang and refuse garbage only with TdsProtocolError', () => {
      fc.assert(fc.property(bytes, (buf) => refusesCleanly('readTypeInfo + readTypedValue', () => typedValue(buf))), { numRuns: 500 });
    });

    it('a typed value whose length byte does not fit its type is refused with TdsProtocolError, not read past', () => {
      // The value's length byte comes from the client (found by fuzzing: DATETIME2N / DATETIMN of 1 byte).
      const refused = (what: string, buf: Buffer) => assert.throws(() => typedValue(buf), TdsProtocolError, what);
      refused('DATETIME2N, scale 0, length 1', Buffer.from([0x2a, 0, 1, 0]));
      refused('DATETIMN, length 1', Buffer.from([0x6f, 0, 1, 0]));
      refused('DATEN, length 2', Buffer.from([0x28, 2, 0, 0]));
      refused('TIMEN, scale 7, length 3', Buffer.from([0x29, 7, 3, 0, 0, 0]));
      refused('DATETIMEOFFSETN, scale 7, length 9', Buffer.from([0x2b, 7, 9, ...Array<number>(9).fill(0)]));
      refused('DECIMALN, length 1 (sign only)', Buffer.from([0x6a, 17, 18, 2, 1, 1]));
      refused('GUID, length 4', Buffer.from([0x24, 16, 4, 1, 2, 3, 4]));
      refused('INTN, length 3', Buffer.from([0x26, 4, 3, 1, 2, 3]));
      refused('FLTN, length 2', Buffer.from([0x6d, 8, 2, 1, 2]));
      refused('BITN, length 2', Buffer.from([0x68, 1, 2, 1, 1]));
      // The well-formed values still decode (scale 0 DATETIME2N: 3 time bytes + 3 date bytes).
      assert.equal(typedValue(Buffer.from([0x26, 4, 4, 0x2a, 0, 0, 0])).value, 42);
      assert.equal(typedValue(Buffer.from([0x6a, 5, 9, 2, 5, 1, 0xe2, 0x04, 0, 0])).value, '12.50');
      assert.equal((typedValue(Buffer.from([0x2a, 0, 6, 0, 0, 0, 0x3a, 0xf9, 0x0a])).value as Date).toISOString(), '1970-01-01T00:00:00.000Z');
    });

    it('sp_executesql @params declarations', () => {
      fc.assert(fc.property(fc.string({ maxLength: 300 }), (params) => refusesCleanly('parseParameterDeclarations', () => parseParameterDeclarations(params))), { numRuns: 300 });
    });

    it('packet reassembly of arbitrary chunks', () => {
      fc.assert(
        fc.property(fc.array(bytes, { maxLength: 8 }), (chunks) => {
          const assembler = new MessageAssembler();
          refusesCleanly('MessageAssembler.push', () => {
            for (const c of chunks) assembler.push(c);
          });
        }),
        { numRuns: 500 },
      );
    });
  });

  describe('sinks of hostile strings', () => {
    // Names as a hostile server or file would send them: escape sequences, markup, table and line breakers.
    const hostilePiece = fc.constantFrom('\x1b[2J', '\x1b]52;c;ZXZpbA==\x07', '\x9b31m', '\u202e', '\r', '\n', '|', '<img src=x>', '[a](http://e)', '![i](http://t)', '`', '\\', '&lt;', '# h', '*', 'é', '🚀');
    const hostileName = fc.oneof(fc.string({ unit: 'binary', maxLength: 80 }), fc.array(hostilePiece, { maxLength: 12 }).map((p) => p.join('')));

    it('terminal: nothing any CLI command prints holds a control or bidi character', async () => {
      await fc.assert(
        fc.asyncProperty(hostileName, async (name) => {
          const written: string[] = [];
          const io = { stdout: (t: string) => written.push(t), stderr: (t: string) => written.push(t), readFile: () => '' };
          const echo = { name: 'echo', summary: '', usage: '', run: async (_a: readonly string[], cio: typeof io) => (cio.stdout(JSON.stringify({ name })), cio.stdout(`${name}\n`), cio.stderr(name), 0) };
          await runCli(['echo'], io, [echo]);
          for (const w of written) assert.ok(isTerminalSafe(w), JSON.stringify(w));
          assert.equal(JSON.parse(written[0]!).name, name);
        }),
        { numRuns: 300 },
      );
    });

    it('Markdown: a hostile database, server, title or note renders as text: no HTML, link, image, heading or table cell', () => {
      const base = buildComparisonModel([makeRun({ mode: 'DISABLED' }), makeRun({ mode: 'FORCED' })]);
      const shape = (html: string) => ({
        tags: [...new Set(html.match(/<[a-z0-9]+/g) ?? [])].sort(),
        headings: (html.match(/<h[1-6]>/g) ?? []).length,
        cells: (html.match(/<t[dh][ >]/g) ?? []).length,
        items: (html.match(/<li>/g) ?? []).length,
      });
      const plain = shape(markdown.render(toMarkdown({ ...base, database: 'db', server: 'srv', notes: ['n'] }, 't')));
      fc.assert(
        fc.property(hostileName, (name) => {
          const text = timed('toMarkdown', () => toMarkdown({ ...base, database: name || 'db', server: name || 'srv', notes: [name] }, name));
          assert.ok(isTerminalSafe(text), 'a control character reached the Markdown');
          const got = shape(markdown.render(text));
          // Same elements as with plain names, except that a name may be shown in a code span or emphasis.
          assert.deepEqual({ ...got, tags: got.tags.filter((t) => t !== '<code' && t !== '<em' && t !== '<strong') }, { ...plain, tags: plain.tags.filter((t) => t !== '<code' && t !== '<em' && t !== '<strong') }, text);
        }),
        { numRuns: 300 },
      );
    });

    it('clipboard: every rebuilt GRANT is one of our statements with bracket-quoted names, whatever the facts say', () => {
      const statement = /^(USE \[(?:[^\]]|\]\])*\];\n|-- run while connected to [^\n\r\u2028\u2029]*\n)GRANT [A-Z ]+(?: ON DATABASE::\[(?:[^\]]|\]\])*\])? TO \[(?:[^\]]|\]\])*\];$/;
      fc.assert(
        fc.property(
          fc.record({
            measurements: fc.array(fc.oneof(fc.constantFrom('fileStats', 'vlfs', 'durabilityToggle', 'extendedEvents', 'hostInfo', 'waitStats'), fc.string(), fc.anything()), { maxLength: 6 }),
            majorVersion: fc.oneof(fc.integer({ min: 9, max: 17 }), fc.anything()),
            engineEdition: fc.oneof(fc.constantFrom(2, 3, 5, 8), fc.anything()),
            loginName: fc.oneof(hostileName, fc.anything()),
            userName: fc.oneof(hostileName, fc.anything()),
            databaseName: fc.oneof(hostileName, fc.anything()),
          }),
          (facts) => {
            for (const g of rebuildGrants(facts)) assert.match(g, statement);
          },
        ),
        { numRuns: 500 },
      );
    });
  });
});
