// The reliability cases as data: each test in test/reliability/*.test.ts that docs/reliability.md reports on takes
// its title from here, and docs.test.ts checks the document's table row for row against this list.

export interface ReliabilityCase {
  /** The test title, exactly; also the first column of the table in docs/reliability.md. */
  title: string;
  /** What happens, as the test asserts it; the second column of the table. */
  outcome: string;
}

const LEFT_CLEAN = 'restored, nothing left behind';

function c(title: string, outcome: string): ReliabilityCase {
  return { title, outcome };
}

/** Connection drops at every step of a DISABLED → FORCED comparison (the database starts DISABLED). */
export const DROP_CASES = {
  plan: c('connection drop while planning (before any change)', 'comparison rejects with the connection error; nothing was changed, nothing journalled, nothing left behind'),
  alter: c('connection drop on the ALTER DATABASE to FORCED', 'status failed (ownership-lost), the error says the setting could not be read back and the comparison stopped changing the database; restore reconnects, takes the claim back, finds it unchanged and verifies; nothing left behind'),
  afterAlter: c('connection drop right after the change to FORCED (before-snapshot)', `status failed; monitor reopened, ${LEFT_CLEAN}`),
  xeStart: c('connection drop while creating the log-flush event session', `status completed; the FORCED run's after-snapshot is taken on a new monitor connection, the claim taken back before its setting is re-read (both noted), its trace reported missing; ${LEFT_CLEAN}`),
  workload: c('workload connection drop mid-workload (3rd GO repetition)', `status workload-error, 2 of 5 repetitions kept, the run notes the lost connection; ${LEFT_CLEAN}`),
  monitorMidWorkload: c('monitor connection drop mid-workload (while sampling)', `status completed; the FORCED run's after-snapshot is taken on a new monitor connection, the claim taken back before its setting is re-read (both noted), its trace reported missing; ${LEFT_CLEAN}`),
  afterSnapshot: c('connection drop during the after-snapshot', `status completed; the FORCED run's after-snapshot is taken on a new monitor connection, the claim taken back before its setting is re-read (both noted), its trace reported missing; ${LEFT_CLEAN}`),
  xeRead: c('connection drop while reading the event session', `status completed, trace reported missing; ${LEFT_CLEAN}`),
  restore: c('connection drop during restore', `restore reconnects and verifies; ${LEFT_CLEAN}`),
  afterRestoreAlter: c(
    'connection drop right after the restoring ALTER ran',
    `the retry over a new connection finds DISABLED and still reports restored ("back to DISABLED (verified)"), not "already DISABLED"; ${LEFT_CLEAN}`,
  ),
};

export const SWEEP_CASE = c(
  'connection drop at every request of a comparison (sweep)',
  `each request dropped in turn: before the first ALTER the comparison rejects or stops with nothing changed; after it, failed / workload-error / completed, and always ${LEFT_CLEAN}`,
);

export const PROFILE_SWEEP_CASE = c(
  'connection drop at every request of a single profile run (sweep)',
  'each request dropped in turn: the run completes, ends workload-error or throws; never an event session or connection left behind',
);

