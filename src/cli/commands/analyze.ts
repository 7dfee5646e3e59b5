// `durability-lens analyze FILE|DIR|GLOB... [--json]`: batches, routines, commits and durability diagnostics of T-SQL
// scripts, many files in one process (start-up dominates a CI run over a repository of scripts).

import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { analysisToSarif, pathToSarifUri, type SarifFileInput } from '../../report/sarif';
import { jsonText } from '../../report/jsonText';
import { analyze } from '../../tsql/index';
import type { DatabaseDurabilityContext } from '../../tsql/types';
import { EXIT_OK, EXIT_USAGE, shortUsage, type CliCommand, type CliIO } from '../io';
import { DEFAULT_LEGACY_ENCODING, encodingName } from '../textDecoding';
import { expandInputs } from './analyze-files';
import { toJson, type AnalyzeJson } from './analyze-json';
import { renderText } from './analyze-text';

const usage = `Usage: durability-lens analyze FILE|DIR|GLOB... [--json] [--encoding CODEPAGE]
                              [--database NAME --delayed-durability SETTING]

Reads T-SQL scripts and reports their GO batches, routines, loops, COMMITs and durability diagnostics
(autocommit DML in loops, COMMIT in loops, delayed-durability options, FORCED settings,
unbalanced transactions). Lines and columns are 1-based, counted in the decoded text. Findings hidden in the
editor by a comment are hidden here too: \`-- durability-lens: ignore CODE\` (its line, or the next line of code
when alone on its line) and \`-- durability-lens: ignore-file CODE\` (docs/analyze.md).

A DIR means every .sql file under it; a GLOB ('scripts/**/*.sql', quoted so the shell leaves it) is matched
under its fixed leading folder. Files are read as UTF-8 or UTF-16 (by byte order mark, or UTF-16 by its zero
bytes); a file that is not valid UTF-8 is read in the legacy code page (default ${DEFAULT_LEGACY_ENCODING}, with a
warning); a binary file is refused.

Options:
  --json                         JSON on stdout instead of the report: one object for one FILE,
                                 {"files": [...], "unreadable": [...]} for a DIR, a GLOB or several files
  --encoding CODEPAGE            legacy code page for files that are not UTF-8/UTF-16 (e.g. windows-1251, latin1)
  --database NAME                the database the script will run in (for the delayed-commit hint)
  --delayed-durability SETTING   its DELAYED_DURABILITY: DISABLED, ALLOWED or FORCED
  --sarif FILE                   also write the diagnostics as SARIF 2.1.0 to FILE (code scanning)
  --help                         this text

Exit codes: 0 analysed (diagnostics do not change it), 2 usage error, or a file unreadable or not text
(the other files are still analysed).
`;

interface AnalyzeArgs {
  inputs: string[];
  json: boolean;
  encoding: string | null;
  database: DatabaseDurabilityContext | null;
  sarif: string | null;
}

function parseArgs(args: readonly string[]): AnalyzeArgs | string {
  const inputs: string[] = [];
  let json = false;
  let databaseName: string | null = null;
  let setting: string | null = null;
  let encoding: string | null = null;
  let sarif: string | null = null;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--json') json = true;
    else if (arg === '--sarif') {
      sarif = args[++i] ?? null;
      if (sarif === null || sarif === '') return '--sarif needs a file to write';
    } else if (arg === '--database' || arg === '--delayed-durability' || arg === '--encoding') {
      const value = args[++i];
      if (value === undefined) return `${arg} needs a value`;
      if (arg === '--database') databaseName = value;
      else if (arg === '--encoding') {
        encoding = encodingName(value);
        if (encoding === null) return `--encoding: unknown code page '${value}' (try windows-1252, windows-1251, iso-8859-2, shift_jis)`;
      } else setting = value.toUpperCase();
    } else if (arg.startsWith('-') && arg !== '-') return `unknown option '${arg}'`;
    else inputs.push(arg);
  }
  if (inputs.length === 0) return 'FILE is missing';
  if (setting !== null && setting !== 'DISABLED' && setting !== 'ALLOWED' && setting !== 'FORCED') {
    return `--delayed-durability must be DISABLED, ALLOWED or FORCED, not '${setting}'`;
  }
  if ((setting === null) !== (databaseName === null)) return '--database and --delayed-durability go together';
  const database = setting !== null && databaseName !== null
    ? { database: databaseName, delayedDurability: setting as DatabaseDurabilityContext['delayedDurability'] }
    : null;
  return { inputs, json, encoding, database, sarif };
}

/** One plain FILE keeps the original one-object JSON shape; anything that may mean several files gets the list. */
function isSingleFile(inputs: readonly string[], files: readonly string[]): boolean {
  return inputs.length === 1 && files.length === 1 && files[0] === inputs[0];
}

export async function runAnalyze(args: readonly string[], io: CliIO): Promise<number> {
  const parsed = parseArgs(args);
  if (typeof parsed === 'string') {
    io.stderr(shortUsage('analyze', parsed, usage));
    return EXIT_USAGE;
  }
  const { files, unmatched } = expandInputs(parsed.inputs);
  const single = isSingleFile(parsed.inputs, files);
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
    const analysis = analyze(text, { database: parsed.database });
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

/** Paths under the working folder become relative URIs (code scanning resolves them against the checkout). */
function sarifUri(file: string): string {
  const relative = path.relative(process.cwd(), path.resolve(file));
  return relative.startsWith('..') || path.isAbsolute(relative) ? pathToFileURL(path.resolve(file)).href : pathToSarifUri(relative);
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

export const analyzeCommand: CliCommand = {
  name: 'analyze',
  summary: 'report batches, routines, commits and durability diagnostics of T-SQL files',
  usage,
  run: runAnalyze,
};
