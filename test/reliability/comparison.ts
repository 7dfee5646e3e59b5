// Runs the real comparison (src/profile runComparison over tedious) against the recording stand-in, and reads back
// what a user would find afterwards: the setting from sys.databases and our event sessions, over a fresh connection.
import { connect } from '../../src/db/connect';
import {
  KeyValueRestoreJournal,
  MemoryStore,
  profileConnectionSource,
  readDurability,
  runComparison,
  type CompareOptions,
  type ComparisonResult,
  type DurabilityMode,
  type ProgressEvent,
} from '../../src/profile';
import { analyze } from '../../src/tsql';
import { findOrphanSessions } from '../../src/xe';
import type { ReliabilityStandin } from './harness';

/** Setup (recreate a table) + a measured batch of 20 autocommit inserts repeated GO 5. */
export const WORKLOAD = [
  "IF OBJECT_ID(N'dbo.rel_t', N'U') IS NOT NULL DROP TABLE dbo.rel_t;",
  'CREATE TABLE dbo.rel_t (id int IDENTITY(1, 1) NOT NULL, v int NOT NULL DEFAULT (1));',
  'GO',
  'SET NOCOUNT ON;',
  'DECLARE @i int = 0;',
  'WHILE @i < 20',
  'BEGIN',
  '    INSERT INTO dbo.rel_t DEFAULT VALUES;',
  '    SET @i += 1;',
  'END',
  'GO 5',
  '',
].join('\n');

export function newJournal(): KeyValueRestoreJournal {
  return new KeyValueRestoreJournal(new MemoryStore());
}

/** DISABLED then FORCED, one repetition, no warm-up: the database is FORCED when the runs end, so restore must act. */
export function compareOptions(h: ReliabilityStandin, database: string, journal: KeyValueRestoreJournal, extra: Partial<CompareOptions> = {}): CompareOptions {
  return {
    connections: profileConnectionSource(h.profile(database), h.secret),
    batches: analyze(WORKLOAD).batches,
    setupBatches: 1,
    modes: ['DISABLED', 'FORCED'],
    repetitions: 1,
    warmup: false,
    journal,
    confirm: () => true,
    ...extra,
  };
}

export function compare(h: ReliabilityStandin, database: string, journal: KeyValueRestoreJournal, extra: Partial<CompareOptions> = {}): Promise<ComparisonResult> {
  return runComparison(compareOptions(h, database, journal, extra));
}

/**
 * Calls `action` once, at the first progress event of `step` after the change to FORCED began (or at the very first
 * `step` event when `afterForced` is false).
 */
export function atStep(step: ProgressEvent['step'], action: () => void, afterForced = true): (e: ProgressEvent) => void {
  let forced = !afterForced;
  let fired = false;
  return (e) => {
    if (e.step === 'set-durability' && e.detail?.startsWith('FORCED')) forced = true;
    if (!fired && forced && e.step === step) {
      fired = true;
      action();
    }
  };
}

export interface LeftBehind {
  setting: DurabilityMode;
  eventSessions: string[];
}

/** What a fresh connection sees: DELAYED_DURABILITY re-read from sys.databases and durability_lens_% sessions. */
export async function leftBehind(h: ReliabilityStandin, database: string): Promise<LeftBehind> {
  const s = await connect(h.profile('master'), h.secret, { role: 'monitor' });
  try {
    return { setting: await readDurability(s, database), eventSessions: await findOrphanSessions(s, []) };
  } finally {
    await s.close();
  }
}
