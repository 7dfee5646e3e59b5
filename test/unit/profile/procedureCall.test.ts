// Procedure calls from typed answers: per-type validation, the typed values the driver sends, DEFAULT/NULL, and the
// deployed-vs-editor normalisation and deploy statement.
import * as assert from 'node:assert/strict';
import { buildProcedureCall, callText, inputText, parameterValue, ParameterValueError, procedureCallName, readInput, validateInput, type ParameterInput } from '../../../src/profile/procedureCall';
import { compareDefinitions, definitionStatusText, deployStatement, normaliseDefinition, readDeployedDefinition } from '../../../src/profile/deployedDefinition';
import type { ProcedureParameterArg, ProcedureTarget } from '../../../src/shared/procedureTarget';
import type { QueryParameter, Row } from '../../../src/db/types';

function param(name: string, text: string, extra: Partial<ProcedureParameterArg> = {}): ProcedureParameterArg {
  const m = /^(\w+)(?:\((\w+)(?:,\s*(\d+))?\))?$/.exec(text)!;
  const base = m[1]!.toLowerCase();
  const a = m[2];
  const lengthy = ['char', 'varchar', 'nchar', 'nvarchar', 'binary', 'varbinary'].includes(base);
  return {
    name,
    type: {
      schema: null, name: base, text,
      length: lengthy ? (a === 'max' ? 'max' : Number(a ?? 1)) : null,
      precision: base === 'decimal' || base === 'numeric' ? Number(a ?? 18) : null,
      scale: base === 'decimal' || base === 'numeric' ? Number(m[3] ?? 0) : ['datetime2', 'time', 'datetimeoffset'].includes(base) ? Number(a ?? 7) : null,
    },
    default: null, output: false, readonly: false, notPromptable: null, ...extra,
  };
}

const value = (p: ProcedureParameterArg, text: string) => {
  const r = parameterValue(p, text);
  if ('error' in r) throw new Error(r.error);
  return r.value;
};
const error = (p: ProcedureParameterArg, text: string) => {
  const r = parameterValue(p, text);
  return 'error' in r ? r.error : null;
};

function target(parameters: ProcedureParameterArg[], notPromptable: string | null = null): ProcedureTarget {
  return {
    uri: 'file:///p.sql', version: 1, name: 'dbo.load rows', nameParts: ['dbo', 'load rows'], number: null, parameters, notPromptable,
    range: { start: { line: 4, character: 0 }, end: { line: 9, character: 3 } }, batchIndex: 1,
  };
}

