// A small, fast XML tokenizer for Extended Events output: open/close/text callbacks, no tree. It exists because sax
// parses ~25 MB/s and a 100k-event buffer (~47 MB of XML) must parse at ≥ 200 MB/s (issue 19, bench/xe.bench.ts);
// the reader's events skip the callbacks through the `element` fast path.
// Strict enough to reject malformed input (mismatched tags, bad entities, stray text); never throws on any string.

export interface XmlHandler {
  /** attrs is a reused flat array [name0, value0, name1, value1, ...] of `attrCount` pairs: copy what you keep. */
  open(name: string, attrs: readonly string[], attrCount: number): void;
  close(name: string): void;
  /**
   * Character data with entities decoded (CDATA passed through raw). Whitespace between tags included. `at` is the
   * index in the document where it starts (the CDATA section's '<' for CDATA); scanXml always passes it.
   */
  text(text: string, at?: number): void;
  /**
   * When present and false, character data is skipped without being sliced or decoded (most of an XE document is
   * markup and indentation the reader ignores; skipping it is a large part of the scanner's speed).
   */
  readonly wantText?: boolean;
  /**
   * Optional fast path, asked at each start tag a root may hold (`lt` is the index of its '<', `depth` the number of
   * open elements): the handler may read the whole element itself and return the index just past its end tag, and
   * the scanner then makes no open/text/close calls for it; -1 declines. A handler must accept only elements this
   * scanner accepts, with the effect its callbacks would have had (reader.ts, held to that by the equivalence tests).
   */
  element?(xml: string, lt: number, depth: number): number;
}

/** Work counters a caller may pass to see how much the scanner did (tests assert linear work on hostile input). */
export interface ScanStats {
  /** Name comparisons and set look-ups spent on the duplicate-attribute check. */
  attributeChecks: number;
}

/** Tokenizes a whole document; returns an error message, or null when the document was well-formed. */
export type XmlTokenizer = (xml: string, handler: XmlHandler, stats?: ScanStats) => string | null;

/**
 * Up to this many attributes a tag's names are compared pairwise (cheaper than a Set for the 1–6 attributes XE
 * writes); past it the names go into a Set, so a tag with 80,000 attributes costs 80,000 look-ups, not 3.2 billion
 * comparisons (issue #15: the pairwise check froze the extension host for 25 s).
 */
const PAIRWISE_ATTRIBUTES = 8;

export function attr(attrs: readonly string[], count: number, name: string): string | undefined {
  for (let i = 0; i < count; i++) if (attrs[2 * i] === name) return attrs[2 * i + 1];
  return undefined;
}

const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

class XmlError extends Error {
  constructor(
    message: string,
    readonly pos: number,
  ) {
    super(message);
  }
}

