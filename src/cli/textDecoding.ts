// Turns a script file's bytes into text the way an editor would: byte order mark first, then UTF-16 recognised by its
// zero bytes, then strict UTF-8, then a legacy code page. SSMS saves UTF-16 LE with a BOM by default, and older scripts
// are often Windows-1252; reading either as UTF-8 garbles every line. Decoding is Node's TextDecoder (full ICU), never
// our own tables. A file that is none of these (NUL bytes that do not fit UTF-16, control bytes) is refused.

/** The fallback when a file is neither UTF-16 nor valid UTF-8 and the user named no code page. */
export const DEFAULT_LEGACY_ENCODING = 'windows-1252';

export interface DecodedText {
  text: string;
  /** WHATWG name of the encoding used (`utf-8`, `utf-16le`, `utf-16be`, `windows-1252`...). */
  encoding: string;
  /** How it was chosen. */
  detectedBy: 'bom' | 'zero-bytes' | 'valid-utf-8' | 'fallback';
}

/** The file is not text we can read: a binary file, or bytes no encoding explains. */
export class NotTextError extends Error {}

/** The WHATWG name of `label` (`latin1`, `cp1252` → `windows-1252`), or null when TextDecoder does not know it. */
export function encodingName(label: string): string | null {
  try {
    return new TextDecoder(label).encoding;
  } catch {
    return null;
  }
}

function decode(bytes: Uint8Array, encoding: string, what: string): string {
  try {
    return new TextDecoder(encoding, { fatal: true }).decode(bytes);
  } catch {
    throw new NotTextError(`it starts like ${what} but is not valid ${encoding}`);
  }
}

/**
 * UTF-16 without a BOM (bcp -w writes none): text that is mostly ASCII, as XML and T-SQL are, has a zero in the high
 * byte of almost every code unit — the odd bytes for LE, the even ones for BE. The other side has a zero only where a
 * character's low byte is 0 (U+0100 Ā, U+0400 Ѐ, U+4E00 一, …): a few, never none by rule. So the byte order is the side
 * with at least 40 % zeros when the other side has at most a tenth as many; the caller then decodes strictly and looks
 * for NUL characters and control characters, so a binary file that happens to look like this is still refused.
 */
function utf16ByZeros(bytes: Uint8Array): 'utf-16le' | 'utf-16be' | null {
  const n = bytes.length - (bytes.length % 2);
  if (n < 2) return null;
  let evenZeros = 0, oddZeros = 0;
  for (let i = 0; i < n; i += 2) {
    if (bytes[i] === 0) evenZeros++;
    if (bytes[i + 1] === 0) oddZeros++;
  }
  const pairs = n / 2;
  if (oddZeros >= pairs * 0.4 && evenZeros * 10 <= oddZeros) return 'utf-16le';
  if (evenZeros >= pairs * 0.4 && oddZeros * 10 <= evenZeros) return 'utf-16be';
  return null;
}

/** Control characters other than tab, line breaks, form feed and the BOM: text files hold almost none. */
function looksBinary(text: string): boolean {
  let control = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0) return true;
    if (c < 32 && c !== 9 && c !== 10 && c !== 13 && c !== 12 && c !== 11 && c !== 26) control++;
  }
  return control > 0 && control >= text.length * 0.01;
}

/**
 * Decodes a script file. `legacyEncoding` is the code page for files that are not valid UTF-8 (a WHATWG label,
 * default windows-1252). Throws NotTextError with the reason when the bytes are not text.
 */
export function decodeScript(bytes: Uint8Array, legacyEncoding: string = DEFAULT_LEGACY_ENCODING): DecodedText {
  let result: DecodedText;
  if (bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) {
    result = { text: decode(bytes.subarray(3), 'utf-8', 'UTF-8 (byte order mark)'), encoding: 'utf-8', detectedBy: 'bom' };
  } else if (bytes.length >= 2 && bytes[0] === 0xff && bytes[1] === 0xfe) {
    result = { text: decode(bytes.subarray(2), 'utf-16le', 'UTF-16 LE (byte order mark)'), encoding: 'utf-16le', detectedBy: 'bom' };
  } else if (bytes.length >= 2 && bytes[0] === 0xfe && bytes[1] === 0xff) {
    result = { text: decode(bytes.subarray(2), 'utf-16be', 'UTF-16 BE (byte order mark)'), encoding: 'utf-16be', detectedBy: 'bom' };
  } else if (bytes.includes(0)) {
    const order = utf16ByZeros(bytes);
    if (order === null) throw new NotTextError('it holds NUL bytes that do not fit UTF-16 text, so it looks like a binary file');
    result = { text: decode(bytes, order, `UTF-16 ${order === 'utf-16le' ? 'LE' : 'BE'} (no byte order mark)`), encoding: order, detectedBy: 'zero-bytes' };
  } else {
    let text: string | null = null;
    try {
      text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
    } catch {
      text = null;
    }
    if (text !== null) result = { text, encoding: 'utf-8', detectedBy: 'valid-utf-8' };
    else {
      const decoder = new TextDecoder(legacyEncoding);
      result = { text: decoder.decode(bytes), encoding: decoder.encoding, detectedBy: 'fallback' };
    }
  }
  if (looksBinary(result.text)) {
    throw new NotTextError(`decoded as ${result.encoding} it holds control characters no script has, so it looks like a binary file`);
  }
  return result;
}
