// The stand-in `npm run demo` starts, as data: its databases and the commit-cause switches (issue 29), so the demo and
// the test that checks the demo's samples (test/integration/causes/demoSamples.test.ts) run the same stand-in.
// A test instrument: every figure it produces is the model's, labelled STAND-IN in the panel.
import type { StandinOptions } from '../test/standin/model/index';
import { applyCommitCauses } from '../test/standin/model/commitCauses';
import type { Server } from '../test/standin/model/server';

/** `npm run demo`'s default speed factor: simulated waits (log writes, WAITFOR) take their modelled time. */
export const DEMO_SPEED_FACTOR = 1;

/** The AG demo database: samples/c3-ag-sync-commit.sql runs there (connection "Stand-in (agdemo)"). */
export const DEMO_AG_DATABASE = 'agdemo';
/** What the agdemo secondary takes to harden each commit (HADR_SYNC_COMMIT per durable commit). */
export const DEMO_AG_SYNC_COMMIT_MS = 5;

export const DEMO_STANDIN_OPTIONS: StandinOptions = {
  databases: [
    { name: 'testsuite', recoveryModel: 'SIMPLE' },
    { name: DEMO_AG_DATABASE, availabilityGroup: true },
  ],
};

/** Switches applied after the stand-in starts: agdemo's synchronous secondary (lab stays outside any AG). */
export function applyDemoCauses(server: Server): void {
  applyCommitCauses(server, { agSyncCommitMs: DEMO_AG_SYNC_COMMIT_MS }, DEMO_AG_DATABASE);
}
