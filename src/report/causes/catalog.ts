// What each cause means for delayed durability and what fixes it, from the Learn pages in learn.ts. One entry per
// cause; the model (index.ts) fills in the time and the evidence.
import type { CauseId, DelayedDurabilityHelp } from './types';
import {
  LEARN_DELAYED_DURABILITY,
  LEARN_HYPERSCALE_DIAGNOSTICS,
  LEARN_HYPERSCALE_LOG_RATE,
  LEARN_LOG_RATE_GOVERNANCE,
  LEARN_RESOURCE_GOVERNANCE_DMV,
  LEARN_SCHEMA_ONLY,
  LEARN_SLOW_IO,
  LEARN_TEMPDB,
  LEARN_WAIT_TYPES,
} from './learn';

export interface CauseEntry {
  label: string;
  helps: DelayedDurabilityHelp;
  helpsWhy: string;
  fix: string;
  learn: string[];
}

export const CAUSE_CATALOG: Record<CauseId, CauseEntry> = {
  'log-disk': {
    label: 'The log disk',
    helps: true,
    helpsWhy: 'Learn: "If your performance issues are due to latency in transaction log writes, your application will likely benefit from using delayed transaction durability" — the commit no longer waits for the write, at the price of losing the last commits on a crash.',
    fix: 'Faster log storage (its own volume, low write latency); Learn lists transaction log disk latency as the most common cause of WRITELOG. Batching commits also cuts the number of writes that pay the latency.',
    learn: [LEARN_SLOW_IO, LEARN_DELAYED_DURABILITY],
  },
  'tiny-flushes': {
    label: 'A log flush per commit',
    helps: true,
    helpsWhy: 'Learn: delayed durability keeps log records in memory and writes them "in batches, thus requiring fewer I/O operations"; this is the case it is made for.',
    fix: 'Commit less often: wrap many rows in one transaction (Learn: "too many small transactions" — 1,000 inserts in a loop are 1,000 flushes), or accept delayed durability where losing the last commits is tolerable.',
    learn: [LEARN_SLOW_IO, LEARN_DELAYED_DURABILITY],
  },
  'group-commit': {
    label: 'Commits sharing log flushes (group commit)',
    helps: 'partly',
    helpsWhy: 'Learn: with delayed durability "concurrent transactions are less likely to contend for log IO", but "you may still have log I/O contention if there is a high degree of concurrency"; group commit already shares the flushes.',
    fix: 'Fewer, larger transactions per session; fewer sessions committing to the same log at once.',
    learn: [LEARN_DELAYED_DURABILITY, LEARN_WAIT_TYPES],
  },
  'log-writer-limit': {
    label: 'The log writer cannot keep up',
    helps: 'partly',
    helpsWhy: 'Learn: delayed durability flushes the log buffer "in larger chunks, reducing contention", yet "you may still have log I/O contention … particularly if you fill up the log buffer faster than you flush it" (LOGBUFFER).',
    fix: 'Faster log storage and fewer, larger commits; LOGBUFFER means "the log devices cannot keep up with the amount of log being generated" (sys.dm_os_wait_stats).',
    learn: [LEARN_WAIT_TYPES, LEARN_SLOW_IO, LEARN_DELAYED_DURABILITY],
  },
  'ag-sync-commit': {
    label: 'Synchronous availability-group commit',
    helps: 'partly',
    helpsWhy: 'Learn: with delayed durability "control is returned to the client before any acknowledgment is received from any synchronous secondary" — the wait goes, but so does the guarantee that each commit is on the secondary; the secondary still takes as long to harden the log.',
    fix: "The secondary's log write latency and the network between the replicas (HADR_SYNC_COMMIT is the time to send, write and acknowledge the log); asynchronous commit if the recovery point objective allows; fewer, larger transactions.",
    learn: [LEARN_WAIT_TYPES, LEARN_DELAYED_DURABILITY],
  },
  'log-rate-governor': {
    label: 'Log-rate governance',
    helps: false,
    helpsWhy: 'Learn: "The delays aren\'t added when the log records are flushed to storage, rather log rate governance is applied during log rate generation itself" — the cap is bytes of log per second, and fewer flushes do not raise it.',
    fix: 'A higher service objective (or another tier: Hyperscale has its own limit) raises the cap; generating less log lowers the need (Learn: load transient data into tempdb, use clustered columnstore). Fewer, larger commits do not raise a MB/s cap.',
    learn: [LEARN_LOG_RATE_GOVERNANCE, LEARN_RESOURCE_GOVERNANCE_DMV],
  },
  'hyperscale-log-service': {
    label: "Hyperscale's log service throttling",
    helps: false,
    helpsWhy: "Learn: the primary's log generation rate is throttled while a page server, replica or the log service is behind applying log — a limit on log generated, which delayed durability does not change.",
    fix: 'Find the component holding the rate back (sys.dm_hs_database_log_rate role_desc: page servers, replicas, the log service) and generate log more evenly; a replica with too little compute lags.',
    learn: [LEARN_HYPERSCALE_DIAGNOSTICS, LEARN_HYPERSCALE_LOG_RATE],
  },
  tempdb: {
    label: 'No log flush to wait for (tempdb, SCHEMA_ONLY tables)',
    helps: false,
    helpsWhy: "tempdb's log is flushed lazily at commit, and SCHEMA_ONLY tables are not logged: commits here already wait for no flush, so delayed durability has nothing to remove.",
    fix: 'Nothing on the commit path: the time went to the other waits or to running — look there.',
    learn: [LEARN_TEMPDB, LEARN_SCHEMA_ONLY],
  },
  'not-log': {
    label: 'Not the log (time went elsewhere)',
    helps: false,
    helpsWhy: 'Delayed durability removes only the wait for a commit\'s log flush (WRITELOG); it does not shorten other waits or running time.',
    fix: "Look at the session's largest other waits (the Waits tab) or at the work itself (CPU, reads).",
    learn: [LEARN_WAIT_TYPES, LEARN_DELAYED_DURABILITY],
  },
};
