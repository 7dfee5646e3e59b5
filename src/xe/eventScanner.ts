// The XE reader's fast path: one <event> element in the shape SQL Server writes (reference §4.3: event → data/action
// → type/value/text) read straight from character ranges into an XeEvent — no tokenizer callbacks, no strings for
// markup, numbers parsed in place. Any other shape (an entity, a comment, an unknown or repeated child, a self-closing
// field, a malformed tag, the end of the input) is declined, and the generic scanner reads that element instead, so
// errors and odd cases keep exactly the scanner's meaning (test/unit/xe/readerEquivalence.test.ts holds it to that).

import type { XeEvent, XeField } from './reader';
import * as values from './xeValues';
import * as chars from './xmlScanner';

// Read once: under CommonJS output (tsx, mocha) every call through an import binding first runs a getter, which took
// a fifth of the scan's time in the profile. The character classes are the scanner's own, so both agree on names.
const { isNameChar, isNameStart, isSpace } = chars;
const { convertXeValueAt, parseTimestampAt } = values;

/** XE tags carry 1–3 attributes; a tag with more is declined (the scanner's duplicate check covers any number). */
const MAX_ATTRIBUTES = 8;
/** Event, package and field names repeat in every event: a small direct-mapped table hands out one string for each. */
const INTERN_SLOTS = 512;
const INTERN_MAX_LENGTH = 64;

/** s.startsWith(literal, p), as a loop the compiler inlines: a builtin call per tag cost more than the comparison. */
function at(s: string, p: number, literal: string): boolean {
  for (let i = 0; i < literal.length; i++) if (s.charCodeAt(p + i) !== literal.charCodeAt(i)) return false;
  return true;
}

export class XeEventScanner {
  private xml = '';
  /** Attributes of the last tag read, four numbers each: name start, name end, value start, value end. */
  private readonly ranges = new Int32Array(4 * MAX_ATTRIBUTES);
  private count = 0;
  private selfClosing = false;
  private readonly interned: (string | undefined)[] = new Array<string | undefined>(INTERN_SLOTS).fill(undefined);
  /** The event read by the last scan() that did not decline. */
  event: XeEvent | null = null;

  /** Reads the element whose '<' is at `lt` when it is an <event> of the known shape: the index past </event>, or -1. */
  scan(xml: string, lt: number): number {
    this.xml = xml;
    if (!at(xml, lt + 1, 'event')) return -1;
    let p = this.attributes(lt + 6);
    if (p < 0 || this.selfClosing) return -1;
    const r = this.ranges;
    const name = this.find('name');
    const pkg = this.find('package');
    const ts = this.find('timestamp');
    const event: XeEvent = {
      name: name < 0 ? '' : this.intern(r[4 * name + 2]!, r[4 * name + 3]!),
      package: pkg < 0 ? '' : this.intern(r[4 * pkg + 2]!, r[4 * pkg + 3]!),
      timestamp: ts < 0 ? null : parseTimestampAt(xml, r[4 * ts + 2]!, r[4 * ts + 3]!),
      data: {},
      actions: {},
    };
    for (;;) {
      // Character data between fields is skipped, as the scanner skips it when the reader wants no text.
      if (xml.charCodeAt(p) !== 60 /* < */) p = xml.indexOf('<', p);
      if (p < 0) return -1;
      const c = xml.charCodeAt(p + 1);
      if (c === 100 /* d */ && at(xml, p + 2, 'ata')) p = this.field(p + 5, true, event);
      else if (c === 97 /* a */ && at(xml, p + 2, 'ction')) p = this.field(p + 7, false, event);
      else if (c === 47 /* / */ && at(xml, p + 2, 'event>')) {
        this.event = event;
        return p + 8;
      } else return -1;
      if (p < 0) return -1;
    }
  }

