// Typed RPC parameters: each CallParameterType maps to the tedious type of that name, with the declared
// length/precision/scale, `max` as the PLP form, OUTPUT parameters by reference.
import * as assert from 'node:assert/strict';
import { Request, TYPES } from 'tedious';
import { addCallParameters, callParameterOptions, exactDecimalMagnitude, tediousDecimalMagnitude, tediousTypeOf, wireParameter } from '../../../src/db/procedureCall';
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

  it('sends a decimal as decimal when tedious would write its exact magnitude, else as nvarchar for the server to convert (review D5)', () => {
    const small = wireParameter({ name: 'd', type: 'decimal', precision: 9, scale: 2, value: '-1.25', output: false });
    assert.deepEqual([small.type, small.value, small.options], [TYPES.Decimal, -1.25, { precision: 9, scale: 2 }]);
    const big = wireParameter({ name: 'd', type: 'decimal', precision: 38, scale: 0, value: '12345678901234567890123', output: false });
    assert.deepEqual([big.type, big.value], [TYPES.NVarChar, '12345678901234567890123']);
    // What tedious itself would have sent: the double, not the value.
    assert.notEqual(tediousDecimalMagnitude('12345678901234567890123', 0), 12345678901234567890123n);
    const fine = wireParameter({ name: 'd', type: 'numeric', precision: 30, scale: 10, value: '0.0000000001', output: true });
    assert.equal(fine.type, TYPES.Numeric);
    const deep = wireParameter({ name: 'd', type: 'numeric', precision: 30, scale: 10, value: '12345678.0123456789', output: true });
    assert.deepEqual([deep.type, deep.value], [TYPES.NVarChar, '12345678.0123456789']);
  });

  it('sends typed exactly the values whose tedious magnitude equals the exact one, over many digit counts and scales', () => {
    // Deterministic sweep: every digit count 1–38 at scales 0, 2, 10; the chosen wire type never carries a rounded value.
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648);
    for (const scale of [0, 2, 10]) {
      for (let digits = 1; digits <= 38 - scale; digits++) {
        const whole = String(1 + (next() % 9)) + Array.from({ length: digits - 1 }, () => String(next() % 10)).join('');
        const fraction = Array.from({ length: scale }, () => String(next() % 10)).join('');
        const text = scale ? `${whole}.${fraction}` : whole;
        const wire = wireParameter({ name: 'd', type: 'decimal', precision: 38, scale, value: text, output: false });
        const exact = exactDecimalMagnitude(text, scale);
        if (wire.type === TYPES.Decimal) assert.equal(tediousDecimalMagnitude(String(wire.value), scale), exact, text);
        else assert.equal(wire.value, text);
        if (digits + scale <= 15) assert.equal(wire.type, TYPES.Decimal, `${text}: 15 digits fit a double`);
      }
    }
  });
});
