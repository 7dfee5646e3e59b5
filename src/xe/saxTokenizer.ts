// The XmlTokenizer contract over the sax package: the reference implementation the fast scanner (xmlScanner.ts) is
// cross-checked against in tests and compared with in bench/xe.bench.ts. The product path does not use it.

import sax from 'sax';
import type { XmlTokenizer } from './xmlScanner';

export const saxTokenize: XmlTokenizer = (xml, h) => {
  let failed: string | null = null;
  const parser = sax.parser(true, { position: true });
  const flat: string[] = [];
  parser.onerror = (err: Error) => {
    if (failed === null) failed = err.message.split('\n')[0] ?? String(err);
  };
  parser.onopentag = (tag) => {
    if (failed !== null) return;
    let count = 0;
    for (const [k, v] of Object.entries(tag.attributes as Record<string, string>)) {
      flat[2 * count] = k;
      flat[2 * count + 1] = v;
      count++;
    }
    h.open(tag.name, flat, count);
  };
  parser.onclosetag = (name: string) => {
    if (failed === null) h.close(name);
  };
  parser.ontext = parser.oncdata = (t: string) => {
    if (failed === null) h.text(t);
  };
  try {
    parser.write(xml);
    if (failed === null) parser.close();
  } catch (err) {
    if (failed === null) failed = err instanceof Error ? (err.message.split('\n')[0] ?? 'error') : String(err);
  }
  if (failed === null && xml.trim().length === 0) failed = 'no root element';
  return failed;
};
