// `npm run demo:cli`: starts the TDS stand-in in-process on a free port, runs `durability-lens compare` on the S1
// sample (scaled down) through the real CLI code, prints the comparison table, and stops the stand-in.
// Every figure printed comes from the stand-in's model, not from SQL Server, and is labelled so.
import { readFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../src/cli/dispatch';
import { processIO } from '../src/cli/io';
import { createStandin } from '../test/standin/model/index';
import { startStandinServer } from '../test/standin/server';

const ROWS = 500;

async function main(): Promise<number> {
  // speedFactor 1 with an HDD-like 2 ms log write: the stand-in really waits, so elapsed times differ as they would.
  const engine = createStandin({ speedFactor: 1, logWriteLatencyMs: 2 });
  const server = await startStandinServer({ engine });
  const dir = mkdtempSync(join(tmpdir(), 'durability-lens-demo-'));
  try {
    const sample = readFileSync(join(process.cwd(), 'samples', 's1-single-row-inserts.sql'), 'utf8').replace('WHILE @i < 10000', `WHILE @i < ${ROWS}`);
    const file = join(dir, `s1-${ROWS}-rows.sql`);
    writeFileSync(file, sample);
    process.stdout.write(
      `Durability Lens demo: S1 (${ROWS} single-row inserts) under DISABLED and FORCED, against the in-process\n` +
        `stand-in on 127.0.0.1:${server.port}. STAND-IN FIGURES: simulated by a model, not measured on SQL Server.\n\n`,
    );
    const io = { ...processIO(), env: { DURABILITY_LENS_DEMO_PASSWORD: 'StandIn-1' } };
    return await runCli(
      [
        'compare', file,
        '--server', '127.0.0.1', '--port', String(server.port), '--database', 'lab', '--user', 'sa',
        '--password-env', 'DURABILITY_LENS_DEMO_PASSWORD', '--encrypt', 'false',
        '--journal', join(dir, 'restore-journal.json'),
        '--setup-batches', '2', '--repeat', '3', '--yes',
      ],
      io,
    );
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`demo failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  },
);
