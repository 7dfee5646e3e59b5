// The XE reader's fast path: one <event> element in the shape SQL Server writes (reference §4.3: event → data/action
// → type/value/text) read straight from character ranges into an XeEvent — no tokenizer callbacks, no strings for
// markup, numbers parsed in place. It reads the forms real servers send (test/fixtures/real-server): `<type …></type>`
// and `<type …/>`, strings in CDATA, `<value/>`, whitespace between elements. Any other shape (an entity, a comment, an
// unknown or repeated child, a self-closing field, a malformed tag, the end of the input) is declined, and the generic scanner reads that element instead, so
// errors and odd cases keep exactly the scanner's meaning (test/unit/xe/readerEquivalence.test.ts holds it to that).

import type { XeEvent, XeField } from './events';
import * as values from './xeValues';
import * as chars from './xmlScanner';

// Read once: under CommonJS output (tsx, mocha) every call through an import binding first runs a getter, which took
// a fifth of the scan's time in the profile. The character classes are the scanner's own, so both agree on names.
const { isNameChar, isNameStart, isSpace } = chars;
const { convertXeValueAt, convertXeValueOfClass, parseTimestampAt, xeTypeClass } = values;

/** XE tags carry 1–3 attributes; a tag with more is declined (the scanner's duplicate check covers any number). */
const MAX_ATTRIBUTES = 8;
/** Event, package and field names repeat in every event: a small direct-mapped table hands out one string for each. */
const INTERN_SLOTS = 512;
const INTERN_MAX_LENGTH = 64;

/**
 * s.startsWith(literal, p) for the short literals of markup, as a loop the compiler inlines: a builtin call cost more
 * than such a comparison. Templates, 60+ characters, are compared by startsWithTemplate below.
 */
function at(s: string, p: number, literal: string): boolean {
  for (let i = 0; i < literal.length; i++) if (s.charCodeAt(p + i) !== literal.charCodeAt(i)) return false;
  return true;
}

/**
 * s.startsWith(template, p) for templates (60+ characters): a slice compared with `===`. V8 compares two flat one-byte
 * strings of equal length as a block (memcmp), where startsWith walks them a character at a time; on the bench's field
 * templates (~90 characters) this was 2–3 times faster, although the slice is a small allocation of its own.
 */
function startsWithTemplate(s: string, p: number, template: string): boolean {
  return s.slice(p, p + template.length) === template;
}

/**
 * Markup repeats: every log_flush_complete opens with the same start tag up to its timestamp, and its fields with the
 * same `<data name="duration"><type name="uint64" package="package0"/><value>`. What the scanner learned from such a
 * text it learns again from the same text, so a template — the text once read, with what it meant — is compared
 * instead of read (one comparison per character instead of a parse). Templates are few and bounded.
 */
interface FieldTemplate {
  /** From '<data' or '<action' to just past the first '<value>'; nothing but <type> children before it. */
  text: string;
  isData: boolean;
  name: string;
  /** How its value is read: from the declared type (xeValues.ts), worked out once when the template was learnt. */
  typeClass: values.XeTypeClass;
}

interface EventTemplate {
  /** From '<event' to just past the opening quote of `timestamp`, its last attribute. */
  text: string;
  quote: number;
  name: string;
  package: string;
  /** The fields the last event read with this start tag had, by position. */
  fields: (FieldTemplate | undefined)[];
  /** The template of the event that followed last time (XE buffers cycle through a few event kinds). */
  next: EventTemplate | null;
}

/** Bounds on what templates hold: at most 16 × 32 texts of at most 512 characters (about 0.5 MB). */
const MAX_EVENT_TEMPLATES = 16;
const MAX_FIELD_TEMPLATES = 32;
const MAX_TEMPLATE_LENGTH = 512;

/**
 * A copy of s[from, to) in a string of its own. A plain slice of 13+ characters is a view into the whole document,
 * which both keeps the document alive as long as the template and made every comparison with it twice as slow.
 */
function ownCopy(s: string, from: number, to: number): string {
  return JSON.parse(JSON.stringify(s.slice(from, to))) as string;
}

export class XeEventScanner {
  private xml = '';
  /** Attributes of the last tag read, four numbers each: name start, name end, value start, value end. */
  private readonly ranges = new Int32Array(4 * MAX_ATTRIBUTES);
  private count = 0;
  private selfClosing = false;
  private readonly interned: (string | undefined)[] = new Array<string | undefined>(INTERN_SLOTS).fill(undefined);
  private readonly templates: EventTemplate[] = [];
  private previous: EventTemplate | null = null;
  /** The event read by the last scan() that did not decline. */
  event: XeEvent | null = null;

