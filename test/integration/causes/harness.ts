// Runs the real CLI (profile / compare) against an in-process stand-in started with a cause switch (issue 29,
// test/standin/model/commitCauses.ts), and hands back the JSON and the Markdown. Figures are the stand-in model's;
// what the suites assert is which cause leads and what the product says about it, never a SQL Server figure.
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../../src/cli/dispatch';
import { EXIT } from '../../../src/cli/commands/shared';
import { processIO } from '../../../src/cli/io';
import { applyCommitCauses, type CommitCauseSwitches } from '../../standin/model/commitCauses';
import type { StandinOptions } from '../../standin/model/index';
import type { Server } from '../../standin/model/server';
import { waitFor } from '../support';
import { startStandin } from '../profile/standin';

export const SAMPLES = join(__dirname, '../../../samples');

/** A sample with its loop bound replaced (`WHILE @i < N` → `WHILE @i < rows`), failing loudly if the sample changed. */
export function sample(name: string, from?: string, to?: string): string {
  const text = readFileSync(join(SAMPLES, name), 'utf8');
  if (from === undefined || to === undefined) return text;
  if (!text.includes(from)) throw new Error(`samples/${name} no longer holds "${from}": update the causes suite`);
  return text.replace(from, to);
}

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
  /** The report written to `--out MD` (empty when the args did not ask for it). */
  markdown: string;
}

export interface CauseCase {
  standin?: StandinOptions;
  switches?: CommitCauseSwitches;
  /** The database the switch's availability group and the run use (default lab). */
  database?: string | undefined;
  /** Any further setup of the stand-in's server model. */
  setup?: (server: Server) => void;
  /** Log in as this login (declared in standin.logins) instead of sa. */
  login?: { name: string; password: string };
}

/**
 * Starts a stand-in for one case, runs `args` through the CLI — FILE becomes the script's path, MD a Markdown report
 * path (so one run gives the JSON on stdout and the Markdown) — and stops it.
 */
export async function runCase(c: CauseCase, script: string, args: readonly string[], expectCode: number = EXIT.ok): Promise<CliRun> {
  const dir = await mkdtemp(join(tmpdir(), 'lens-causes-'));
  const h = await startStandin(c.standin ?? {});
  try {
    applyCommitCauses(h.engine.state, c.switches ?? {}, c.database ?? 'lab');
    c.setup?.(h.engine.state);
    const file = join(dir, 'workload.sql');
    await writeFile(file, script);
    const out: string[] = [];
    const err: string[] = [];
    const io = { ...processIO(), env: { PW: c.login?.password ?? h.secret }, stdout: (t: string) => void out.push(t), stderr: (t: string) => void err.push(t) };
    const connection = ['--server', '127.0.0.1', '--port', String(h.server.port), '--database', c.database ?? 'lab', '--user', c.login?.name ?? 'sa', '--password-env', 'PW', '--encrypt', 'false', '--journal', join(dir, 'journal.json')];
    const md = join(dir, 'report.md');
    const code = await runCli([...args.map((a) => (a === 'FILE' ? file : a === 'MD' ? md : a)), ...connection], io);
    assert.equal(code, expectCode, err.join(''));
    const server = h.server;
    await waitFor(() => server.connections === 0, 'every connection closed');
    return { code, stdout: out.join(''), stderr: err.join(''), markdown: args.includes('MD') ? readFileSync(md, 'utf8') : '' };
  } finally {
    await h.close();
    await rm(dir, { recursive: true, force: true });
  }
}

/** The verdict's first line in the Markdown (the bold line right under "## Verdict"). */
export function verdictFirstLine(markdown: string): string {
  const lines = markdown.split('\n');
  const at = lines.indexOf('## Verdict');
  assert.ok(at >= 0, 'the report has a Verdict section');
  const first = lines.slice(at + 1).find((l) => l.trim() !== '');
  assert.ok(first, 'the Verdict has a first line');
  return first!;
}
