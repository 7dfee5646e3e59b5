// `durability-lens analyze FILE [--json]`: batches, commits and durability diagnostics of a T-SQL script.

import { analyze } from '../../tsql/index';
import type { Analysis, DatabaseDurabilityContext } from '../../tsql/types';
import { EXIT_OK, EXIT_USAGE, type CliCommand, type CliIO } from '../io';
import { toJson } from './analyze-json';
import { renderText } from './analyze-text';

const usage = `Usage: durability-lens analyze FILE [--json] [--database NAME --delayed-durability SETTING]

Reads a T-SQL script and reports its GO batches, loops, COMMITs and durability diagnostics
(autocommit DML in loops, COMMIT in loops, delayed-durability options, FORCED settings,
unbalanced transactions). Lines and columns are 1-based.

Options:
  --json                         one JSON object on stdout instead of the report
  --database NAME                the database the script will run in (for the delayed-commit hint)
  --delayed-durability SETTING   its DELAYED_DURABILITY: DISABLED, ALLOWED or FORCED
  --help                         this text

Exit codes: 0 analysed (diagnostics do not change it), 2 usage error or unreadable file.
`;

interface AnalyzeArgs {
  file: string;
  json: boolean;
  database: DatabaseDurabilityContext | null;
}

function parseArgs(args: readonly string[]): AnalyzeArgs | string {
  let file: string | null = null;
  let json = false;
  let databaseName: string | null = null;
  let setting: string | null = null;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--json') json = true;
    else if (arg === '--database' || arg === '--delayed-durability') {
      const value = args[++i];
      if (value === undefined) return `${arg} needs a value`;
      if (arg === '--database') databaseName = value; else setting = value.toUpperCase();
    } else if (arg.startsWith('-') && arg !== '-') return `unknown option '${arg}'`;
    else if (file === null) file = arg;
    else return `only one FILE, got '${file}' and '${arg}'`;
  }
  if (file === null) return 'FILE is missing';
  if (setting !== null && setting !== 'DISABLED' && setting !== 'ALLOWED' && setting !== 'FORCED') {
    return `--delayed-durability must be DISABLED, ALLOWED or FORCED, not '${setting}'`;
  }
  if ((setting === null) !== (databaseName === null)) return '--database and --delayed-durability go together';
  const database = setting !== null && databaseName !== null
    ? { database: databaseName, delayedDurability: setting as DatabaseDurabilityContext['delayedDurability'] }
    : null;
  return { file, json, database };
}

export async function runAnalyze(args: readonly string[], io: CliIO): Promise<number> {
  const parsed = parseArgs(args);
  if (typeof parsed === 'string') {
    io.stderr(`durability-lens analyze: ${parsed}.\n\n${usage}`);
    return EXIT_USAGE;
  }
  let text: string;
  try {
    text = io.readFile(parsed.file);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    io.stderr(`durability-lens analyze: cannot read ${parsed.file}: ${reason}\nNothing was analysed; check the path and permissions.\n`);
    return EXIT_USAGE;
  }
  // Editors hide a UTF-8 byte order mark; dropping it keeps line-1 columns the same as the editor shows.
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const analysis: Analysis = analyze(text, { database: parsed.database });
  io.stdout(parsed.json ? `${JSON.stringify(toJson(parsed.file, analysis), null, 2)}\n` : renderText(parsed.file, text, analysis));
  return EXIT_OK;
}

export const analyzeCommand: CliCommand = {
  name: 'analyze',
  summary: 'report batches, commits and durability diagnostics of a T-SQL file',
  usage,
  run: runAnalyze,
};
