// Generated scripts with known meaning: nested blocks, loops, TRY/CATCH, transactions across batches with guards, and
// routine headers of every form. Invariants: every BEGIN TRAN/COMMIT/ROLLBACK keyword outside comments, strings and
// identifiers is reported exactly once, at its place, with its transaction depth and loop nesting; every routine is
// found with its name and kind, and its body is analysed.
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { analyze } from '../../../src/tsql/analyze';
import type { Position } from '../../../src/tsql/types';

type Stmt =
  | { t: 'dml'; v: number }
  | { t: 'decoy'; v: number }
  | { t: 'block'; body: Stmt[] }
  | { t: 'while'; body: Stmt[] }
  | { t: 'if'; then: Stmt[]; else: Stmt[] | null }
  | { t: 'tran'; body: Stmt[]; end: number };

type TopItem =
  | { t: 'stmt'; s: Stmt }
  | { t: 'open' }
  | { t: 'close' }
  | { t: 'closeAll'; v: number }
  | { t: 'try'; body: Stmt[] };

interface Routine { header: string; name: string; kind: 'PROCEDURE' | 'FUNCTION' | 'TRIGGER'; wrap: boolean; body: Stmt[] }
type Batch = { t: 'plain'; items: TopItem[] } | { t: 'routine'; r: Routine };

const DML = ['INSERT dbo.t (a) VALUES (1)', 'UPDATE dbo.t SET a = a + 1 WHERE id = @id', 'DELETE FROM dbo.t WHERE a = 0'];
// Words that look like transaction statements but are comments, strings, identifiers or option clauses.
const DECOYS = [
  "PRINT 'COMMIT TRAN'", '-- ROLLBACK\n', '/* BEGIN TRAN /* COMMIT */ */ SELECT 1', 'SELECT [COMMIT], "ROLLBACK" FROM dbo.[BEGIN TRAN]',
  'ALTER DATABASE d SET SINGLE_USER WITH ROLLBACK IMMEDIATE', 'ALTER DATABASE d SET OFFLINE WITH ROLLBACK AFTER 5 SECONDS',
  "SELECT N'BEGIN TRANSACTION' AS [ROLLBACK]",
];
const ENDS = ['COMMIT', 'COMMIT TRAN', 'COMMIT TRANSACTION', 'COMMIT WORK', 'ROLLBACK', 'ROLLBACK TRAN'];
const CLOSE_ALL = ['WHILE @@TRANCOUNT > 0 COMMIT', 'WHILE @@TRANCOUNT > 0 ROLLBACK', 'IF @@TRANCOUNT > 0 ROLLBACK', 'IF XACT_STATE() <> 0 ROLLBACK TRANSACTION'];

const stmt: fc.Memo<Stmt> = fc.memo((n) => {
  if (n <= 1) return fc.oneof(fc.record({ t: fc.constant('dml' as const), v: fc.nat(DML.length - 1) }), fc.record({ t: fc.constant('decoy' as const), v: fc.nat(DECOYS.length - 1) }));
  const list = fc.array(stmt(n - 1), { maxLength: 3 });
  return fc.oneof(
    { weight: 2, arbitrary: fc.record({ t: fc.constant('dml' as const), v: fc.nat(DML.length - 1) }) },
    { weight: 1, arbitrary: fc.record({ t: fc.constant('decoy' as const), v: fc.nat(DECOYS.length - 1) }) },
    { weight: 1, arbitrary: fc.record({ t: fc.constant('block' as const), body: list }) },
    { weight: 2, arbitrary: fc.record({ t: fc.constant('while' as const), body: list }) },
    { weight: 1, arbitrary: fc.record({ t: fc.constant('if' as const), then: list, else: fc.option(list, { nil: null }) }) },
    { weight: 3, arbitrary: fc.record({ t: fc.constant('tran' as const), body: list, end: fc.nat(ENDS.length - 1) }) },
  );
});