  /** Reads the element whose '<' is at `lt` when it is an <event> of the known shape: the index past </event>, or -1. */
  scan(xml: string, lt: number): number {
    this.xml = xml;
    let template = this.knownStartTag(lt);
    let event: XeEvent | null = null;
    let p = -1;
    if (template !== null) {
      const from = lt + template.text.length;
      const to = this.valueEnd(from, template.quote);
      if (to >= 0 && xml.charCodeAt(to + 1) === 62 /* > */) {
        event = { name: template.name, package: template.package, timestamp: parseTimestampAt(xml, from, to), data: {}, actions: {} };
        p = to + 2;
      } else template = null;
    }
    if (event === null) {
      if (!at(xml, lt + 1, 'event')) return -1;
      p = this.attributes(lt + 6);
      if (p < 0 || this.selfClosing) return -1;
      const r = this.ranges;
      const name = this.find('name');
      const pkg = this.find('package');
      const ts = this.find('timestamp');
      event = {
        name: name < 0 ? '' : this.intern(r[4 * name + 2]!, r[4 * name + 3]!),
        package: pkg < 0 ? '' : this.intern(r[4 * pkg + 2]!, r[4 * pkg + 3]!),
        timestamp: ts < 0 ? null : parseTimestampAt(xml, r[4 * ts + 2]!, r[4 * ts + 3]!),
        data: {},
        actions: {},
      };
      // A template when the timestamp is the last attribute, directly followed by '>'.
      if (ts >= 0 && ts === this.count - 1 && r[4 * ts + 3]! + 2 === p && r[4 * ts + 2]! - lt <= MAX_TEMPLATE_LENGTH) {
        template = this.learnStartTag(lt, r[4 * ts + 2]!, event);
      }
    }
    for (let i = 0; ; i++) {
      // Character data between fields is skipped, as the scanner skips it when the reader wants no text.
      if (xml.charCodeAt(p) !== 60 /* < */) p = xml.indexOf('<', p);
      if (p < 0) return -1;
      const known = template !== null && i < MAX_FIELD_TEMPLATES ? template.fields[i] : undefined;
      if (known !== undefined && startsWithTemplate(xml, p, known.text)) {
        p = this.field(p, known.isData, event, known, template, i);
      } else {
        const c = xml.charCodeAt(p + 1);
        if (c === 100 /* d */ && at(xml, p + 2, 'ata')) p = this.field(p, true, event, undefined, template, i);
        else if (c === 97 /* a */ && at(xml, p + 2, 'ction')) p = this.field(p, false, event, undefined, template, i);
        else if (c === 47 /* / */ && at(xml, p + 2, 'event>')) {
          if (this.previous !== null) this.previous.next = template;
          this.previous = template;
          this.event = event;
          return p + 8;
        } else return -1;
      }
      if (p < 0) return -1;
    }
  }

  /** The template whose text starts at lt: first the one that followed the previous event's, then the others. */
  private knownStartTag(lt: number): EventTemplate | null {
    const guess = this.previous?.next ?? null;
    if (guess !== null && startsWithTemplate(this.xml, lt, guess.text)) return guess;
    for (const t of this.templates) if (t !== guess && startsWithTemplate(this.xml, lt, t.text)) return t;
    return null;
  }

  private learnStartTag(lt: number, valueFrom: number, event: XeEvent): EventTemplate {
    const t: EventTemplate = { text: ownCopy(this.xml, lt, valueFrom), quote: this.xml.charCodeAt(valueFrom - 1), name: event.name, package: event.package, fields: [], next: null };
    if (this.templates.length >= MAX_EVENT_TEMPLATES) this.templates.shift();
    this.templates.push(t);
    return t;
  }

