// The least-privileged login's SQL as the README shows it ("Permissions": two blocks and a table of per-version names)
// and as .github/workflows/real-server.yml runs it (a sqlcmd script with one variable per version-dependent name and a
// matrix holding the names) — read from both files, so tests can prove they say the same and run it.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const ROOT = resolve(__dirname, '../../..');
export const WORKFLOW_FILE = join(ROOT, '.github/workflows/real-server.yml');
export const README_FILE = join(ROOT, 'README.md');

/** What the password looks like in each file; both become this placeholder when statements are compared. */
const PASSWORD = "N'<password>'";

function between(text: string, marker: string): string {
  const open = `<!-- permissions:${marker} -->`;
  const close = `<!-- /permissions:${marker} -->`;
  const start = text.indexOf(open);
  const end = text.indexOf(close);
  if (start < 0 || end < start) throw new Error(`README.md has no ${open} … ${close} section`);
  return text.slice(start + open.length, end);
}

function sqlFence(section: string, marker: string): string {
  const m = /```sql\n([\s\S]*?)```/.exec(section);
  if (!m) throw new Error(`README.md's ${marker} section has no sql block`);
  return m[1]!;
}

export interface ReadmePermissions {
  monitoring: string;
  workload: string;
  /** The 2022+ name (as in the SQL) → the 2016–2019 name, from the README's table. */
  before2022: Map<string, string>;
}

export function readmePermissions(readme = readFileSync(README_FILE, 'utf8')): ReadmePermissions {
  const before2022 = new Map<string, string>();
  for (const m of between(readme, 'versions').matchAll(/^\| `([^`]+)` \| `([^`]+)` \|$/gm)) before2022.set(m[1]!, m[2]!);
  if (before2022.size === 0) throw new Error("README.md's versions table lists no names");
  return { monitoring: sqlFence(between(readme, 'monitoring'), 'monitoring'), workload: sqlFence(between(readme, 'workload'), 'workload'), before2022 };
}

export interface MatrixEntry {
  version: string;
  vars: Record<string, string>;
}

export interface WorkflowLogin {
  /** The sqlcmd script of the login step, with $(VAR) references. */
  script: string;
  matrix: MatrixEntry[];
}

/** Matrix key → the sqlcmd variable the login step passes it as (its `env:` and `-v`). */
const MATRIX_VARIABLES: Record<string, string> = { server_state: 'SERVER_STATE', database_state: 'DATABASE_STATE', event_sessions: 'EVENT_SESSIONS' };

export function workflowLogin(yaml = readFileSync(WORKFLOW_FILE, 'utf8')): WorkflowLogin {
  const heredoc = /cat > login\.sql <<'SQL'\n([\s\S]*?)\n\s*SQL\n/.exec(yaml);
  if (!heredoc) throw new Error('real-server.yml has no login.sql heredoc');
  const indent = /^( *)/.exec(heredoc[1]!)![1]!.length;
  const script = heredoc[1]!.split('\n').map((l) => l.slice(indent)).join('\n');
  const matrix: MatrixEntry[] = [];
  for (const entry of yaml.matchAll(/- version: '(\d{4})'\n((?: {12}\w+: .*\n)+)/g)) {
    const vars: Record<string, string> = {};
    for (const line of entry[2]!.matchAll(/^ {12}(\w+): (.*)$/gm)) {
      const variable = MATRIX_VARIABLES[line[1]!];
      if (variable) vars[variable] = line[2]!.trim();
    }
    matrix.push({ version: entry[1]!, vars });
  }
  return { script, matrix };
}

/** The workflow's script for one matrix entry, as sqlcmd runs it (`password` for $(LENS_PASSWORD)). */
export function renderWorkflow(login: WorkflowLogin, version: string, password = '<password>'): string {
  const entry = login.matrix.find((m) => m.version === version);
  if (!entry) throw new Error(`no matrix entry for ${version}`);
  return login.script.replace(/\$\((\w+)\)/g, (_whole, name: string) => {
    if (name === 'LENS_PASSWORD') return password;
    const value = entry.vars[name];
    if (value === undefined) throw new Error(`$(${name}) is not set by the matrix for ${version}`);
    return value;
  });
}

/** The README's two blocks for `version`: its SQL as written for 2022+, the table's names for 2016–2019. */
export function renderReadme(p: ReadmePermissions, version: string): string {
  let sql = `${p.monitoring}\n${p.workload}`;
  if (Number(version) < 2022) for (const [modern, older] of p.before2022) sql = sql.split(modern).join(older);
  return sql;
}

/** Statements without comments, GO lines and layout, the password as a placeholder: what the two files must agree on. */
export function statements(sql: string): string[] {
  return sql
    .split('\n')
    .map((l) => l.replace(/--.*$/, ''))
    .filter((l) => !/^\s*GO\s*$/i.test(l))
    .join('\n')
    .split(';')
    .map((s) => s.replace(/\s+/g, ' ').trim().replace(/N'[^']*'/g, PASSWORD))
    .filter((s) => s !== '');
}

/** The workflow's script for `version` split into its GO batches (for running it through a driver, not sqlcmd). */
export function batches(sql: string): string[] {
  return sql.split(/^\s*GO\s*$/im).map((b) => b.trim()).filter((b) => b !== '');
}