const topItem: fc.Arbitrary<TopItem> = fc.oneof(
  { weight: 4, arbitrary: stmt(4).map((s) => ({ t: 'stmt' as const, s })) },
  { weight: 2, arbitrary: fc.constant({ t: 'open' as const }) },
  { weight: 2, arbitrary: fc.constant({ t: 'close' as const }) },
  { weight: 1, arbitrary: fc.nat(CLOSE_ALL.length - 1).map((v) => ({ t: 'closeAll' as const, v })) },
  { weight: 1, arbitrary: fc.array(stmt(3), { maxLength: 3 }).map((body) => ({ t: 'try' as const, body })) },
);

// ---- routine headers ----------------------------------------------------------------------------------------------

const NAMES: [string, string][] = [
  ['p', 'p'], ['dbo.p', 'dbo.p'], ['[dbo].[Load Rows]', 'dbo.Load Rows'], ['"dbo"."p x"', 'dbo.p x'], ['srv.db.dbo.p', 'srv.db.dbo.p'],
  ['db..p', 'db..p'], ['dbo.[AS]', 'dbo.AS'], ['dbo . p', 'dbo.p'],
];
const w = fc.constantFrom(' ', '\n', '\r\n', '\t', '  \n    ');
const pick = <T>(items: readonly T[]) => fc.constantFrom(...items);

const procedure = fc.tuple(
  pick(['CREATE PROCEDURE', 'CREATE PROC', 'ALTER PROCEDURE', 'CREATE OR ALTER PROC', 'create   procedure']),
  pick([...NAMES, ['#tmp_load', '#tmp_load'] as [string, string]]), pick(['', ';2']),
  pick(['', '@a int', "@a int = 5, @b varchar(10) = 'AS' OUTPUT", '(@a int = 1, @t dbo.TT READONLY, @c AS int OUT)', "\n  @a int,\n  @b nvarchar(max) = N'x'\n", '()']),
  pick(['', 'WITH RECOMPILE', 'WITH EXECUTE AS OWNER', "WITH EXECUTE AS 'loader', RECOMPILE", 'WITH NATIVE_COMPILATION, SCHEMABINDING', 'FOR REPLICATION', 'WITH ENCRYPTION, EXEC AS CALLER']),
  w, w,
).map(([verb, [name, expected], number, params, options, s1, s2]) => ({
  header: [verb, `${name}${number}`, params, options, 'AS'].filter(Boolean).join(s1) + s2, name: expected, kind: 'PROCEDURE' as const,
}));

const func = fc.tuple(
  pick(['CREATE FUNCTION', 'ALTER FUNCTION', 'CREATE OR ALTER FUNCTION']), pick(NAMES),
  pick(['()', '(@a int)', '(@a int = 1, @b AS date)']),
  pick(['RETURNS int', 'RETURNS @r TABLE (id int, n varchar(9))', 'RETURNS TABLE']),
  pick(['', 'WITH SCHEMABINDING', 'WITH RETURNS NULL ON NULL INPUT, SCHEMABINDING', 'WITH EXECUTE AS CALLER']), w, w,
).map(([verb, [name, expected], params, returns, options, s1, s2]) => ({
  header: [verb, `${name}${params}`, returns, options, 'AS'].filter(Boolean).join(s1) + s2, name: expected, kind: 'FUNCTION' as const,
}));

const trigger = fc.tuple(
  pick(['CREATE TRIGGER', 'ALTER TRIGGER', 'CREATE OR ALTER TRIGGER']), pick(NAMES),
  pick(['ON dbo.t', 'ON [dbo].[Order Lines]', 'ON DATABASE', 'ON ALL SERVER']), pick(['', 'WITH EXECUTE AS CALLER', 'WITH ENCRYPTION']),
  pick(['FOR INSERT', 'AFTER INSERT, UPDATE', 'INSTEAD OF DELETE', 'FOR DROP_TABLE, ALTER_TABLE', 'AFTER UPDATE NOT FOR REPLICATION', 'FOR LOGON']), w, w,
).map(([verb, [name, expected], on, options, timing, s1, s2]) => ({
  header: [verb, name, on, options, timing, 'AS'].filter(Boolean).join(s1) + s2, name: expected, kind: 'TRIGGER' as const,
}));

const routine: fc.Arbitrary<Routine> = fc.tuple(fc.oneof(procedure, func, trigger), fc.boolean(), fc.array(stmt(3), { maxLength: 3 }))
  .map(([h, wrap, body]) => ({ ...h, wrap, body }));