export const FAULT_CASES = {
  restart: c('server restart mid-workload', `status workload-error (the connection to the server was lost: socket hang up); the run reports file stats and session waits missing because the server restarted between the snapshots; ${LEFT_CLEAN}`),
  locked: c('ALTER refused: database locked (5061)', 'status failed, durability-change error naming 5061 and "still DISABLED"; nothing changed, nothing left behind'),
  denied: c('ALTER refused: permission denied (5011)', 'status failed, durability-change error naming 5011; nothing changed, nothing left behind'),
  deniedGrant: c('ALTER refused (5011): the error names the GRANT, not a lock', 'the error gives GRANT ALTER ON DATABASE::[db] TO [user] (quoted) and no lock advice'),
  connectionLostMessage: c(
    'lost workload connection: the error says the connection was lost, not "SQL error 0"',
    'the error says the connection to the server was lost, that the comparison stopped, and that DELAYED_DURABILITY was restored to DISABLED (verified)',
  ),
  lockTimeout: c('lock timeout (1222) in the workload while FORCED', `status workload-error naming 1222, but the run went on: all 5 GO repetitions ran and the error is listed as a statement error; ${LEFT_CLEAN}`),
  snapshotLockTimeout: c('lock timeout (1222) on a DMV of the after-snapshot while FORCED', `status completed; that run's file stats reported missing with the server's reason and no GRANT; ${LEFT_CLEAN}`),
  dmvDenied: c('permission denied (300) on a DMV mid-run', `status completed, file stats reported missing with error 300 and the exact GRANT; ${LEFT_CLEAN}`),
  xeDenied: c('CREATE EVENT SESSION refused mid-comparison', `status completed without a trace, extendedEvents reported missing; ${LEFT_CLEAN}`),
  crash: c('process dies while FORCED: the journal written before the ALTER restores it on the next start', 'the entry existed before the ALTER reached the server; recoverFromJournal restores and clears it'),
  restoreFails: c('restore refused (ALTER fails twice): journal keeps the entry, next start recovers it', 'restore status failed with the exact restore statement; the journal entry survives; recoverFromJournal restores it and clears the journal'),
};

export const CANCEL_BEFORE_CHANGE = c('cancel while planning (before any change)', 'status cancelled, no restore needed (restore null), nothing journalled, nothing left behind');

/** Cancel (AbortSignal) fired at the first progress event of each step after the change to FORCED. */
export const CANCEL_STEPS = ['set-durability', 'snapshot-before', 'xe-start', 'workload', 'snapshot-after', 'xe-read', 'xe-drop', 'restore-durability'] as const;
export type CancelStep = (typeof CANCEL_STEPS)[number];

export function cancelCase(step: CancelStep): ReliabilityCase {
  return c(`cancel at ${step}`, cancelTooLate(step) ? `status completed (the last run was already measured); ${LEFT_CLEAN}` : `status cancelled; ${LEFT_CLEAN}`);
}

/** Steps after the last run's after-snapshot and trace read: nothing is left to stop, so the comparison completes. */
export function cancelTooLate(step: CancelStep): boolean {
  return step === 'xe-drop' || step === 'restore-durability';
}

export const HOSTILE_CASES = {
  compare: c('comparison on a database with a hostile name', 'exact name reached the server quoted; setting changed and restored on that database only'),
  xe: c('event session on a hostile-named database', 'session created for that database id and dropped; nothing left behind'),
  eventFile: c('event_file target under a hostile path', 'the path reaches the server as one N\'...\' literal, events are read back from it, the session is dropped'),
  login: c('comparison by a login with a hostile name', 'login accepted, setting changed and restored; the GRANT suggestions quote the login'),
  exports: c('hostile names in CSV and Markdown exports', 'shown as text; CSV cells starting with = + - @ are neutralised'),
};

export const LOAD_CASES = {
  rows: c('1,000,000-row result through runWorkload', 'all rows counted, none kept; heap peak < 128 MB over the start, < 16 MB kept after a full GC'),
  go: c('GO 10000 through runWorkload', '10,000 iterations and messages, only the first 100 kept; heap peak < 256 MB, < 24 MB kept after a full GC'),
  repeat: c('20 comparisons in a row', 'connections back to 0, no timers left, no event sessions, journal empty, setting restored each time'),
  lsp: c('language server with a 10 MB document', 'hover and code lenses answer within the (generous) deadline'),
};

const STARTED_AS_IT_WAS = 'the database ends DISABLED as it started, no durability_lens_% session, journal empty';

