// `durability-lens analyze FILE|DIR|GLOB... [--json]`: batches, routines, commits and durability diagnostics of T-SQL
// scripts, many files in one process (start-up dominates a CI run over a repository of scripts).

import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { analysisToSarif, pathToSarifUri, type SarifFileInput } from '../../report/sarif';
import { jsonText } from '../../report/jsonText';
import { analyze } from '../../tsql/index';
import type { DatabaseDurabilityContext } from '../../tsql/types';
import { EXIT_OK, EXIT_USAGE, type CliIO } from '../io';
import { choice, declareCommand, flag, section, text, type ParsedCommandLine, type UsageFailure } from '../options';
import { DEFAULT_LEGACY_ENCODING } from '../textDecoding';
import { expandInputs } from './analyze-files';
import { toJson, type AnalyzeJson } from './analyze-json';
import { renderText } from './analyze-text';
import { encodingOption } from './sections';

const OPTIONS = section('Options', {
  json: flag('--json', { help: 'JSON on stdout instead of the report: one object for one FILE,\n{"files": [...], "unreadable": [...]} for a DIR, a GLOB or several files' }),
  encoding: encodingOption('legacy code page for files that are not UTF-8/UTF-16 (e.g. windows-1251, latin1)'),
  database: text('--database', { placeholder: 'NAME', help: 'the database the script will run in (for the delayed-commit hint)' }),
  delayedDurability: choice<DatabaseDurabilityContext['delayedDurability'] | null>('--delayed-durability', { placeholder: 'SETTING', help: 'its DELAYED_DURABILITY: DISABLED, ALLOWED or FORCED' }, { DISABLED: 'DISABLED', ALLOWED: 'ALLOWED', FORCED: 'FORCED' }, null),
  sarif: text('--sarif', { placeholder: 'FILE', help: 'also write the diagnostics as SARIF 2.1.0 to FILE (code scanning)', needs: 'a file to write' }),
});

const SECTIONS = [OPTIONS] as const;

/** One plain FILE keeps the original one-object JSON shape; anything that may mean several files gets the list. */
function isSingleFile(inputs: readonly string[], files: readonly string[]): boolean {
  return inputs.length === 1 && files.length === 1 && files[0] === inputs[0];
}

async function runAnalyze({ options: parsed, operands: inputs }: ParsedCommandLine<typeof SECTIONS>, io: CliIO, usageError: UsageFailure): Promise<number> {
  if (inputs.length === 0) return usageError('FILE is missing');
  const { database: databaseName, delayedDurability } = parsed;
  if ((databaseName === null) !== (delayedDurability === null)) return usageError('--database and --delayed-durability go together');
  const database = databaseName !== null && delayedDurability !== null ? { database: databaseName, delayedDurability } : null;
  const { files, unmatched } = expandInputs(inputs);
  const single = isSingleFile(inputs, files);
  const results: AnalyzeJson[] = [];
  const unreadable: { file: string; reason: string }[] = unmatched.map((file) => ({ file, reason: 'no .sql file matched' }));
  const reports: string[] = [];
  const sarifFiles: SarifFileInput[] = [];
  for (const u of unreadable) io.stderr(`durability-lens analyze: ${u.file}: ${u.reason}.\n`);
  for (const file of files) {
    let text: string;
    try {
      text = io.readFile(file, { encoding: parsed.encoding });
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      unreadable.push({ file, reason });
      io.stderr(`durability-lens analyze: cannot read ${file}: ${reason}\nNothing was analysed in it; check the path, permissions and that it is a text file.\n`);
      continue;
    }
    // Editors hide a UTF-8 byte order mark; dropping it keeps line-1 columns the same as the editor shows.
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    const analysis = analyze(text, { database });
    sarifFiles.push({ uri: sarifUri(file), diagnostics: analysis.diagnostics });
    if (parsed.json) results.push(toJson(file, analysis));
    else reports.push(renderText(file, text, analysis));
  }
  if (parsed.json) {
    const document = single && results.length === 1 ? results[0] : { files: results, unreadable };
    if (!single || results.length === 1) io.stdout(`${jsonText(document)}\n`);
  } else if (reports.length > 0) io.stdout(reports.join('\n'));
  if (parsed.sarif !== null && !writeSarif(io, parsed.sarif, sarifFiles)) return EXIT_USAGE;
  return unreadable.length > 0 ? EXIT_USAGE : EXIT_OK;
}

/**
 * Paths under the working folder become relative URIs (code scanning resolves them against the checkout), split by
 * the platform's own separators (`p`: path.win32 or path.posix; a test passes the other one); others a file: URI.
 */
export function sarifUri(file: string, cwd: string = process.cwd(), p: path.PlatformPath = path): string {
  const absolute = p.resolve(cwd, file);
  const relative = p.relative(cwd, absolute);
  const outside = relative === '..' || relative.startsWith(`..${p.sep}`) || p.isAbsolute(relative);
  const windows = p === path.win32;
  // pathToFileURL's `windows` option (Node 20.13/22.1) is ignored by an older Node, whose default is this platform's.
  return outside ? pathToFileURL(absolute, { windows }).href : pathToSarifUri(relative, windows ? 'win32' : 'posix');
}

function writeSarif(io: CliIO, target: string, files: readonly SarifFileInput[]): boolean {
  const text = `${jsonText(analysisToSarif(files))}\n`;
  const write = (io as CliIO & { writeFile?(p: string, t: string): void }).writeFile ?? ((p: string, t: string) => fs.writeFileSync(p, t, 'utf8'));
  try {
    write(target, text);
    return true;
  } catch (error) {
    io.stderr(`durability-lens analyze: cannot write --sarif ${target}: ${error instanceof Error ? error.message : String(error)}\n`);
    return false;
  }
}

export const analyzeCommand = declareCommand({
  name: 'analyze',
  summary: 'report batches, routines, commits and durability diagnostics of T-SQL files',
  synopsis: `Usage: durability-lens analyze FILE|DIR|GLOB... [--json] [--encoding CODEPAGE]
                              [--database NAME --delayed-durability SETTING]`,
  about: `Reads T-SQL scripts and reports their GO batches, routines, loops, COMMITs and durability diagnostics
(autocommit DML in loops, COMMIT in loops, delayed-durability options, FORCED settings,
unbalanced transactions). Lines and columns are 1-based, counted in the decoded text. Findings hidden in the
editor by a comment are hidden here too: \`-- durability-lens: ignore CODE\` (its line, or the next line of code
when alone on its line) and \`-- durability-lens: ignore-file CODE\` (docs/analyze.md).

A DIR means every .sql file under it; a GLOB ('scripts/**/*.sql', quoted so the shell leaves it) is matched
under its fixed leading folder. Files are read as UTF-8 or UTF-16 (by byte order mark, or UTF-16 by its zero
bytes); a file that is not valid UTF-8 is read in the legacy code page (default ${DEFAULT_LEGACY_ENCODING}, with a
warning); a binary file is refused.`,
  sections: SECTIONS,
  operands: { label: 'FILE', max: Infinity },
  epilog: `Exit codes: 0 analysed (diagnostics do not change it), 2 usage error, or a file unreadable or not text
(the other files are still analysed).`,
  run: runAnalyze,
});