const batch: fc.Arbitrary<Batch> = fc.oneof(
  { weight: 3, arbitrary: fc.array(topItem, { minLength: 1, maxLength: 4 }).map((items) => ({ t: 'plain' as const, items })) },
  { weight: 2, arbitrary: routine.map((r) => ({ t: 'routine' as const, r })) },
);

// ---- rendering with expectations ------------------------------------------------------------------------------------

interface Expected { kind: 'BEGIN TRAN' | 'COMMIT' | 'ROLLBACK'; offset: number; depth: number; inLoop: boolean }

class Renderer {
  text = '';
  expected: Expected[] = [];
  routines: { name: string; kind: string; sentinel: number }[] = [];
  depth = 0;
  private sepIndex = 0;
  constructor(private readonly seps: string[]) {}

  private sep(): string {
    return this.seps[this.sepIndex++ % this.seps.length]!;
  }

  private emit(text: string): void {
    this.text += text;
  }

  private tx(kind: Expected['kind'], text: string, inLoop: boolean): void {
    this.expected.push({ kind, offset: this.text.length, depth: this.depth, inLoop });
    this.emit(text);
  }

  statements(list: Stmt[], inLoop: boolean): void {
    for (const s of list) { this.statement(s, inLoop); this.emit(this.sepIndex % 3 === 0 ? ';\n' : '\n'); this.sep(); }
  }

  statement(s: Stmt, inLoop: boolean): void {
    switch (s.t) {
      case 'dml': this.emit(DML[s.v]!); break;
      case 'decoy': this.emit(DECOYS[s.v]!); break;
      case 'block': this.emit(`BEGIN${this.sep()}`); this.statements(s.body, inLoop); this.emit('END'); break;
      case 'while': this.emit(`WHILE @i < 10${this.sep()}BEGIN\n`); this.statements(s.body, true); this.emit('SET @i += 1\nEND'); break;
      case 'if':
        this.emit(`IF @x = 1${this.sep()}BEGIN\n`); this.statements(s.then, inLoop); this.emit('END');
        if (s.else) { this.emit(`${this.sep()}ELSE BEGIN\n`); this.statements(s.else, inLoop); this.emit('END'); }
        break;
      case 'tran': {
        // ROLLBACK ends every open transaction, so only an outermost transaction may end with one (keeps it balanced).
        const end = this.depth === 0 ? ENDS[s.end]! : ENDS[s.end % 4]!;
        this.tx('BEGIN TRAN', 'BEGIN TRAN', inLoop); this.depth++; this.emit('\n');
        this.statements(s.body, inLoop);
        this.tx(end.startsWith('COMMIT') ? 'COMMIT' : 'ROLLBACK', end, inLoop);
        this.depth--;
        break;
      }
    }
  }

  top(item: TopItem): void {
    switch (item.t) {
      case 'stmt': this.statement(item.s, false); break;
      case 'open': this.tx('BEGIN TRAN', 'BEGIN TRANSACTION', false); this.depth++; break;
      case 'close':
        if (this.depth === 0) { this.emit('PRINT 1'); break; }
        this.depth--;
        this.tx('COMMIT', 'COMMIT', false);
        this.expected[this.expected.length - 1]!.depth = this.depth + 1;
        break;
      case 'closeAll': {
        const text = CLOSE_ALL[item.v]!;
        const at = text.search(/COMMIT|ROLLBACK/);
        this.emit(text.slice(0, at));
        this.tx(text.slice(at).startsWith('COMMIT') ? 'COMMIT' : 'ROLLBACK', text.slice(at), false);
        this.depth = 0;
        break;
      }
      case 'try': {
        const before = this.depth;
        this.emit('BEGIN TRY\n');
        this.statements(item.body, false);
        this.emit('END TRY\nBEGIN CATCH\n  IF @@TRANCOUNT > 0 ');
        // CATCH starts in the deepest state TRY reached: an error can leave TRY anywhere.
        this.depth = before + maxNesting(item.body);
        this.tx('ROLLBACK', 'ROLLBACK', false);
        this.emit(';\n  THROW;\nEND CATCH');
        this.depth = before === 0 ? 0 : before;
        break;
      }
    }
  }