/** Real CLI processes against one stand-in (test/reliability/processes.test.ts). */
export const PROCESS_CASES = {
  twoProcesses: c(
    'two compare processes on one database at once',
    `one runs; the other is refused (exit 5) before its plan is confirmed, naming the owner from the marker (since when, process, machine, original setting) and who holds the database lock (session, host, program), sends no ALTER and leaves the first one's FORCED alone; ${STARTED_AS_IT_WAS}`,
  ),
  sigtermAfterAlter: c('compare killed with SIGTERM right after the first ALTER', `exit 143 after restoring; stderr says the database is DISABLED as it started (verified) and no event session is left; ${STARTED_AS_IT_WAS}`),
  sigtermDuringRun: c('compare killed with SIGTERM during the FORCED run', `the workload is cancelled, exit 143 after restoring; stderr says so; ${STARTED_AS_IT_WAS}`),
  sigtermDuringRestore: c('compare killed with SIGTERM during the restore', `the restore finishes, exit 143; stderr says so; ${STARTED_AS_IT_WAS}`),
  brokenStdout: c('compare whose stdout reader goes away (EPIPE)', `no crash: the run and its restore finish, exit 141; stderr says the setting is back (verified) and that stdout was closed before the report; ${STARTED_AS_IT_WAS}`),
  brokenStderr: c('compare whose stderr reader goes away (EPIPE, `2>&1 | head`)', `no crash: the workload is cancelled and the restore finishes, exit 141; ${STARTED_AS_IT_WAS}`),
  launcherSigterm: c(
    'SIGTERM to the launcher alone (`bin/durability-lens` re-run on Node 22 from an older Node)',
    `the launcher hands the signal to the run and waits for it: the restore finishes, the launcher exits 143; ${STARTED_AS_IT_WAS}`,
  ),
  launcherGroupSigterm: c(
    'SIGTERM to the launcher and its Node 22 child at once (a process-group kill, `timeout`, Ctrl+C)',
    `one stop, not a "second signal": the restore finishes, exit 143; ${STARTED_AS_IT_WAS}`,
  ),
  secondSignal: c(
    'a second SIGTERM during the restore exits at once',
    'exit 143 at once; stderr says the database may still be FORCED and gives the exact ALTER and the event-session query; the journal keeps the entry and recovery restores it once the process is gone',
  ),
};

/** Two owners, another session's change, recovery and the journal (test/reliability/ownership.test.ts). */
export const OWNERSHIP_CASES = {
  twoComparisons: c(
    'two comparisons on one database at once (separate connections)',
    `the second is refused (status refused, refusal in-use) with the owner from the marker (original DISABLED, last set FORCED) and the first's session and program, reads nothing for its restore and changes nothing; the first completes; ${STARTED_AS_IT_WAS}, no marker`,
  ),
  twoWindows: c('two extension windows compare one database at once', `the second window shows "another comparison is running" and changes nothing; ${STARTED_AS_IT_WAS}`),
  oneWindowTwice: c('one window starts two runs at once', 'the second is refused before any await (one run per window); the first completes and restores'),
  externalChange: c(
    'another session changes DELAYED_DURABILITY during a run',
    'that run is discarded and reported, the comparison stops (failed, external-change) and the restore leaves the other session\'s ALLOWED in place, saying so and giving the statement for the original; journal empty',
  ),
  originalUnderLock: c('the original is read after the confirmation, under the lock', 'a change between the plan and the confirmation becomes the original the database is restored to'),
  liveRecovery: c('journal recovery while that comparison still runs', 'the entry is left (in-use) naming the session that holds the database and the owner from its marker; the setting is untouched; the running comparison restores it itself'),
  journalWriters: c('two processes write one journal at once (40 puts, 20 removes)', 'no entry lost: every put has its entry file, every remove applied; no temp file left (8 processes: test/unit/profile/journal.test.ts)'),
  restoreLockWait: c('restoring ALTER meets a lock (5061) twice', `retried with backoff within the deadline, then restored (verified); ${LEFT_CLEAN}`),
  cancelThenDrop: c('cancel, then the monitor connection drops before the restore', `the restore reconnects with its own time limit (the cancelled signal is not reused) and restores; ${LEFT_CLEAN}`),
  cancelNotAcknowledged: c(
    'cancel whose acknowledgement comes after the workload cancelTimeout',
    `the default cancelTimeout is 120 s (tedious: 5 s); past it tedious closes the workload connection: the run is cancelled and notes the connection closed during the cancel; ${LEFT_CLEAN}`,
  ),
  statementError: c(
    'a severity 16 statement error in the DISABLED run',
    `the comparison is not stopped: the error is reported with its line, every GO repetition ran, the FORCED run follows; status workload-error (exit 4); ${LEFT_CLEAN}`,
  ),
  fatalError: c('a severity 20 error in the workload', `ends the run and the comparison (status workload-error, the error marked as ending the run); ${LEFT_CLEAN}`),
};

