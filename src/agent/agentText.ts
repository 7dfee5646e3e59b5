// Neutralises server- and file-provided strings on their way to an agent (an LM tool result, an MCP tool result): a
// database name, a routine name, a server error or a file path may carry line breaks, terminal controls or bidi
// overrides, and a model reads a line break inside a name as the start of one of our lines ("DELAYED_DURABILITY
// restored …"). A field is written on one line with every such character as visible escape text; a JSON document
// keeps its meaning (the \uXXXX form of each escape is JSON's own). vscode-free, shared by both hosts.
import { cutPoint, oneLineField, visibleEscape, withVisibleControls } from '../shared/visibleText';

/** The longest field an agent is shown in full (a path, a name); a longer one is cut, saying how long it was. */
export const AGENT_FIELD_MAX = 1024;

/**
 * One field inside a line of ours: controls, bidi characters and line breaks as visible escape text, and at most
 * AGENT_FIELD_MAX characters of it (outside attack: a 3 MB path argument came back as a 3 MB error message).
 */
export function agentField(text: string): string {
  const end = cutPoint(text, AGENT_FIELD_MAX);
  return oneLineField(end === null ? text : `${text.slice(0, end)}… (${text.length.toLocaleString('en-US')} characters, cut)`);
}

/**
 * `value` as indented JSON whose every active character is a JSON escape (JSON.stringify leaves C1 controls, bidi
 * characters and U+2028/U+2029 raw): JSON.parse gives back exactly `value`.
 */
export function agentJson(value: unknown): string {
  return withVisibleControls(JSON.stringify(value, null, 2)).replace(/[\u2028\u2029]/g, visibleEscape);
}

/** Whether `text` parses as JSON. A reader's "not JSON" error quotes the text it could not read; an agent is told only this. */
export function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
