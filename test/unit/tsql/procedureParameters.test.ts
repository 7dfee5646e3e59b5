// Procedure parameter lists: names, types with length/precision, defaults, OUTPUT/READONLY, and the forms a lens
// can't prompt for (table-valued, cursor, alias types), each with its reason.
import * as assert from 'node:assert/strict';
import { analyze } from '../../../src/tsql/analyze';
import { procedureSignature } from '../../../src/tsql/procedureParameters';

function sig(header: string) {
  const s = procedureSignature(header);
  assert.ok(s, `no signature for ${header}`);
  return s;
}

describe('tsql procedure parameters', () => {
  it('reads a parameterless procedure as an empty, promptable list', () => {
    assert.deepEqual(sig('CREATE PROCEDURE dbo.p AS'), { nameParts: ['dbo', 'p'], parameters: [], notPromptable: null });
    assert.deepEqual(sig('ALTER PROC [dbo].[load.rows] AS').nameParts, ['dbo', 'load.rows']);
    assert.deepEqual(sig('CREATE PROC p WITH RECOMPILE AS').parameters, []);
  });

  it('reads names, types with length and precision, and applies the documented defaults for omitted lengths', () => {
    const s = sig('CREATE OR ALTER PROCEDURE dbo.load @rows int, @note nvarchar(50), @amount decimal(9, 2), @blob varbinary(max), @c char, @at datetime2, @n numeric AS');
    assert.deepEqual(s.parameters.map((p) => [p.name, p.type.name, p.type.length, p.type.precision, p.type.scale]), [
      ['@rows', 'int', null, null, null],
      ['@note', 'nvarchar', 50, null, null],
      ['@amount', 'decimal', null, 9, 2],
      ['@blob', 'varbinary', 'max', null, null],
      ['@c', 'char', 1, null, null],
      ['@at', 'datetime2', null, null, 7],
      ['@n', 'numeric', null, 18, 0],
    ]);
    assert.equal(s.parameters[2]!.type.text, 'decimal(9, 2)');
    assert.equal(s.notPromptable, null);
  });

  it('reads defaults: strings with doubled quotes, N strings, negative numbers, NULL, and constants it does not evaluate', () => {
    const s = sig("ALTER PROCEDURE p @a varchar(10) = 'it''s AS', @b nvarchar(5) = N'x', @c int = -1, @d float = +2.5, @e int = NULL, @f varbinary(4) = 0x1F AS");
    assert.deepEqual(s.parameters.map((p) => p.default), [
      { kind: 'string', text: "'it''s AS'", value: "it's AS" },
      { kind: 'string', text: "N'x'", value: 'x' },
      { kind: 'number', text: '-1', value: '-1' },
      { kind: 'number', text: '+2.5', value: '2.5' },
      { kind: 'null', text: 'NULL', value: null },
      { kind: 'other', text: '0x1F', value: '0x1F' },
    ]);
  });

  it('reads OUTPUT/OUT, VARYING, AS before the type, the list in parentheses, and ignores comments', () => {
    const s = sig(['CREATE PROCEDURE [dbo].[p] ( -- the rows to load', '  @a AS int /* how many */ = 5,', '  @b int OUT,', '  @c nvarchar(10) = \'z\' OUTPUT', ')', 'WITH EXECUTE AS OWNER', 'AS'].join('\n'));
    assert.deepEqual(s.parameters.map((p) => [p.name, p.type.name, p.default?.value ?? null, p.output]), [
      ['@a', 'int', '5', false], ['@b', 'int', null, true], ['@c', 'nvarchar', 'z', true],
    ]);
    assert.equal(s.notPromptable, null);
  });

  it('stops at FOR REPLICATION and WITH options whose arguments look like parameters', () => {
    const s = sig("CREATE PROCEDURE p @a int WITH EXECUTE AS 'loader', RECOMPILE FOR REPLICATION AS");
    assert.deepEqual(s.parameters.map((p) => p.name), ['@a']);
  });

  it('says a table-valued parameter is not promptable, and why', () => {
    const s = sig('CREATE PROCEDURE dbo.p @rows dbo.RowTable READONLY, @n int AS');
    assert.equal(s.parameters[0]!.readonly, true);
    assert.equal(s.parameters[0]!.type.schema, 'dbo');
    assert.match(s.parameters[0]!.notPromptable!, /table-valued parameter \(dbo\.RowTable READONLY\)/);
    assert.equal(s.parameters[1]!.notPromptable, null);
    assert.match(s.notPromptable!, /^@rows: table-valued/);
  });

  it('says cursor and alias-type parameters are not promptable', () => {
    const s = sig('CREATE PROCEDURE p @cur CURSOR VARYING OUTPUT, @ssn dbo.SSN, @x xml AS');
    assert.equal(s.parameters[0]!.varying, true);
    assert.match(s.parameters[0]!.notPromptable!, /cursor/);
    assert.match(s.parameters[1]!.notPromptable!, /dbo\.SSN/);
    assert.match(s.parameters[2]!.notPromptable!, /xml/);
  });

  it('says a list it cannot read is not promptable instead of guessing', () => {
    const s = sig('CREATE PROCEDURE p @a int, 5 AS');
    assert.match(s.notPromptable!, /could not be read/);
  });

  it('gives functions and triggers no signature, and analyze() carries a procedure\'s with its range', () => {
    assert.equal(procedureSignature('CREATE FUNCTION dbo.f(@a int) RETURNS int AS'), null);
    const a = analyze('CREATE PROCEDURE dbo.p\r\n  @a int = 1\r\nAS\r\nBEGIN\r\n  INSERT dbo.t VALUES (@a);\r\nEND\r\nGO\r\nCREATE FUNCTION f() RETURNS int AS BEGIN RETURN 1 END');
    assert.deepEqual(a.routines!.map((r) => [r.name, r.signature?.parameters.map((p) => p.name) ?? null]), [['dbo.p', ['@a']], ['f', null]]);
  });
});