/**
 * The claim on a database outliving one connection: the ownership marker, the run lock and recovery across processes
 * and machines (test/reliability/claim.test.ts: real CLI processes, two journal directories as two machines).
 */
export const CLAIM_CASES = {
  killMonitor: c(
    'the monitor connection of a running comparison is killed (KILL <spid>)',
    'a second compare process with its own journal (another machine) and --yes is refused (exit 5) with the owner from the marker — since when, process and machine, original DISABLED, last set FORCED, its workload connection still holding the run — and sends no ALTER; the first takes its claim back, stops changing the database, restores and says so (exit 11); the database ends DISABLED, no marker, both journals empty',
  ),
  deadOwner: c(
    'the owner process is killed (SIGKILL) while FORCED; another machine compares with --yes',
    "recovery on the other machine finds the marker's process gone, restores the marker's original DISABLED (not the FORCED it reads) and removes the marker; its own comparison then runs and ends DISABLED; the first machine's leftover journal entry is later cleared as already DISABLED",
  ),
  deadOwnerSessions: c(
    'the owner process is killed (SIGKILL) during its FORCED run: recovery drops the event sessions that run left',
    "the next compare with --yes restores the marker's original, then drops exactly the killed run's log-flush session and its latency companion (named on stderr) and leaves another run's durability_lens_ session alone; no durability_lens_ session of the killed run is left",
  ),
  otherMachineGone: c(
    'a marker left by a comparison on another machine that holds nothing',
    "recovery with --yes waits --owner-grace for that owner to take its lock back, then restores the marker's original and removes the marker; the comparison runs and ends as it started",
  ),
  stopDuringOwnerGrace: c(
    "SIGINT while recovery waits for another machine's owner to come back",
    "the wait ends at once: that claim is left alone (marker and FORCED kept, with the statements to run), no comparison starts, and the process exits 130 saying so — not after the rest of --owner-grace with the claim restored and a false \"Nothing was changed\" (exit 3)",
  ),
  unreadableMarker: c(
    'a marker this version cannot read (hand-made or another tool\'s)',
    'the comparison is refused (exit 5) quoting it and giving the statement that removes it; nothing is changed and the marker is left',
  ),
  droppedDatabase: c(
    'a journal entry for a database that has since been dropped',
    'compare --yes on another database of that server says the database no longer exists (sys.databases has no row for it, read from master by a login that sees every database), clears the entry and runs (exit 0), instead of failing every run with exit 6 and an ALTER for a database that is not there; an entry whose database exists but cannot be opened still fails (exit 6) and stays',
  ),
  liveOwnerRecovery: c(
    'journal recovery from another process while the owner lives but its monitor was killed',
    'the entry is left (in-use): the owner\'s workload connection holds the run; the setting is untouched; the owner restores it itself',
  ),
};

export function allCases(): ReliabilityCase[] {
  return [
    ...Object.values(DROP_CASES),
    SWEEP_CASE,
    PROFILE_SWEEP_CASE,
    ...Object.values(FAULT_CASES),
    CANCEL_BEFORE_CHANGE,
    ...CANCEL_STEPS.map(cancelCase),
    ...Object.values(HOSTILE_CASES),
    ...Object.values(LOAD_CASES),
    ...Object.values(PROCESS_CASES),
    ...Object.values(OWNERSHIP_CASES),
    ...Object.values(CLAIM_CASES),
  ];
}
