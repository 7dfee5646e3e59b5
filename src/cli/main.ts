// CLI entry point (bundled to dist/cli.js, started by bin/durability-lens): wires the process to runCli.

import { runCli } from './dispatch';
import { processIO } from './io';
import { terminalSafe } from './terminalText';
import { nodeVersionProblem } from './nodeVersion';

const tooOld = nodeVersionProblem(process.argv.slice(2), process.versions.node);
if (tooOld) {
  process.stderr.write(tooOld);
  process.exitCode = 1;
} else {
  runCli(process.argv.slice(2), processIO()).then(
    // A run's own failure code wins; otherwise keep a code set meanwhile (a closed stdout after the report: 141).
  (code) => { process.exitCode = code !== 0 ? code : process.exitCode ?? 0; },
    (error: unknown) => {
      process.stderr.write(terminalSafe(`durability-lens: unexpected failure: ${error instanceof Error ? error.stack ?? error.message : String(error)}\n`));
      process.exitCode = 1;
    },
  );
}