describe('procedure calls', () => {
  it('reads NULL, DEFAULT and quoted literals, and shows them back the same way', () => {
    assert.deepEqual(readInput(' null '), { kind: 'null' });
    assert.deepEqual(readInput('Default'), { kind: 'default' });
    assert.deepEqual(readInput("'NULL'"), { kind: 'value', text: 'NULL' });
    assert.deepEqual(readInput("'it''s'"), { kind: 'value', text: "it's" });
    assert.deepEqual(readInput('plain text'), { kind: 'value', text: 'plain text' });
    for (const input of [{ kind: 'null' }, { kind: 'default' }, { kind: 'value', text: 'NULL' }, { kind: 'value', text: "'q'" }, { kind: 'value', text: '42' }] as ParameterInput[]) {
      assert.deepEqual(readInput(inputText(input)), input);
    }
  });

  it('checks integer ranges and sends bigint as a BigInt', () => {
    assert.equal(value(param('@a', 'int'), '-2147483648'), -2147483648);
    assert.match(error(param('@a', 'int'), '2147483648')!, /-2147483648 to 2147483647/);
    assert.match(error(param('@a', 'tinyint'), '-1')!, /0 to 255/);
    assert.match(error(param('@a', 'int'), '1.5')!, /whole number/);
    assert.equal(value(param('@a', 'bigint'), '9223372036854775807'), 9223372036854775807n);
  });

  it('checks decimal precision and scale, bit, money, GUID and binary', () => {
    const d = param('@d', 'decimal(5, 2)');
    assert.equal(value(d, '-123.45'), '-123.45');
    assert.equal(value(d, '0.50'), '0.5');
    assert.equal(value(d, '+.5'), '0.5');
    assert.equal(value(d, '-0.00'), '0');
    assert.match(error(d, '1.234')!, /keeps 2 decimal place/);
    assert.match(error(d, '1234.5')!, /at most 3 digit/);
    assert.equal(value(param('@b', 'bit'), 'TRUE'), true);
    assert.match(error(param('@b', 'bit'), 'yes')!, /bit takes/);
    assert.match(error(param('@m', 'smallmoney'), '300000')!, /smallmoney takes/);
    assert.equal(value(param('@g', 'uniqueidentifier'), '{6f9619ff-8b86-d011-b42d-00c04fc964ff}'), '6F9619FF-8B86-D011-B42D-00C04FC964FF');
    assert.deepEqual(value(param('@v', 'varbinary(2)'), '0x1F2E'), Buffer.from([0x1f, 0x2e]));
    assert.match(error(param('@v', 'varbinary(1)'), '0x1F2E')!, /at most 1 byte/);
  });

  it('checks string lengths (max has none) and keeps the text exactly as typed', () => {
    assert.equal(value(param('@s', 'nvarchar(5)'), '  a b'), '  a b');
    assert.match(error(param('@s', 'nvarchar(5)'), '123456')!, /at most 5 byte-pair/);
    assert.equal(value(param('@s', 'varchar(max)'), 'x'.repeat(10000)), 'x'.repeat(10000));
    assert.match(error(param('@c', 'char'), 'ab')!, /at most 1 byte/);
  });

  it('keeps decimal(38) values exactly as text: digits a double cannot hold are not rounded (review D5)', () => {
    assert.equal(value(param('@d', 'decimal(38, 0)'), '12345678901234567890123'), '12345678901234567890123');
    assert.equal(value(param('@d', 'numeric(30, 10)'), '-12345678901234567890.0123456789'), '-12345678901234567890.0123456789');
    assert.equal(value(param('@d', 'decimal(38, 0)'), '000099999999999999999999999999999999999999'.slice(4)), '99999999999999999999999999999999999999');
    assert.match(error(param('@d', 'decimal(38, 0)'), '1' + '0'.repeat(38))!, /at most 38 digit/);
  });

  it('counts nvarchar/nchar in UTF-16 code units and varchar/char in UTF-8 bytes, the widest code page (review D7)', () => {
    const emoji = '\u{1F600}';
    assert.equal(emoji.length, 2);
    assert.match(error(param('@n', 'nvarchar(2)'), emoji + emoji)!, /at most 2 byte-pair.*this has 4.*beyond U\+FFFF/);
    assert.equal(value(param('@n', 'nvarchar(4)'), emoji + emoji), emoji + emoji);
    assert.match(error(param('@n', 'nchar(1)'), emoji)!, /this has 2/);
    assert.equal(value(param('@n', 'nvarchar(3)'), 'éèê'), 'éèê'); // BMP characters: one byte-pair each
    assert.match(error(param('@v', 'varchar(3)'), 'éè')!, /at most 3 byte.*this has 4 counted as UTF-8/);
    assert.equal(value(param('@v', 'varchar(4)'), 'éè'), 'éè');
    assert.match(error(param('@v', 'varchar(3)'), emoji)!, /this has 4/);
    assert.equal(value(param('@v', 'varchar(3)'), 'abc'), 'abc');
    assert.equal(value(param('@v', 'varchar(max)'), emoji.repeat(5000)), emoji.repeat(5000));
  });

  it('keeps time/datetime2/datetimeoffset digits past the millisecond as nanosecondDelta, refuses digits past the scale (review D6)', () => {
    const t = value(param('@t', 'time(7)'), '12:00:00.1234567') as Date & { nanosecondDelta?: number };
    assert.equal(t.getTime(), Date.UTC(1970, 0, 1, 12, 0, 0, 123));
    assert.equal(Math.round(t.nanosecondDelta! * 1e7), 4567);
    const d = value(param('@t', 'datetime2(7)'), '2026-11-25 10:30:05.9999999') as Date & { nanosecondDelta?: number };
    assert.equal(d.getTime(), Date.UTC(2026, 10, 25, 10, 30, 5, 999));
    assert.equal(Math.round(d.nanosecondDelta! * 1e7), 9999);
    const o = value(param('@t', 'datetimeoffset(5)'), '2026-11-25T10:30:05.12345+02:00') as Date & { nanosecondDelta?: number };
    assert.equal(o.getTime(), Date.UTC(2026, 10, 25, 8, 30, 5, 123));
    assert.equal(Math.round(o.nanosecondDelta! * 1e7), 4500);
    assert.equal((value(param('@t', 'time(7)'), '12:00:00.123') as Date & { nanosecondDelta?: number }).nanosecondDelta, undefined);
    assert.match(error(param('@t', 'time(3)'), '12:00:00.1234')!, /keeps 3 fractional second digit.*this has 4/);
    assert.match(error(param('@t', 'datetime2(0)'), '2026-11-25 23:59:59.5')!, /keeps 0/);
    assert.equal((value(param('@t', 'datetime2(2)'), '2026-11-25 10:00:00.1200') as Date).getTime(), Date.UTC(2026, 10, 25, 10, 0, 0, 120));
  });

  it('reads dates and times as UTC, refuses impossible dates and a zone on types without one', () => {
    assert.deepEqual(value(param('@d', 'date'), '2026-11-25'), new Date(Date.UTC(2026, 10, 25)));
    assert.match(error(param('@d', 'date'), '2026-02-30')!, /YYYY-MM-DD/);
    assert.deepEqual(value(param('@t', 'datetime2'), '2026-11-25 10:30:05.123'), new Date(Date.UTC(2026, 10, 25, 10, 30, 5, 123)));
    assert.deepEqual(value(param('@t', 'datetimeoffset'), '2026-11-25T10:30+02:00'), new Date(Date.UTC(2026, 10, 25, 8, 30)));
    assert.match(error(param('@t', 'datetime2'), '2026-11-25T10:30Z')!, /no time zone/);
    assert.match(error(param('@t', 'datetime'), '1600-01-01')!, /1753/);
    assert.deepEqual(value(param('@t', 'time'), '23:59:59.5'), new Date(Date.UTC(1970, 0, 1, 23, 59, 59, 500)));
  });

  it('validates an answer for the input box: DEFAULT only with a default, NULL always', () => {
    assert.equal(validateInput(param('@a', 'int'), 'NULL'), null);
    assert.match(validateInput(param('@a', 'int'), 'DEFAULT')!, /no default/);
    assert.equal(validateInput(param('@a', 'int', { default: { kind: 'number', text: '5', value: '5' } }), 'default'), null);
    assert.match(validateInput(param('@a', 'int'), 'abc')!, /whole number/);
  });

  it('builds typed RPC parameters by name, leaves DEFAULT ones out, keeps declared length/precision/scale', () => {
    const t = target([
      param('@rows', 'int'),
      param('@note', 'nvarchar(20)', { default: { kind: 'string', text: "N'x'", value: 'x' } }),
      param('@amount', 'decimal(9, 2)'),
      param('@at', 'datetime2(3)', { output: true }),
    ]);
    const answers = new Map<string, ParameterInput>([
      ['@rows', { kind: 'value', text: '10' }], ['@note', { kind: 'default' }], ['@amount', { kind: 'value', text: '-1.5' }], ['@at', { kind: 'null' }],
    ]);
    assert.deepEqual(buildProcedureCall(t, answers), {
      procedure: '[dbo].[load rows]',
      parameters: [
        { name: 'rows', type: 'int', value: 10, output: false },
        { name: 'amount', type: 'decimal', value: '-1.5', output: false, precision: 9, scale: 2 },
        { name: 'at', type: 'datetime2', value: null, output: true, scale: 3 },
      ],
    });
    assert.equal(callText(t, answers), 'EXEC [dbo].[load rows] @rows = 10, @amount = -1.5, @at = NULL OUTPUT');
  });

  it('never lets a value become SQL: quotes and brackets travel as data, and the name is bracket-quoted', () => {
    const t = target([param('@note', 'nvarchar(50)')]);
    const evil = "'); DROP TABLE dbo.t; --";
    const call = buildProcedureCall(t, new Map([['@note', readInput(evil)]]));
    assert.deepEqual(call.parameters[0]!.value, evil);
    assert.equal(procedureCallName({ nameParts: ['dbo', 'a]b'], number: 2 }), '[dbo].[a]]b];2');
  });

  it('refuses a procedure the lens cannot prompt for, and a parameter with neither value nor default', () => {
    assert.throws(() => buildProcedureCall(target([], '@rows: table-valued parameter'), new Map()), ParameterValueError);
    assert.throws(() => buildProcedureCall(target([param('@a', 'int')]), new Map()), /@a \(int\) has no value and no default/);
  });
});