  /** A <data> or <action> from just past its name: type, value and text children, each at most once (type: last wins). */
  private field(p: number, isData: boolean, event: XeEvent): number {
    const xml = this.xml;
    const r = this.ranges;
    p = this.attributes(p);
    if (p < 0 || this.selfClosing) return -1;
    const nameAt = this.find('name');
    const fieldName = nameAt < 0 ? '' : this.intern(r[4 * nameAt + 2]!, r[4 * nameAt + 3]!);
    let typeFrom = -1;
    let typeTo = -1;
    let valueFrom = -1;
    let valueTo = -1;
    let text: string | null = null;
    for (;;) {
      if (xml.charCodeAt(p) !== 60 /* < */) p = xml.indexOf('<', p);
      if (p < 0) return -1;
      const c = xml.charCodeAt(p + 1);
      if (c === 47 /* / */) {
        const close = isData ? '</data>' : '</action>';
        if (!at(xml, p, close)) return -1;
        p += close.length;
        break;
      }
      if (c === 116 /* t */ && at(xml, p + 2, 'ype')) {
        p = this.attributes(p + 5);
        if (p < 0 || !this.selfClosing) return -1;
        const k = this.find('name');
        typeFrom = k < 0 ? -1 : r[4 * k + 2]!;
        typeTo = k < 0 ? -1 : r[4 * k + 3]!;
      } else if (c === 118 /* v */ && at(xml, p + 2, 'alue>')) {
        // A second <value> would be concatenated with the first: rare enough to leave to the scanner.
        if (valueFrom >= 0) return -1;
        valueFrom = p + 7;
        valueTo = this.textEnd(valueFrom);
        if (valueTo < 0 || !at(xml, valueTo, '</value>')) return -1;
        p = valueTo + 8;
      } else if (c === 116 /* t */ && at(xml, p + 2, 'ext>')) {
        if (text !== null) return -1;
        text = '';
        p += 6;
        for (;;) {
          const end = this.textEnd(p);
          if (end < 0) return -1;
          if (end > p) text += xml.slice(p, end);
          p = end;
          if (at(xml, p, '</text>')) break;
          if (!at(xml, p, '<![CDATA[')) return -1;
          const close = xml.indexOf(']]>', p + 9);
          if (close < 0) return -1;
          text += xml.slice(p + 9, close);
          p = close + 3;
        }
        p += 7;
      } else {
        return -1;
      }
    }
    // An absent <value> is the empty string, as the scanner's reader has it.
    if (valueFrom < 0) valueFrom = valueTo = p;
    const field: XeField = { value: convertXeValueAt(xml, valueFrom, valueTo, typeFrom, typeTo) };
    if (text !== null) field.text = text;
    (isData ? event.data : event.actions)[fieldName] = field;
    return p;
  }

  /** Index of the '<' ending the character data at p; -1 at an entity (left to the scanner) or the end of the input. */
  private textEnd(p: number): number {
    const xml = this.xml;
    for (;; p++) {
      const c = xml.charCodeAt(p);
      if (c === 60 /* < */) return p;
      if (c === 38 /* & */ || c !== c /* NaN: end of input */) return -1;
    }
  }

  /**
   * Attributes from just past a tag name to its '>' or '/>' (sets count and selfClosing): the index past the tag, or -1
   * for anything the scanner would reject or decode (entities, '<' in a value, a duplicate, no space, no quotes).
   */
  private attributes(p: number): number {
    const xml = this.xml;
    const r = this.ranges;
    let count = 0;
    for (;;) {
      let c = xml.charCodeAt(p);
      const spaced = isSpace(c);
      while (isSpace(c)) c = xml.charCodeAt(++p);
      if (c === 62 /* > */) {
        this.count = count;
        this.selfClosing = false;
        return p + 1;
      }
      if (c === 47 /* / */) {
        if (xml.charCodeAt(p + 1) !== 62) return -1;
        this.count = count;
        this.selfClosing = true;
        return p + 2;
      }
      if (!spaced || !isNameStart(c) || count === MAX_ATTRIBUTES) return -1;
      const nameFrom = p;
      do c = xml.charCodeAt(++p);
      while (isNameChar(c));
      const nameTo = p;
      while (isSpace(c)) c = xml.charCodeAt(++p);
      if (c !== 61 /* = */) return -1;
      c = xml.charCodeAt(++p);
      while (isSpace(c)) c = xml.charCodeAt(++p);
      if (c !== 34 /* " */ && c !== 39 /* ' */) return -1;
      const quote = c;
      const valueFrom = p + 1;
      for (p = valueFrom; ; p++) {
        c = xml.charCodeAt(p);
        if (c === quote) break;
        if (c === 60 /* < */ || c === 38 /* & */ || c !== c /* end of input */) return -1;
      }
      for (let k = 0; k < count; k++) if (this.sameText(r[4 * k]!, r[4 * k + 1]!, nameFrom, nameTo)) return -1;
      r[4 * count] = nameFrom;
      r[4 * count + 1] = nameTo;
      r[4 * count + 2] = valueFrom;
      r[4 * count + 3] = p;
      count++;
      p++;
    }
  }

  /** Index of the attribute called `name` in the last tag read, or -1. */
  private find(name: string): number {
    const r = this.ranges;
    for (let k = 0; k < this.count; k++) {
      if (r[4 * k + 1]! - r[4 * k]! === name.length && at(this.xml, r[4 * k]!, name)) return k;
    }
    return -1;
  }

  private sameText(a: number, aEnd: number, b: number, bEnd: number): boolean {
    if (aEnd - a !== bEnd - b) return false;
    const xml = this.xml;
    for (let i = 0; i < aEnd - a; i++) if (xml.charCodeAt(a + i) !== xml.charCodeAt(b + i)) return false;
    return true;
  }

  /** xml.slice(from, to), as one shared string per distinct short text (names repeat in every event). */
  private intern(from: number, to: number): string {
    const xml = this.xml;
    const length = to - from;
    if (length > INTERN_MAX_LENGTH) return xml.slice(from, to);
    let h = length;
    for (let i = from; i < to; i++) h = (Math.imul(h, 31) + xml.charCodeAt(i)) | 0;
    const slot = h & (INTERN_SLOTS - 1);
    const cached = this.interned[slot];
    if (cached !== undefined && cached.length === length && at(xml, from, cached)) return cached;
    const fresh = xml.slice(from, to);
    this.interned[slot] = fresh;
    return fresh;
  }
}