  batch(b: Batch): void {
    if (b.t === 'plain') {
      for (const item of b.items) { this.top(item); this.emit('\n'); }
      return;
    }
    const session = this.depth;
    const r = b.r;
    this.emit(r.header);
    // A trigger body runs inside the firing statement's transaction.
    this.depth = r.kind === 'TRIGGER' ? 1 : 0;
    if (r.wrap) this.emit('BEGIN\n');
    this.routines.push({ name: r.name, kind: r.kind, sentinel: this.text.length });
    this.emit('INSERT dbo.sentinel VALUES (1);\n');
    this.statements(r.body, false);
    if (r.wrap) this.emit('END\n');
    this.depth = session;
  }
}

function maxNesting(list: Stmt[]): number {
  let max = 0;
  for (const s of list) {
    const inner = s.t === 'block' || s.t === 'while' ? maxNesting(s.body)
      : s.t === 'if' ? Math.max(maxNesting(s.then), s.else ? maxNesting(s.else) : 0)
        : s.t === 'tran' ? 1 + maxNesting(s.body) : 0;
    max = Math.max(max, inner);
  }
  return max;
}

/** Offset → position, computed here (not with src/tsql/lines.ts). */
function positionAt(text: string, offset: number): Position {
  const before = text.slice(0, offset).split(/\r\n|\r|\n/);
  return { line: before.length - 1, character: before[before.length - 1]!.length };
}

function render(batches: Batch[], seps: string[]): Renderer {
  const r = new Renderer(seps);
  batches.forEach((b, i) => {
    if (i > 0) r.text += 'GO\n';
    r.batch(b);
  });
  return r;
}

const script = fc.tuple(fc.array(batch, { minLength: 1, maxLength: 5 }), fc.array(fc.constantFrom(' ', '\n', '\r\n', '\t ', '\n\n'), { minLength: 1, maxLength: 8 }));

describe('tsql generated scripts', () => {
  it('reports every BEGIN TRAN / COMMIT / ROLLBACK keyword exactly once, at its place, with its depth and loop nesting', () => {
    fc.assert(fc.property(script, ([batches, seps]) => {
      const r = render(batches, seps);
      const a = analyze(r.text);
      const got = (a.transactions ?? []).map((t) => ({ kind: t.kind, at: t.keywordRange.start, depth: t.depth, inLoop: t.inLoop }));
      const want = r.expected.map((e) => ({ kind: e.kind, at: positionAt(r.text, e.offset), depth: e.depth, inLoop: e.inLoop }));
      assert.deepEqual(got, want, r.text);
    }), { numRuns: 400 });
  });

  it('finds every routine with its name and kind, and analyses its body from the first statement', () => {
    fc.assert(fc.property(script, ([batches, seps]) => {
      const r = render(batches, seps);
      const a = analyze(r.text);
      assert.deepEqual((a.routines ?? []).map((x) => [x.kind, x.name]), r.routines.map((x) => [x.kind, x.name]), r.text);
      for (const [i, routine] of r.routines.entries()) {
        const sentinel = positionAt(r.text, routine.sentinel);
        const found = a.routines![i]!;
        assert.ok(found.bodyRange.start.line <= sentinel.line, `${routine.name}: body starts after the first statement\n${r.text}`);
        assert.ok(a.dml.some((d) => d.range.start.line === sentinel.line && d.range.start.character === sentinel.character),
          `${routine.name}: the body's first statement was not analysed\n${r.text}`);
      }
    }), { numRuns: 400 });
  });

  it('never flags a transaction statement the generator balanced or guarded', () => {
    fc.assert(fc.property(script, ([batches, seps]) => {
      const r = render(batches, seps);
      // Top-level BEGIN TRAN left open at the end is the only unbalanced thing the generator writes.
      const a = analyze(r.text);
      const unbalanced = a.diagnostics.filter((d) => d.code === 'unbalanced-transaction');
      for (const d of unbalanced) assert.match(d.message, /^BEGIN TRAN has no COMMIT/, r.text);
      assert.ok(unbalanced.length <= r.depth, r.text);
    }), { numRuns: 300 });
  });
});
