// Hover texts for delayed durability: what each setting, COMMIT option and sys.sp_flush_log means.
// Every claim follows "Control Transaction Durability" and the pages linked below (see
// shared/reference/sqlserver.md §5); keep it that way when editing.
// The only server-provided text here is the connected database's name and setting: the name goes into a code span
// that no backtick, bracket or HTML can leave (no remote image, no link in a hover), the setting must be one of three.
import { markdownCodeSpan } from '../shared/markdownCode';

export const DOC = {
  durability: 'https://learn.microsoft.com/sql/relational-databases/logs/control-transaction-durability',
  flushLog: 'https://learn.microsoft.com/sql/relational-databases/system-stored-procedures/sys-sp-flush-log-transact-sql',
  setOptions: 'https://learn.microsoft.com/sql/t-sql/statements/alter-database-transact-sql-set-options',
} as const;

export type DatabaseSetting = 'DISABLED' | 'ALLOWED' | 'FORCED';

const link = (title: string, url: string) => `[${title}](${url})`;
const DURABILITY_LINK = link('Control Transaction Durability', DOC.durability);
const SET_OPTIONS_LINK = link('ALTER DATABASE SET options', DOC.setOptions);

const LOSS =
  'A delayed durable commit returns before its log records are on disk; if SQL Server crashes, shuts down ' +
  '(a planned shutdown counts too) or restarts before that log is flushed, those committed transactions can be lost.';

const ALWAYS_FULL =
  'Cross-database and distributed (DTC) transactions, and transactions that write change-tracked tables, are always fully durable.';

export const SETTING_TEXT: Record<DatabaseSetting, string> = {
  DISABLED:
    '**DELAYED_DURABILITY = DISABLED** (the default): every commit is fully durable, whatever ' +
    '`COMMIT … WITH (DELAYED_DURABILITY = …)` or `BEGIN ATOMIC WITH (DELAYED_DURABILITY = …)` says. ' +
    'A fully durable commit returns only after its log records are written to disk.',
  ALLOWED:
    '**DELAYED_DURABILITY = ALLOWED**: each transaction decides. Commits with ' +
    '`WITH (DELAYED_DURABILITY = ON)` (or an atomic block with that option) are delayed durable; all others stay fully durable. ' +
    ALWAYS_FULL,
  FORCED:
    '**DELAYED_DURABILITY = FORCED**: every commit is delayed durable, whatever the COMMIT option says. ' +
    LOSS + ' ' + ALWAYS_FULL,
};

export function databaseOptionText(): string {
  return [
    '**DELAYED_DURABILITY** (database option, SQL Server 2014 and later, Azure SQL Database)',
    '',
    '`ALTER DATABASE [db] SET DELAYED_DURABILITY = { DISABLED | ALLOWED | FORCED }`',
    '',
    '- `DISABLED` (default): every commit is fully durable.',
    '- `ALLOWED`: each transaction\'s own option decides.',
    '- `FORCED`: every commit is delayed durable.',
    '',
    LOSS,
    '',
    'Current value: `sys.databases.delayed_durability_desc`.',
    '',
    `${DURABILITY_LINK} · ${SET_OPTIONS_LINK}`,
  ].join('\n');
}

export function settingValueText(value: DatabaseSetting): string {
  return `${SETTING_TEXT[value]}\n\n${DURABILITY_LINK} · ${SET_OPTIONS_LINK}`;
}

/** Durability of a single-database commit, per the table on "Control Transaction Durability". */
export function commitOutcome(option: 'ON' | 'OFF' | null, database: DatabaseSetting): 'fully durable' | 'delayed durable' {
  if (database === 'FORCED') return 'delayed durable';
  if (database === 'ALLOWED' && option === 'ON') return 'delayed durable';
  return 'fully durable';
}

export function commitOptionText(option: 'ON' | 'OFF'): string {
  const meaning =
    option === 'ON'
      ? '**COMMIT … WITH (DELAYED_DURABILITY = ON)** asks for a delayed durable commit. It takes effect only when the ' +
        'database is `ALLOWED`: `DISABLED` ignores it (fully durable), `FORCED` makes every commit delayed anyway.'
      : '**COMMIT … WITH (DELAYED_DURABILITY = OFF)** asks for a fully durable commit. `DISABLED` and `ALLOWED` honour it; ' +
        'under `FORCED` the option is ignored and the commit is delayed durable.';
  const lines = [meaning, ''];
  if (option === 'ON') lines.push(LOSS, '');
  lines.push(ALWAYS_FULL, '', DURABILITY_LINK);
  return lines.join('\n');
}

export function atomicText(): string {
  return [
    '**BEGIN ATOMIC WITH (DELAYED_DURABILITY = ON | OFF, …)** (natively compiled procedures): the atomic block commits ' +
      'with the durability it asks for, under the same database rules as `COMMIT … WITH (DELAYED_DURABILITY = …)`: ' +
      'honoured when the database is `ALLOWED`, ignored under `DISABLED` (fully durable) and `FORCED` (delayed).',
    '',
    'If a transaction is already open, the atomic block makes a savepoint in it.',
    '',
    DURABILITY_LINK,
  ].join('\n');
}

export function flushLogText(): string {
  return [
    '**sys.sp_flush_log**: flushes the current database\'s log to disk, which hardens every delayed durable commit made before it.',
    '',
    'No parameters and no result set; the return code is **1 on success** (not 0).',
    'Running it every N seconds caps the possible loss of delayed durable commits at about N seconds.',
    '',
    `${link('sys.sp_flush_log', DOC.flushLog)} · ${DURABILITY_LINK}`,
  ].join('\n');
}

const SETTINGS: readonly string[] = ['DISABLED', 'ALLOWED', 'FORCED'];

/** What a COMMIT will do on the connected database; without a connection (or with a setting we don't know), the whole table. */
export function commitText(option: 'ON' | 'OFF' | null, context: { database: string; delayedDurability: DatabaseSetting } | null): string {
  const asked = option === null ? 'no durability option' : `\`WITH (DELAYED_DURABILITY = ${option})\``;
  const database = context && typeof context.database === 'string' && SETTINGS.includes(context.delayedDurability) ? context : null;
  if (database) {
    const outcome = commitOutcome(option, database.delayedDurability);
    return [
      `**COMMIT** with ${asked}: **${outcome}** on database ${markdownCodeSpan(database.database)} (DELAYED_DURABILITY = ${database.delayedDurability}).`,
      '',
      outcome === 'delayed durable' ? LOSS : 'It returns only after its log records are written to disk.',
      '',
      ALWAYS_FULL,
      '',
      DURABILITY_LINK,
    ].join('\n');
  }
  const row = (setting: DatabaseSetting) => `| ${setting} | ${commitOutcome(option, setting)} |`;
  return [
    `**COMMIT** with ${asked}. Its durability depends on the database's DELAYED_DURABILITY setting:`,
    '',
    '| database | this commit |',
    '|---|---|',
    row('DISABLED'),
    row('ALLOWED'),
    row('FORCED'),
    '',
    ALWAYS_FULL,
    '',
    DURABILITY_LINK,
  ].join('\n');
}
