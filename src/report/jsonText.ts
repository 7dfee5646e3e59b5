// JSON text that stays valid and inert wherever it is shown: JSON.stringify already escapes C0 controls (U+0000–U+001F,
// RFC 8259 §7 requires it) and lone surrogates, but leaves DEL, the C1 controls (U+0080–U+009F: U+009B acts as CSI on
// its own), the bidi marks and U+2028/U+2029 raw. Those are written as \uXXXX escapes here — still the same string
// when parsed — so the terminal filter (src/cli/terminalText.ts) has nothing left to rewrite and can never turn a JSON
// string escape into something a parser rejects (issue 25 N8: a DEL became "\x7f", invalid JSON).

// eslint-disable-next-line no-control-regex
const RAW_IN_JSON = /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** JSON.stringify(value, null, indent) with every character above written as a \uXXXX escape. */
export function jsonText(value: unknown, indent = 2): string {
  const text = JSON.stringify(value, null, indent);
  return text === undefined ? 'null' : text.replace(RAW_IN_JSON, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
