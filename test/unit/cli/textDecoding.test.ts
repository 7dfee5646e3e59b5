// Script decoding: BOMs, UTF-16 without BOM, strict UTF-8, the legacy fallback, and binary files refused.
import * as assert from 'node:assert/strict';
import { NotTextError, decodeScript, encodingName } from '../../../src/cli/textDecoding';

const TEXT = "-- naïve café\r\nINSERT dbo.t VALUES (N'€ 5')\r\nGO\r\n";

function utf16(text: string, order: 'le' | 'be', bom: boolean): Uint8Array {
  const bytes = Buffer.from(text, 'utf16le');
  if (order === 'be') bytes.swap16();
  return bom ? Buffer.concat([Buffer.from(order === 'le' ? [0xff, 0xfe] : [0xfe, 0xff]), bytes]) : bytes;
}

describe('cli text decoding', () => {
  it('reads UTF-16 LE and BE with a byte order mark', () => {
    assert.deepEqual(decodeScript(utf16(TEXT, 'le', true)), { text: TEXT, encoding: 'utf-16le', detectedBy: 'bom' });
    assert.deepEqual(decodeScript(utf16(TEXT, 'be', true)), { text: TEXT, encoding: 'utf-16be', detectedBy: 'bom' });
  });

  it('reads UTF-16 without a byte order mark by its zero bytes', () => {
    assert.deepEqual(decodeScript(utf16(TEXT, 'le', false)), { text: TEXT, encoding: 'utf-16le', detectedBy: 'zero-bytes' });
    assert.deepEqual(decodeScript(utf16(TEXT, 'be', false)), { text: TEXT, encoding: 'utf-16be', detectedBy: 'zero-bytes' });
  });

  it('reads UTF-16 without a byte order mark when characters have a zero low byte (一 U+4E00, Ā U+0100, Ѐ U+0400)', () => {
    for (const ch of ['一', 'Ā', 'Ѐ']) {
      const text = `UPDATE t SET c = N'${ch}' WHERE id = 1;\r\n`;
      assert.deepEqual(decodeScript(utf16(text, 'le', false)), { text, encoding: 'utf-16le', detectedBy: 'zero-bytes' }, ch);
      assert.deepEqual(decodeScript(utf16(text, 'be', false)), { text, encoding: 'utf-16be', detectedBy: 'zero-bytes' }, ch);
    }
  });

  it('reads a bcp -w export (UTF-16 LE, no byte order mark, tab-separated rows) holding 一, Ā and Ѐ', () => {
    const rows = ['1\t<event name="a"><data name="s"><value>一二三</value></data></event>', '2\t<event name="b"><data name="s"><value>ĀĀĀ Ѐ</value></data></event>', '3\tplain'];
    const text = rows.join('\r\n') + '\r\n';
    assert.deepEqual(decodeScript(utf16(text, 'le', false)), { text, encoding: 'utf-16le', detectedBy: 'zero-bytes' });
  });

  it('refuses bytes whose zeros fit UTF-16 but that decode to NUL or control characters', () => {
    // "A\0" units with "\0\0" (U+0000) among them: zeros on both sides.
    const nul = Uint8Array.from([0x41, 0, 0x42, 0, 0, 0, 0x43, 0, 0x44, 0, 0x45, 0, 0x46, 0, 0x47, 0, 0x48, 0, 0x49, 0, 0x4a, 0]);
    assert.throws(() => decodeScript(nul), (e: unknown) => e instanceof NotTextError);
    // Zeros on the odd side only, but every other unit U+0001: control characters, not text.
    const controls = Uint8Array.from(Array.from({ length: 200 }, (_, i) => (i % 2 === 1 ? 0 : i % 4 === 0 ? 0x01 : 0x41)));
    assert.throws(() => decodeScript(controls), (e: unknown) => e instanceof NotTextError && /control characters/.test(e.message));
    // A lone surrogate in UTF-16 LE is not valid UTF-16.
    const surrogate = Uint8Array.from([...Buffer.from('SELECT 1;', 'utf16le'), 0x00, 0xd8, ...Buffer.from(' -- a lone high surrogate before this', 'utf16le')]);
    assert.throws(() => decodeScript(surrogate), (e: unknown) => e instanceof NotTextError && /not valid utf-16le/.test(e.message));
  });

  it('reads UTF-8 with and without a byte order mark, dropping the mark', () => {
    const bytes = Buffer.from(TEXT, 'utf8');
    assert.deepEqual(decodeScript(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), bytes])), { text: TEXT, encoding: 'utf-8', detectedBy: 'bom' });
    assert.deepEqual(decodeScript(bytes), { text: TEXT, encoding: 'utf-8', detectedBy: 'valid-utf-8' });
  });

  it('falls back to windows-1252 for bytes that are not UTF-8, or to the code page named', () => {
    // 0xE9 é, 0x80 € in windows-1252; neither is valid UTF-8 on its own.
    const bytes = Uint8Array.from([0x2d, 0x2d, 0x20, 0x63, 0x61, 0x66, 0xe9, 0x20, 0x80, 0x0a]);
    assert.deepEqual(decodeScript(bytes), { text: '-- café €\n', encoding: 'windows-1252', detectedBy: 'fallback' });
    // 0xE9 is й in windows-1251.
    assert.equal(decodeScript(bytes, 'windows-1251').text.slice(0, 7), '-- cafй');
    assert.equal(encodingName('latin1'), 'windows-1252');
    assert.equal(encodingName('no-such-page'), null);
  });

  it('refuses binary files with a reason', () => {
    const zip = Uint8Array.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0x00, 0x00, 0x00, 0x08, 0x00, 0x21, 0x00, 0x7f, 0x13]);
    assert.throws(() => decodeScript(zip), (e: unknown) => e instanceof NotTextError && /NUL bytes/.test(e.message));
    const controls = Uint8Array.from(Array.from({ length: 200 }, (_, i) => (i % 3 === 0 ? 0x01 : 0x41)));
    assert.throws(() => decodeScript(controls), (e: unknown) => e instanceof NotTextError && /control characters/.test(e.message));
  });
});
