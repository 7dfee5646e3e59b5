// What "reads right" means for user text (issue 28), as checks a test runs over rendered reports: every number in an
// evidence line carries its unit, and no internal identifier (camelCase field, enum key, metric id) or JavaScript
// leftover (undefined, NaN, [object …]) reaches the user. Shared by the unit test over fixtures and the e2e test.

/** Units and counted nouns a number may be followed by (after an optional space). */
const UNIT_AFTER = new RegExp(
  '^(?:\\s?(?:ms|µs|s|min|B|KiB|MiB|GiB|TiB|KB|MB|GB|%|×)(?![A-Za-z])' +
    '|\\s(?:log |write |more |other |small |full |concurrent |committed |measured |single-row |data |SCHEMA_ONLY )?(?:flush(?:es)?|commits?|waits?|writes?|reads?|runs?|sessions?|rows?|VLFs?|transactions?|pages?|events?|files?|times|iterations?|statements?|executions?|inserts?|errors?|replicas?|batch(?:es)?|wait types?|session counts?|levels?|table\\(s\\)|run\\(s\\)|wait type\\(s\\)|memory-optimized|per (?:commit|write|wait|second|flush|run))\\b)',
);

/** A number may be an identifier or a name, recognised by what comes before it. */
const NAME_BEFORE = /(?:SQL error|error|line|lines|setup batch|measured batch|[Tt]race flags?|flag|Msg|SQL Server|version|sp_|schema version|session|sessions|batch|batches|level|S|run|database_id|ID|id|Learn grades|--repeat|VS Code)\s?$/;

/**
 * The numbers in `line` that carry no unit: a count, a time or a ratio a reader cannot read without guessing. Skipped:
 * parts of names (S5, sp_flush_log, 3979 after "trace flag"), years, dates and versions, the number inside a range
 * whose other end has the unit (13.7–23.6×), a factor written ×0.25, and "N of M" where M has the unit.
 */
export function bareNumbers(line: string): string[] {
  const out: string[] = [];
  const re = /\d[\d,]*(?:\.\d+)?/g;
  for (let m = re.exec(line); m; m = re.exec(line)) {
    const start = m.index;
    const end = start + m[0].length;
    const before = line.slice(0, start);
    const after = line.slice(end);
    const prev = before.slice(-1);
    if (/[A-Za-z_\d.:\/#@-]/.test(prev) && !/[(–]/.test(prev)) continue; // inside a name, a version, a path, a time
    if (prev === '×') continue; // ×0.25
    if (/^[\d.]*[A-Za-z_]/.test(after) && !UNIT_AFTER.test(after)) continue; // 3979a, 1st, an identifier's tail
    if (/^(?:19|20)\d\d$/.test(m[0]) && !UNIT_AFTER.test(after)) continue; // a year
    if (/^[:\/.-]\d/.test(after)) continue; // a date, a time or a version
    if (UNIT_AFTER.test(after)) continue;
    // "not conclusive at 1, 4 sessions": a list's last figure carries the unit for all of them.
    const list = m[0].endsWith(',') ? /^\s?(?:[\d.]+,\s?)*[\d.]+/.exec(after) : null;
    if (list && UNIT_AFTER.test(after.slice(list[0].length))) continue;
    // "13.7–23.6×", "2–5 ms", "1 – 3 ms": the range's far end carries the unit.
    const range = /^\s?[–-]\s?[\d,]+(?:\.\d+)?/.exec(after);
    if (range && UNIT_AFTER.test(after.slice(range[0].length))) continue;
    // "N of M units" / "N for M commits" / "N/M units": the second figure names what both count.
    if (/^\s(?:of|for) (?:this workload's|the|its|their) (?:commits|rows|flushes|waits|writes|runs|sessions)\b/.test(after)) continue;
    const pair = /^\s(?:of|for|\/|out of)\s[\d,]+(?:\.\d+)?/.exec(after);
    if (pair && UNIT_AFTER.test(after.slice(pair[0].length))) continue;
    if (NAME_BEFORE.test(before)) continue;
    if (/\b(?:lines?|batch(?:es)?|sessions?|runs?) [\d,]+\s?[–-]\s?$/.test(before)) continue; // "lines 22–31": the range's end is a name too
    out.push(`${m[0]} in “${line.slice(Math.max(0, start - 40), end + 30)}”`);
  }
  return out;
}

/** Identifiers of our own code that must not show: metric ids, enum keys, camelCase field names. */
export function internalIdentifiers(text: string, known: readonly string[]): string[] {
  const out: string[] = [];
  for (const id of known) {
    const re = new RegExp(`(?<![\\w.-])${id.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\w-])`, 'g');
    for (const m of text.matchAll(re)) out.push(`${id} in “${text.slice(Math.max(0, m.index! - 40), m.index! + id.length + 30)}”`);
  }
  // camelCase words (logFlushes, sessionTotalMs); the setting ids users type (durabilityLens.x) and tool names are ours to show.
  for (const m of text.matchAll(/(?<![\w.`-])[a-z]+[A-Z][A-Za-z]*(?![\w`])/g)) {
    if (/^(?:durabilityLens|iOS|macOS)/.test(m[0]) || text.slice(Math.max(0, m.index! - 15), m.index!).includes('durabilityLens.')) continue;
    out.push(`${m[0]} in “${text.slice(Math.max(0, m.index! - 40), m.index! + m[0].length + 30)}”`);
  }
  for (const m of text.matchAll(/\bundefined\b|\bNaN\b|\[object |\bInfinity\b/g)) out.push(`${m[0]} in “${text.slice(Math.max(0, m.index! - 40), m.index! + 30)}”`);
  return out;
}
