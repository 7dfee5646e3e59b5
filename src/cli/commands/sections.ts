// The option sections several commands share, declared once: how to connect (every command that connects), how a
// run is measured (profile, compare, record), and the output flags. Each command lists the sections it takes.
import { encodingName } from '../textDecoding';
import { accumulated, choice, converted, flag, invalid, negatedFlag, numberOption, oneOfFlags, refused, section, text, textWithDefault, TIMER_LIMIT_MS, TIMER_LIMIT_SECONDS, type Options, type ValuesOf } from '../options';

const seconds = (n: number) => Math.round(n * 1000);

export const CONNECTION = section('Connection', {
  connection: text('--connection', {
    placeholder: 'NAME|STRING',
    help: 'a profile name from the durabilityLens.connections setting, or an ADO.NET\nconnection string ("Server=host,1433;Database=lab;User Id=me;Encrypt=true")',
  }),
  settings: text('--settings', {
    placeholder: 'PATH',
    help: "settings file holding durabilityLens.connections (default: VS Code's\nuser settings.json; a folder's .vscode/settings.json is never read)",
  }),
  connectTimeoutMs: numberOption('--connect-timeout', { placeholder: 'SECONDS', help: 'give up connecting after this long (default 15)', rule: { above: 0, max: TIMER_LIMIT_SECONDS, unit: 'seconds' }, initial: null, scale: seconds }),
  server: text('--server', { placeholder: 'HOST', help: 'server name or address', heading: 'Or, instead of --connection:' }),
  port: numberOption('--port', { placeholder: 'N', help: 'TCP port (default 1433)', rule: { integer: true, min: 1, max: 65535 }, initial: null }),
  database: text('--database', { placeholder: 'NAME', help: 'database to run in' }),
  user: text('--user', { placeholder: 'NAME', help: 'SQL login' }),
  passwordEnv: textWithDefault('--password-env', 'DURABILITY_LENS_PASSWORD', {
    placeholder: 'VAR',
    help: 'read the password from environment variable VAR\n(default: DURABILITY_LENS_PASSWORD); passwords are never taken as arguments',
  }),
  encrypt: choice<boolean | 'strict'>('--encrypt', { placeholder: 'true|false|strict', help: 'TLS mode (default true; strict = TDS 8.0)' }, { true: true, false: false, strict: 'strict' }, true),
  trustServerCertificate: flag('--trust-server-certificate', { help: 'accept a certificate this machine does not trust' }),
  journal: text('--journal', { placeholder: 'PATH', help: 'restore journal folder, one file per entry\n(default ~/.durability-lens/restore-journal)' }),
  password: refused('--password', 'passwords are not accepted on the command line; put it in an environment variable (--password-env VAR)'),
});

/** The connection options as parsed: what resolveCliConnection turns into a profile and a secret. */
export type ConnectionArgs = ValuesOf<readonly [typeof CONNECTION]>;

/** Wait types from a comma list, added to those of earlier uses of the option. */
function waitTypes(name: string) {
  return accumulated<string[]>(name, {
    placeholder: 'W1,W2',
    help: name === '--benign-include'
      ? 'show these wait types although the shipped benign list hides them\n(e.g. PREEMPTIVE_OS_FLUSHFILEBUFFERS)'
      : 'hide these wait types from the server waits as benign',
    needs: 'a comma-separated list of wait types',
  }, () => [], (raw, current) => {
    const names = raw.split(',').map((w) => w.trim()).filter((w) => w.length > 0);
    return names.length === 0 ? invalid(`${name} needs a comma-separated list of wait types`) : [...current, ...names];
  });
}

const RUN_OPTIONS = {
  workloadTimeoutMs: numberOption('--timeout', { placeholder: 'SECONDS', help: 'cancel the workload after this long (the run is reported as cancelled)', rule: { above: 0, max: TIMER_LIMIT_SECONDS, unit: 'seconds' }, initial: null, scale: seconds }),
  sampleIntervalMs: numberOption('--sample-interval', { placeholder: 'MS', help: 'sample per-file IO and log flushes every MS ms while it runs (default 1000)', rule: { above: 0, max: TIMER_LIMIT_MS, unit: 'milliseconds' }, initial: null, scale: Math.round }),
  sampling: negatedFlag('--no-sampling', { help: 'no samples during the run' }),
  xe: negatedFlag('--no-xe', { help: 'do not create the log-flush (nor the per-statement) event session' }),
  statements: negatedFlag('--no-statements', { help: "do not trace the workload's statements (no per-statement attribution)" }),
  benignInclude: waitTypes('--benign-include'),
  benignExclude: waitTypes('--benign-exclude'),
};

/** --timeout, --sample-interval, --no-sampling, --no-xe, --no-statements, --benign-include/--benign-exclude. */
export const RUN = section('Run', RUN_OPTIONS);

/** The run section with options a command adds to it (record: --duration). */
export function runSection<O extends Options>(more: O) {
  return section('Run', { ...RUN_OPTIONS, ...more });
}

export type RunArgs = ValuesOf<readonly [typeof RUN]>;

/** `--markdown` (default) | `--json`, with what each prints for this command. */
export function formatFlags(markdown: string, json: string) {
  return oneOfFlags<'markdown' | 'json'>('markdown', { '--markdown': { means: 'markdown', help: markdown }, '--json': { means: 'json', help: json } });
}

/** `--out PATH`: also write the report there. */
export function outOption(help = 'also write the report to PATH (.md, .csv or .json)') {
  return text('--out', { placeholder: 'PATH', help });
}

/** `--encoding CODEPAGE`: a code page (WHATWG label) for files that are neither UTF-16 nor valid UTF-8 (analyze, trace). */
export function encodingOption(help: string) {
  return converted('--encoding', { placeholder: 'CODEPAGE', help }, (raw) =>
    encodingName(raw) ?? invalid(`--encoding: unknown code page '${raw}' (try windows-1252, windows-1251, iso-8859-2, shift_jis)`));
}
