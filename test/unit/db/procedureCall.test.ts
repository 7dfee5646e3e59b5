// Typed RPC parameters: each CallParameterType maps to the tedious type of that name, with the declared
// length/precision/scale, `max` as the PLP form, OUTPUT parameters by reference.
import * as assert from 'node:assert/strict';
import { Request, TYPES } from 'tedious';
import { addCallParameters, callParameterOptions, tediousTypeOf } from '../../../src/db/procedureCall';
import type { CallParameterType } from '../../../src/db/types';

describe('db procedure call parameters', () => {
  it('maps every call type to the tedious type of the same SQL name', () => {
    const types: CallParameterType[] = ['bit', 'tinyint', 'smallint', 'int', 'bigint', 'decimal', 'numeric', 'money', 'smallmoney', 'float', 'real',
      'char', 'varchar', 'nchar', 'nvarchar', 'binary', 'varbinary', 'uniqueidentifier', 'date', 'time', 'datetime', 'datetime2', 'smalldatetime', 'datetimeoffset'];
    for (const t of types) assert.equal(tediousTypeOf(t).name.toLowerCase(), t, t);
  });

  it('passes the declared length, precision and scale; max becomes a length beyond the type maximum (PLP)', () => {
    assert.deepEqual(callParameterOptions({ name: 'a', type: 'nvarchar', length: 20, value: 'x', output: false }), { length: 20 });
    assert.ok(callParameterOptions({ name: 'a', type: 'varbinary', length: 'max', value: null, output: false }).length! > 8000);
    assert.deepEqual(callParameterOptions({ name: 'a', type: 'decimal', precision: 9, scale: 2, value: 1.5, output: false }), { precision: 9, scale: 2 });
  });

  it('adds input parameters and OUTPUT parameters by name to the request', () => {
    const request = new Request('[dbo].[p]', () => undefined);
    addCallParameters(request, [
      { name: 'rows', type: 'int', value: 10, output: false },
      { name: 'total', type: 'bigint', value: null, output: true },
    ]);
    const params = (request as unknown as { parameters: Array<{ name: string; type: unknown; value: unknown; output: boolean }> }).parameters;
    assert.deepEqual(params.map((p) => [p.name, p.type, p.value, p.output]), [['rows', TYPES.Int, 10, false], ['total', TYPES.BigInt, null, true]]);
  });
});
