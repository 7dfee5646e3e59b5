// Pure protocol functions of the stand-in: packet framing round trips, password obfuscation, decimal/GUID/date
// encodings read back by the decoders, the PRELOGIN answer, and the encryption negotiation table.
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { decimalToUnscaled, guidToBytes, bytesToGuid, plp, encodeResultSet } from '../standin/tds/columns';
import { deobfuscatePassword, obfuscatePassword } from '../standin/tds/login7';
import { MessageAssembler, PacketType, framePackets } from '../standin/tds/packet';
import { Encrypt, buildPreloginResponse, decideEncryption, parsePrelogin } from '../standin/tds/prelogin';
import { parseParameterDeclarations } from '../standin/tds/requests';
import { readTypeInfo, readTypedValue, unscaledToDecimal } from '../standin/tds/type-info';

describe('stand-in TDS codec', () => {
  it('reassembles any message split at any packet size, however the bytes are chunked', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 5000 }), fc.integer({ min: 512, max: 4096 }), fc.integer({ min: 1, max: 700 }), (bytes, packetSize, chunk) => {
        const payload = Buffer.from(bytes);
        const wire = Buffer.concat(framePackets(PacketType.SQL_BATCH, payload, packetSize, 1, true));
        const assembler = new MessageAssembler();
        const messages = [];
        for (let i = 0; i < wire.length; i += chunk) messages.push(...assembler.push(wire.subarray(i, i + chunk)));
        assert.equal(messages.length, 1);
        assert.deepEqual(messages[0]!.payload, payload);
        assert.equal(assembler.bufferedBytes, 0);
      }),
    );
  });

  it('marks RESETCONNECTION from the first packet status and lets ATTENTION through between messages', () => {
    const assembler = new MessageAssembler();
    const [packet] = framePackets(PacketType.SQL_BATCH, Buffer.from('x'), 4096, 1, true);
    packet![1] = 0x01 | 0x08;
    const attention = framePackets(PacketType.ATTENTION, Buffer.alloc(0), 4096, 1, true)[0]!;
    const messages = assembler.push(Buffer.concat([packet!, attention]));
    assert.deepEqual(messages.map((m) => [m.type, m.resetConnection]), [[PacketType.SQL_BATCH, true], [PacketType.ATTENTION, false]]);
  });

  it('obfuscates and de-obfuscates LOGIN7 passwords (swap nibbles, then XOR 0xA5)', () => {
    // 'a' = 0x61 0x00: nibble swap 0x16 0x00, XOR 0xA5 → 0xB3 0xA5
    assert.deepEqual([...obfuscatePassword('a')], [0xb3, 0xa5]);
    fc.assert(fc.property(fc.string({ maxLength: 64 }), (password) => deobfuscatePassword(obfuscatePassword(password)) === password));
  });

  it('round-trips decimal text through its unscaled integer', () => {
    assert.equal(decimalToUnscaled('-12.5', 2), -1250n);
    assert.equal(decimalToUnscaled('0.005', 2), 1n, 'rounds half away from zero');
    assert.equal(unscaledToDecimal(-1250n, 2), '-12.50');
    assert.equal(unscaledToDecimal(5n, 3), '0.005');
    fc.assert(fc.property(fc.bigInt({ min: -(10n ** 37n), max: 10n ** 37n }), fc.integer({ min: 0, max: 10 }), (n, scale) => decimalToUnscaled(unscaledToDecimal(n, scale), scale) === n));
  });

  it('writes GUIDs in mixed-endian order and reads them back', () => {
    const text = '6F9619FF-8B86-D011-B42D-00C04FC964FF';
    assert.equal(guidToBytes(text).toString('hex'), 'ff19966f868b11d0b42d00c04fc964ff');
    assert.equal(bytesToGuid(guidToBytes(text)), text);
  });

  it('encodes PLP with total length, one chunk and the terminator; NULL as all-ones', () => {
    assert.equal(plp(Buffer.from('ab')).toString('hex'), '0200000000000000' + '02000000' + '6162' + '00000000');
    assert.equal(plp(null).toString('hex'), 'ffffffffffffffff');
  });

  it('reads back what the row encoder writes for nullable types', () => {
    const columns = [
      { name: 'd', type: { kind: 'decimal', precision: 38, scale: 4 }, nullable: true },
      { name: 't', type: { kind: 'datetime2', scale: 3 }, nullable: true },
      { name: 'o', type: { kind: 'datetimeoffset', scale: 7 }, nullable: true },
      { name: 'g', type: { kind: 'uniqueidentifier' }, nullable: true },
      { name: 'b', type: { kind: 'bigint' }, nullable: true },
    ] as const;
    const encoded = encodeResultSet([...columns]);
    const when = new Date(Date.UTC(1999, 11, 31, 23, 59, 59, 999));
    const row = encoded.encodeRow(['-98765432109876543210.1234', when, { date: when, offsetMinutes: -300 }, '00112233-4455-6677-8899-AABBCCDDEEFF', -5n]);
    // COLMETADATA repeats TYPE_INFO after UserType (4) + Flags (2); walk metadata and row together.
    let meta = 3;
    let offset = 1; // after the ROW token byte
    const values = [];
    for (const column of columns) {
      const info = readTypeInfo(encoded.metadata, meta + 6);
      meta = info.offset + 1 + column.name.length * 2;
      const value = readTypedValue(row, offset, info.value);
      values.push(value.value);
      offset = value.offset;
    }
    assert.equal(offset, row.length);
    assert.equal(values[0], '-98765432109876543210.1234');
    assert.equal((values[1] as Date).toISOString(), '1999-12-31T23:59:59.999Z');
    assert.deepEqual(values[2], { date: when, offsetMinutes: -300 });
    assert.equal(values[3], '00112233-4455-6677-8899-AABBCCDDEEFF');
    assert.equal(values[4], -5n);
  });

  it('answers PRELOGIN with a table its own parser reads back', () => {
    const answer = parsePrelogin(buildPreloginResponse({ version: { major: 16, minor: 0, build: 1000 }, encryption: Encrypt.ON }));
    assert.equal(answer.encryption, Encrypt.ON);
    assert.deepEqual(answer.version, { major: 16, minor: 0, build: 1000, subBuild: 0 });
  });

  it('negotiates encryption per MS-TDS 2.2.6.5', () => {
    const table = [Encrypt.OFF, Encrypt.ON, Encrypt.NOT_SUP, Encrypt.REQ].map((client) =>
      (['optional', 'loginOnly', 'required'] as const).map((policy) => {
        const d = decideEncryption(client, policy);
        return `${d.answer}/${d.tls}`;
      }),
    );
    assert.deepEqual(table, [
      ['2/none', '0/loginOnly', '3/session'], // client OFF
      ['1/session', '1/session', '1/session'], // client ON
      ['2/none', '2/none', '3/refuse'], // client NOT_SUP
      ['1/session', '1/session', '1/session'], // client REQ
    ]);
  });

  it('reads declared parameter types from sp_executesql @params', () => {
    const declared = parseParameterDeclarations('@a int, @b decimal(12, 4) OUTPUT,@c nvarchar(max)');
    assert.deepEqual([...declared], [['@a', 'int'], ['@b', 'decimal(12, 4)'], ['@c', 'nvarchar(max)']]);
  });
});