/** Resolves the five predefined entities and character references; anything else is malformed XML. */
function decode(raw: string, pos: number): string {
  let amp = raw.indexOf('&');
  if (amp === -1) return raw;
  let out = '';
  let last = 0;
  while (amp !== -1) {
    const semi = raw.indexOf(';', amp + 1);
    if (semi === -1 || semi - amp > 12) throw new XmlError('invalid entity reference', pos + amp);
    const body = raw.slice(amp + 1, semi);
    let ch = NAMED[body];
    if (ch === undefined) {
      let code = Number.NaN;
      if (/^#x[0-9a-fA-F]{1,6}$/.test(body)) code = parseInt(body.slice(2), 16);
      else if (/^#[0-9]{1,7}$/.test(body)) code = parseInt(body.slice(1), 10);
      if (!(code >= 1 && code <= 0x10ffff) || (code >= 0xd800 && code <= 0xdfff)) throw new XmlError(`invalid entity reference &${body};`, pos + amp);
      ch = String.fromCodePoint(code);
    }
    out += raw.slice(last, amp) + ch;
    last = semi + 1;
    amp = raw.indexOf('&', last);
  }
  return out + raw.slice(last);
}

export function isNameStart(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 58 || c > 127;
}

export function isNameChar(c: number): boolean {
  return isNameStart(c) || (c >= 48 && c <= 57) || c === 45 || c === 46;
}

export function isSpace(c: number): boolean {
  return c === 32 || c === 10 || c === 13 || c === 9;
}

function lineOf(xml: string, pos: number): number {
  let line = 1;
  for (let i = xml.indexOf('\n'); i !== -1 && i < pos; i = xml.indexOf('\n', i + 1)) line++;
  return line;
}

/** The fast tokenizer. */
export const scanXml: XmlTokenizer = (xml, h, stats) => {
  const stack: string[] = [];
  const attrs: string[] = [];
  let checks = 0;
  // Made on the first tag with many attributes: event_file rows are one small document each, and a Set per row showed.
  let seenNames: Set<string> | null = null;
  let rootClosed = false;
  let i = 0;
  const n = xml.length;
  try {
    while (i < n) {
      const lt = xml.indexOf('<', i);
      const end = lt === -1 ? n : lt;
      if (end > i) {
        if (stack.length === 0) {
          if (xml.slice(i, end).trim().length > 0) throw new XmlError('text outside the root element', i);
        } else if (h.wantText !== false) {
          h.text(decode(xml.slice(i, end), i), i);
        }
      }
      if (lt === -1) break;
      const c = xml.charCodeAt(lt + 1);
      if (c === 47 /* / */) {
        const open = stack.pop();
        // Compare in place: slicing every end tag's name costs more than the whole comparison.
        let p = lt + 2;
        if (open !== undefined && xml.startsWith(open, p)) p += open.length;
        else p = -1;
        if (p !== -1) while (p < n && isSpace(xml.charCodeAt(p))) p++;
        if (p === -1 || xml.charCodeAt(p) !== 62 /* > */) {
          const gt = xml.indexOf('>', lt);
          const name = xml.slice(lt + 2, gt === -1 ? Math.min(n, lt + 40) : gt).trimEnd();
          throw new XmlError(open === undefined ? `unexpected </${name}>` : `</${name}> does not close <${open}>`, lt);
        }
        h.close(open!);
        if (stack.length === 0) rootClosed = true;
        i = p + 1;
      } else if (c === 33 /* ! */) {
        if (xml.startsWith('<![CDATA[', lt)) {
          const close = xml.indexOf(']]>', lt + 9);
          if (close === -1) throw new XmlError('unterminated CDATA section', lt);
          if (stack.length === 0) throw new XmlError('CDATA outside the root element', lt);
          h.text(xml.slice(lt + 9, close), lt);
          i = close + 3;
        } else if (xml.startsWith('<!--', lt)) {
          const close = xml.indexOf('-->', lt + 4);
          if (close === -1) throw new XmlError('unterminated comment', lt);
          i = close + 3;
        } else {
          // DOCTYPE and entity declarations never appear in XE output; refusing them also rules out entity expansion.
          throw new XmlError('markup declarations are not supported', lt);
        }
      } else if (c === 63 /* ? */) {
        const close = xml.indexOf('?>', lt + 2);
        if (close === -1) throw new XmlError('unterminated processing instruction', lt);
        i = close + 2;
      } else {
        if (h.element !== undefined && (stack.length > 0 || !rootClosed)) {
          const end = h.element(xml, lt, stack.length);
          if (end >= 0) {
            if (stack.length === 0) rootClosed = true;
            i = end;
            continue;
          }
        }
        // Start tag: name, attributes with quoted values, then > or />.
        let p = lt + 1;
        if (!isNameStart(xml.charCodeAt(p))) throw new XmlError('invalid tag name', lt);
        while (p < n && isNameChar(xml.charCodeAt(p))) p++;
        const name = xml.slice(lt + 1, p);
        if (rootClosed) throw new XmlError('more than one root element', lt);
        let count = 0;
        let selfClosing = false;
        let useSet = false;
        for (;;) {
          const spaced = p < n && isSpace(xml.charCodeAt(p));
          while (p < n && isSpace(xml.charCodeAt(p))) p++;
          if (p >= n) throw new XmlError(`unterminated <${name}>`, lt);
          const ch = xml.charCodeAt(p);
          if (ch === 62 /* > */) {
            p++;
            break;
          }
          if (ch === 47 /* / */) {
            if (xml.charCodeAt(p + 1) !== 62) throw new XmlError(`malformed <${name}>`, p);
            selfClosing = true;
            p += 2;
            break;
          }
          if (!spaced || !isNameStart(ch)) throw new XmlError(`malformed attribute in <${name}>`, p);
          const a = p;
          while (p < n && isNameChar(xml.charCodeAt(p))) p++;
          const attrName = xml.slice(a, p);
          while (p < n && isSpace(xml.charCodeAt(p))) p++;
          if (xml.charCodeAt(p) !== 61 /* = */) throw new XmlError(`attribute ${attrName} has no value`, p);
          p++;
          while (p < n && isSpace(xml.charCodeAt(p))) p++;
          const q = xml.charCodeAt(p);
          if (q !== 34 && q !== 39) throw new XmlError(`attribute ${attrName} is not quoted`, p);
          const close = xml.indexOf(q === 34 ? '"' : "'", p + 1);
          if (close === -1) throw new XmlError(`unterminated attribute ${attrName}`, p);
          const raw = xml.slice(p + 1, close);
          if (raw.indexOf('<') !== -1) throw new XmlError(`'<' in attribute ${attrName}`, p);
          if (!useSet && count >= PAIRWISE_ATTRIBUTES) {
            if (seenNames === null) seenNames = new Set<string>();
            else seenNames.clear();
            for (let k = 0; k < count; k++) seenNames.add(attrs[2 * k]!);
            checks += count;
            useSet = true;
          }
          if (useSet) {
            checks++;
            if (seenNames!.has(attrName)) throw new XmlError(`duplicate attribute ${attrName}`, a);
            seenNames!.add(attrName);
          } else {
            for (let k = 0; k < count; k++) {
              checks++;
              if (attrs[2 * k] === attrName) throw new XmlError(`duplicate attribute ${attrName}`, a);
            }
          }
          attrs[2 * count] = attrName;
          attrs[2 * count + 1] = decode(raw, p);
          count++;
          p = close + 1;
        }
        h.open(name, attrs, count);
        if (selfClosing) {
          h.close(name);
          if (stack.length === 0) rootClosed = true;
        } else {
          stack.push(name);
        }
        i = p;
      }
    }
    if (stats) stats.attributeChecks += checks;
    checks = 0;
    if (stack.length > 0) throw new XmlError(`unclosed <${stack[stack.length - 1]}> at end of input`, n);
    if (!rootClosed) throw new XmlError('no root element', 0);
    return null;
  } catch (err) {
    if (stats) stats.attributeChecks += checks;
    checks = 0;
    if (err instanceof XmlError) return `${err.message} at line ${lineOf(xml, err.pos)}`;
    return err instanceof Error ? err.message : String(err);
  }
};
