// JUnit XML of the CI gates: one <testcase> per gate, a <failure> naming the metric, the baseline and the new value,
// <skipped> for a figure that was not measured. JUnit XML has no official schema; this follows the one CI servers
// validate against, Jenkins xunit-plugin's junit-10.xsd: testsuites > testsuite[name, tests, failures, errors
// required; skipped, time, timestamp] > testcase[name required; classname, time] > failure | skipped | system-out.
import type { GateResult } from './gates';

/**
 * XML 1.0 §2.2 Char: characters outside it (most C0 controls, lone surrogates, U+FFFE/FFFF) cannot appear at all, not
 * even as references: they are written as visible `\uXXXX` text, as the terminal output writes them.
 */
function xmlChars(text: string): string {
  return text.replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Escaped for an attribute value or element text (XML 1.0 §2.4, §3.3.3: & < > " ' and the line breaks in attributes). */
export function xmlEscape(text: string): string {
  return xmlChars(text)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;')
    .replace(/\r/g, '&#13;')
    .replace(/\n/g, '&#10;')
    .replace(/\t/g, '&#9;');
}

export interface JunitOptions {
  /** The suite's name, e.g. "durability-lens compare --command npm test". */
  suiteName: string;
  /** Seconds the measured work took (the suite's time attribute). */
  timeSeconds?: number;
  timestamp?: Date;
}

/** The gates as a JUnit XML document (UTF-8). */
export function gatesToJunit(results: readonly GateResult[], options: JunitOptions): string {
  const failures = results.filter((r) => r.status === 'fail').length;
  const skipped = results.filter((r) => r.status === 'not-measured').length;
  const time = (options.timeSeconds ?? 0).toFixed(3);
  // ISO 8601 without the zone, as the Ant schema's xs:dateTime pattern for timestamp expects.
  const timestamp = (options.timestamp ?? new Date()).toISOString().replace(/\.\d+Z$/, '');
  const cases = results.map((r) => {
    const name = xmlEscape(r.mode ? `${r.metric} (${r.mode})` : r.metric);
    const classname = xmlEscape(`durability-lens.gates${r.mode ? `.${r.mode}` : ''}`);
    const open = `    <testcase name="${name}" classname="${classname}" time="0">`;
    if (r.status === 'fail') {
      return `${open}\n      <failure message="${xmlEscape(r.message)}" type="regression">${xmlEscape(
        `metric=${r.metric} mode=${r.mode ?? '-'} baseline=${r.baseline} value=${r.value} limit=${r.limit}`,
      )}</failure>\n    </testcase>`;
    }
    if (r.status === 'not-measured') return `${open}\n      <skipped message="${xmlEscape(r.message)}"/>\n    </testcase>`;
    return `${open}\n      <system-out>${xmlEscape(r.message)}</system-out>\n    </testcase>`;
  });
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    // junit-10.xsd declares no `skipped` on <testsuites> (only on <testsuite>).
    `<testsuites name="durability-lens" tests="${results.length}" failures="${failures}" errors="0" time="${time}">`,
    `  <testsuite name="${xmlEscape(options.suiteName)}" tests="${results.length}" failures="${failures}" errors="0" skipped="${skipped}" time="${time}" timestamp="${timestamp}">`,
    ...cases,
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}
