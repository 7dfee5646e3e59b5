// Routine headers whose AS is left out (issue 26): a function's AS is optional (Learn, CREATE FUNCTION:
// `RETURNS return_data_type [ WITH <function_option> ] [ AS ] BEGIN …`), so its body must start at BEGIN / RETURN /
// EXTERNAL, not at its final END or at the first `AS` of its body. Minimal reproductions written here.
import * as assert from 'node:assert/strict';
import { analyze } from '../../../src/tsql/analyze';
import { procedureSignature } from '../../../src/tsql/procedureParameters';
import { positionOf, script } from './helpers';

describe('tsql routine headers without AS', () => {
  it('starts a scalar function body at BEGIN, not at its final END', () => {
    const text = script('CREATE FUNCTION dbo.add_one(@a int) RETURNS int', 'BEGIN', '  RETURN @a + 1;', 'END');
    const [r] = analyze(text).routines!;
    assert.deepEqual([r!.kind, r!.name, r!.external], ['FUNCTION', 'dbo.add_one', false]);
    assert.deepEqual(r!.bodyRange.start, positionOf(text, 'BEGIN'));
    assert.deepEqual(r!.bodyRange.end, { line: 3, character: 3 }, 'the body runs to the end of the routine');
  });

  it('does not take an AS inside the body (a table alias) for the end of the header', () => {
    const text = script(
      'CREATE FUNCTION dbo.next_id(@step int) RETURNS int WITH SCHEMABINDING, RETURNS NULL ON NULL INPUT',
      'BEGIN',
      '  DECLARE @r int;',
      '  SELECT @r = MAX(x.id) + @step FROM dbo.t AS x;',
      '  RETURN @r;',
      'END',
    );
    const a = analyze(text);
    assert.deepEqual(a.routines!.map((r) => r.bodyRange.start), [positionOf(text, 'BEGIN')]);
    assert.deepEqual(a.statements!.filter((s) => s.kind === 'block').map((s) => s.range.start), [positionOf(text, 'BEGIN')]);
  });

  it('starts an inline table-valued function without AS at RETURN, and a multi-statement one at BEGIN', () => {
    const inline = script('CREATE OR ALTER FUNCTION dbo.rows_of(@a int) RETURNS TABLE', 'RETURN SELECT id FROM dbo.t WHERE a = @a;');
    assert.deepEqual(analyze(inline).routines!.map((r) => r.bodyRange.start), [positionOf(inline, 'RETURN SELECT')]);
    const multi = script(
      'ALTER FUNCTION dbo.pairs() RETURNS @r TABLE (id int, note varchar(10))',
      'BEGIN', '  INSERT @r VALUES (1, \'a\');', '  RETURN;', 'END',
    );
    const a = analyze(multi);
    assert.deepEqual(a.routines!.map((r) => r.bodyRange.start), [positionOf(multi, 'BEGIN')]);
    assert.deepEqual(a.dml.map((d) => d.kind), ['INSERT']);
  });

  it('reads a CLR function without AS as external, and a natively compiled one from BEGIN ATOMIC', () => {
    const clr = 'CREATE FUNCTION dbo.clr_f(@a int) RETURNS int EXTERNAL NAME Asm.[Ns.Cls].F';
    assert.deepEqual(analyze(clr).routines!.map((r) => [r.name, r.external]), [['dbo.clr_f', true]]);
    const native = script(
      'CREATE FUNCTION dbo.n(@a int) RETURNS int WITH NATIVE_COMPILATION, SCHEMABINDING, EXECUTE AS OWNER',
      "BEGIN ATOMIC WITH (TRANSACTION ISOLATION LEVEL = SNAPSHOT, LANGUAGE = N'English')",
      '  RETURN @a;', 'END',
    );
    const a = analyze(native);
    assert.deepEqual(a.routines!.map((r) => r.bodyRange.start), [positionOf(native, 'BEGIN ATOMIC')]);
    assert.deepEqual(a.statements!.filter((s) => s.kind === 'atomic-block').length, 1);
  });

  it('still ends a header with AS at its AS, even when the body opens with BEGIN', () => {
    const text = script('CREATE FUNCTION dbo.f() RETURNS int AS', 'BEGIN', '  RETURN 1;', 'END');
    assert.deepEqual(analyze(text).routines!.map((r) => r.bodyRange.start), [positionOf(text, 'BEGIN')]);
  });

  it('reads a procedure typed without its (required) AS from BEGIN, with its whole parameter list', () => {
    const text = script(
      'CREATE PROCEDURE dbo.load @n int, @note varchar(20) = NULL',
      'BEGIN',
      '  DECLARE @i int = 0;',
      '  WHILE @i < @n',
      '  BEGIN',
      '    INSERT dbo.t (a) VALUES (@i);',
      '    SET @i += 1;',
      '  END',
      'END',
    );
    const a = analyze(text);
    const [r] = a.routines!;
    assert.deepEqual(r!.bodyRange.start, positionOf(text, 'BEGIN'));
    assert.deepEqual(r!.signature!.parameters.map((p) => [p.name, p.type.text, p.default?.text ?? null]), [['@n', 'int', null], ['@note', 'varchar(20)', 'NULL']]);
    assert.deepEqual(a.diagnostics.map((d) => d.code), ['autocommit-dml-in-loop']);
    assert.match(a.diagnostics[0]!.message, /called with no transaction open/);
    assert.deepEqual(procedureSignature('CREATE PROCEDURE dbo.p @a int')!.parameters.map((p) => p.type.text), ['int']);
  });
});