  /**
   * A <data> or <action> whose '<' is at `start` — from its template when `known` matched there — with type, value and
   * text children, each at most once (type: last wins). Learns the field's template for position `index` of `owner`.
   */
  private field(start: number, isData: boolean, event: XeEvent, known: FieldTemplate | undefined, owner: EventTemplate | null, index: number): number {
    const xml = this.xml;
    const r = this.ranges;
    let fieldName: string;
    let typeClass: values.XeTypeClass = 'undeclared';
    let valueFrom = -1;
    let valueTo = -1;
    /** The value as a string of its own when CDATA sections made it one; null: the range valueFrom..valueTo. */
    let joined: string | null = null;
    let text: string | null = null;
    let p: number;
    if (known !== undefined) {
      fieldName = known.name;
      typeClass = known.typeClass;
      valueFrom = start + known.text.length;
      valueTo = this.valueContent(valueFrom);
      if (valueTo < 0 || !at(xml, valueTo, '</value>')) return -1;
      joined = this.joined;
      p = valueTo + 8;
    } else {
      p = this.attributes(start + (isData ? 5 : 7));
      if (p < 0 || this.selfClosing) return -1;
      const nameAt = this.find('name');
      fieldName = nameAt < 0 ? '' : this.intern(r[4 * nameAt + 2]!, r[4 * nameAt + 3]!);
    }
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
        if (p < 0) return -1;
        // Raw target_data writes <type …></type>; the XML type's rendering writes <type …/>. Anything inside: declined.
        if (!this.selfClosing) {
          if (!at(xml, p, '</type>')) return -1;
          p += 7;
        }
        const k = this.find('name');
        typeClass = k < 0 ? 'undeclared' : xeTypeClass(xml.slice(r[4 * k + 2]!, r[4 * k + 3]!));
      } else if (c === 118 /* v */ && at(xml, p + 2, 'alue')) {
        // A second <value> would be concatenated with the first: rare enough to leave to the scanner.
        if (valueFrom >= 0) return -1;
        if (at(xml, p + 6, '/>')) {
          valueFrom = valueTo = p;
          p += 8;
          continue;
        }
        if (xml.charCodeAt(p + 6) !== 62 /* > */) return -1;
        valueFrom = p + 7;
        valueTo = this.valueContent(valueFrom);
        if (valueTo < 0 || !at(xml, valueTo, '</value>')) return -1;
        joined = this.joined;
        // Everything up to here was the start tag and <type> children: the template for this field's position.
        if (known === undefined && text === null && owner !== null && index < MAX_FIELD_TEMPLATES && valueFrom - start <= MAX_TEMPLATE_LENGTH) {
          owner.fields[index] = { text: ownCopy(xml, start, valueFrom), isData, name: fieldName, typeClass };
        }
        p = valueTo + 8;
      } else if (c === 116 /* t */ && at(xml, p + 2, 'ext')) {
        if (text !== null) return -1;
        if (at(xml, p + 5, '/>')) {
          text = '';
          p += 7;
          continue;
        }
        if (xml.charCodeAt(p + 5) !== 62 /* > */) return -1;
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
    const field: XeField = { value: joined !== null ? convertXeValueOfClass(joined, typeClass) : convertXeValueAt(xml, valueFrom, valueTo, typeClass) };
    if (text !== null) field.text = text;
    (isData ? event.data : event.actions)[fieldName] = field;
    return p;
  }

  /** Set by valueContent: the value joined from its text and CDATA sections, or null when it is one plain range. */
  private joined: string | null = null;

  /**
   * The content of a <value> from p (just past its start tag) up to the next end tag: the index of that '</', or -1
   * at an entity, a child element or the end of the input. Strings come in CDATA sections (raw target_data); their
   * text is joined with the plain text around them into `joined`, as the scanner's text callbacks would join it.
   */
  private valueContent(p: number): number {
    const xml = this.xml;
    let end = this.textEnd(p);
    if (end < 0) return -1;
    if (xml.charCodeAt(end + 1) === 47 /* / */) {
      this.joined = null;
      return end;
    }
    let s = xml.slice(p, end);
    for (;;) {
      if (!at(xml, end, '<![CDATA[')) return -1;
      const close = xml.indexOf(']]>', end + 9);
      if (close < 0) return -1;
      s += xml.slice(end + 9, close);
      const next = this.textEnd(close + 3);
      if (next < 0) return -1;
      s += xml.slice(close + 3, next);
      end = next;
      if (xml.charCodeAt(end + 1) === 47 /* / */) {
        this.joined = s;
        return end;
      }
    }
  }

  /** Index of the closing `quote` of an attribute value starting at p; -1 at '<', '&' or the end of the input. */
  private valueEnd(p: number, quote: number): number {
    const xml = this.xml;
    for (;; p++) {
      const c = xml.charCodeAt(p);
      if (c === quote) return p;
      if (c === 60 /* < */ || c === 38 /* & */ || c !== c /* end of input */) return -1;
    }
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