describe('deployed definition vs editor', () => {
  const editor = 'CREATE PROCEDURE dbo.p @a int\r\nAS\r\n  SELECT @a;   \r\n';
  it('treats line endings, trailing whitespace, leading comments and CREATE/ALTER/CREATE OR ALTER as the same', () => {
    for (const deployed of [
      'CREATE PROCEDURE dbo.p @a int\nAS\n  SELECT @a;',
      '-- deployed by CI\n/* nested /* comment */ */\nALTER PROC dbo.p @a int\nAS\n  SELECT @a;\n\n',
      'create or alter procedure dbo.p @a int\rAS\r  SELECT @a;\t',
    ]) assert.deepEqual(compareDefinitions(deployed, editor), { same: true, firstDifferentLine: null }, deployed);
  });

  it('finds the first line that differs, comments and case included', () => {
    assert.deepEqual(compareDefinitions('CREATE PROCEDURE dbo.p @a int\nAS\n  SELECT @a + 1;', editor), { same: false, firstDifferentLine: 3 });
    assert.equal(compareDefinitions('CREATE PROCEDURE dbo.p @a int\nAS\n  select @a;', editor).same, false);
    assert.equal(normaliseDefinition('  ALTER PROCEDURE x AS SELECT 1  \n\n'), 'CREATE PROCEDURE x AS SELECT 1');
  });

  it('deploys the editor text with only the header keyword changed to CREATE OR ALTER', () => {
    assert.equal(deployStatement('-- note\nALTER PROC dbo.p AS\nSELECT 1;\n'), 'CREATE OR ALTER PROCEDURE dbo.p AS\nSELECT 1;');
    assert.throws(() => deployStatement('SELECT 1'), /nothing was deployed/);
  });

  it('reads OBJECT_DEFINITION with the name as a parameter and says why a definition is missing or hidden', async () => {
    const calls: Array<{ sql: string; parameters: readonly QueryParameter[] | undefined }> = [];
    const replies: Row[][] = [[{ object_id: null, definition: null, is_encrypted: null }], [{ object_id: 7, definition: null, is_encrypted: 1 }], [{ object_id: 7, definition: null, is_encrypted: 0 }], [{ object_id: 7, definition: 'CREATE PROCEDURE p AS SELECT 1', is_encrypted: 0 }]];
    const client = { query: async (sql: string, parameters?: readonly QueryParameter[]) => { calls.push({ sql, parameters }); return replies.shift()!; }, execute: async () => undefined };
    const missing = await readDeployedDefinition(client, '[dbo].[p]');
    const encrypted = await readDeployedDefinition(client, '[dbo].[p]');
    const noPermission = await readDeployedDefinition(client, '[dbo].[p]');
    const found = await readDeployedDefinition(client, '[dbo].[p]');
    assert.deepEqual([missing, encrypted, noPermission, found], [
      { status: 'missing' }, { status: 'hidden', objectId: 7, reason: 'encrypted' }, { status: 'hidden', objectId: 7, reason: 'no-permission' },
      { status: 'found', objectId: 7, definition: 'CREATE PROCEDURE p AS SELECT 1' },
    ]);
    assert.deepEqual(calls[0]!.parameters, [{ name: 'name', type: 'nvarchar', value: '[dbo].[p]' }]);
    assert.ok(!calls[0]!.sql.includes('[dbo]'), 'the name is never in the SQL text');
    assert.match(definitionStatusText('dbo.p', '[dbo].[p]', missing, null)!, /not deployed/);
    assert.match(definitionStatusText('dbo.p', '[dbo].[p]', encrypted, null)!, /WITH ENCRYPTION/);
    assert.match(definitionStatusText('dbo.p', '[dbo].[p]', noPermission, null)!, /GRANT VIEW DEFINITION ON OBJECT::\[dbo\]\.\[p\]/);
    assert.equal(definitionStatusText('dbo.p', '[dbo].[p]', found, { same: true, firstDifferentLine: null }), null);
  });

  it('never calls a numbered (;2 and up) or temporary procedure "not deployed": says its definition cannot be compared, without a query (review D4)', async () => {
    const calls: Array<readonly QueryParameter[] | undefined> = [];
    const client = { query: async (_sql: string, parameters?: readonly QueryParameter[]) => { calls.push(parameters); return [{ object_id: 9, definition: 'CREATE PROCEDURE p;1 AS SELECT 1', is_encrypted: 0 }]; }, execute: async () => undefined };
    const numbered = await readDeployedDefinition(client, procedureCallName({ nameParts: ['dbo', 'p'], number: 2 }));
    const local = await readDeployedDefinition(client, procedureCallName({ nameParts: ['#p'], number: null }));
    const global = await readDeployedDefinition(client, procedureCallName({ nameParts: ['dbo', '##p'], number: null }));
    assert.deepEqual([numbered, local, global], [
      { status: 'not-comparable', reason: 'numbered' }, { status: 'not-comparable', reason: 'temporary' }, { status: 'not-comparable', reason: 'temporary' },
    ]);
    assert.equal(calls.length, 0, 'nothing asked of the server');
    for (const [name, d] of [['dbo.p;2', numbered], ['#p', local]] as const) {
      const text = definitionStatusText(name, '', d, null)!;
      assert.match(text, /can't be compared/);
      assert.doesNotMatch(text, /not deployed/);
    }
    assert.match(definitionStatusText('dbo.p;2', '', numbered, null)!, /sys\.numbered_procedures/);
    assert.match(definitionStatusText('#p', '', local, null)!, /tempdb/);
    // ;1 is the group's base procedure: read under the bare name, like any procedure. A name with # inside is not temporary.
    assert.equal((await readDeployedDefinition(client, procedureCallName({ nameParts: ['dbo', 'p'], number: 1 }))).status, 'found');
    assert.deepEqual(calls[0], [{ name: 'name', type: 'nvarchar', value: '[dbo].[p]' }]);
    assert.equal((await readDeployedDefinition(client, '[dbo].[p#1]')).status, 'found');
  });
});
