// Runs `durability-lens top-log` in this process (the CLI's own dispatch, the real driver) and reads its JSON.
import { runCli } from '../../../src/cli/dispatch';
import { processIO } from '../../../src/cli/io';
import type { TopLogDocument } from '../../../src/report/topLog';

export interface CliOutcome {
  code: number;
  out: string;
  err: string;
}

export async function topLogCli(connection: string[], env: Record<string, string>, ...extra: string[]): Promise<CliOutcome> {
  const out: string[] = [];
  const err: string[] = [];
  const io = { ...processIO(), env, stdout: (t: string) => void out.push(t), stderr: (t: string) => void err.push(t) };
  const code = await runCli(['top-log', ...connection, ...extra], io);
  return { code, out: out.join(''), err: err.join('') };
}

export function documentOf(o: CliOutcome): TopLogDocument {
  try {
    return JSON.parse(o.out) as TopLogDocument;
  } catch {
    throw new Error(`top-log --json printed no JSON (exit ${o.code}): ${o.out}${o.err}`);
  }
}

