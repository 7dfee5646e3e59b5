// The RunResult's documented top-level figures (docs/run-result-schema.md, issue 4 items 5–6): flat, issue-named
// keys derived from the richer snapshot diff, so CI scripts and other tools read them without knowing our model.
import { valueOf } from '../probes/measurement';
import type { FileKind } from '../probes/fileStats';
import type { ServerInfo } from '../probes/serverInfo';
import type { SnapshotDiff } from '../probes/snapshot';
import type { WaitStatsDiff } from '../probes/waitStats';

/** Bumped when a documented key changes meaning or disappears; new keys do not bump it. */
export const RUN_RESULT_SCHEMA_VERSION = 1 as const;

/** sys.master_files type_desc names (ROWS / LOG / FILESTREAM / FULLTEXT …); OTHER when the type is unknown. */
export type FileTypeName = 'ROWS' | 'LOG' | 'FILESTREAM' | 'OTHER';

/** Per-file IO between two readings (sys.dm_io_virtual_file_stats deltas): a run's files and each sample's. */
export interface FileIoCounts {
  fileId: number;
  reads: number;
  bytesRead: number;
  writes: number;
  bytesWritten: number;
  ioStallReadMs: number;
  ioStallWriteMs: number;
}

export interface RunFile extends FileIoCounts {
  type: FileTypeName;
  logicalName: string;
}

export interface RunWait {
  waitType: string;
  waitingTasks: number;
  waitTimeMs: number;
  signalWaitTimeMs: number;
}

/** Deltas of the database's SQLServer:Databases counters; null when not readable or not cumulative. */
export interface RunLogCounters {
  logFlushes: number | null;
  logBytesFlushed: number | null;
  logFlushWaitTimeMs: number | null;
}

/** ServerInfo plus the two documented flat keys. */
export interface RunServer extends ServerInfo {
  /** SERVERPROPERTY('ProductVersion'), e.g. "16.0.4135.4". */
  version: string;
  /** sys.dm_os_host_info host_platform ("Windows" / "Linux"); null where not readable (Azure SQL Database). */
  hostPlatform: string | null;
}

export interface RunSchemaFields {
  elapsedMs: number;
  files: RunFile[];
  sessionWaits: RunWait[];
  serverWaits: RunWait[];
  logCounters: RunLogCounters;
}

const TYPE_NAMES: Record<FileKind, FileTypeName> = { data: 'ROWS', log: 'LOG', filestream: 'FILESTREAM', other: 'OTHER' };

export function runServerOf(server: ServerInfo): RunServer {
  return { ...server, version: server.identity.productVersion, hostPlatform: valueOf(server.host)?.platform ?? null };
}

function waitsOf(diff: WaitStatsDiff | null): RunWait[] {
  return (diff?.top ?? []).map((w) => ({ waitType: w.waitType, waitingTasks: w.waitingTasks, waitTimeMs: w.waitTimeMs, signalWaitTimeMs: w.signalWaitTimeMs }));
}

function cumulativeDelta(diff: SnapshotDiff, name: string): number | null {
  const c = valueOf(diff.logCounters)?.find((x) => x.counterName.toLowerCase() === name.toLowerCase());
  return c && c.kind === 'cumulative' ? c.delta : null;
}

/** The flat figures from a diff; `elapsedMs` is the client's wall time of the measured batches. */
export function runSchemaFields(diff: SnapshotDiff, elapsedMs: number): RunSchemaFields {
  const files = (valueOf(diff.files)?.files ?? []).map((f) => ({
    fileId: f.fileId,
    type: TYPE_NAMES[f.kind],
    logicalName: f.logicalName,
    reads: f.reads,
    bytesRead: f.bytesRead,
    writes: f.writes,
    bytesWritten: f.bytesWritten,
    ioStallReadMs: f.readStallMs,
    ioStallWriteMs: f.writeStallMs,
  }));
  return {
    elapsedMs,
    files,
    sessionWaits: waitsOf(valueOf(diff.sessionWaits)),
    serverWaits: waitsOf(valueOf(diff.serverWaits)),
    logCounters: {
      logFlushes: cumulativeDelta(diff, 'Log Flushes/sec'),
      logBytesFlushed: cumulativeDelta(diff, 'Log Bytes Flushed/sec'),
      logFlushWaitTimeMs: cumulativeDelta(diff, 'Log Flush Wait Time'),
    },
  };
}
