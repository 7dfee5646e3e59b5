// Fault switches that break ONE source of a quantity the product reconciles on every run (issue 33 item 3): the
// session's waits, a log counter, the duration units the XE catalog states, the counter instance name. Each switch is
// plain data kept per stand-in server (a WeakMap, so the model's state needs no new field); tests set them through
// `consistencyFaults(standin.state)`. They model broken or unusual sources, never SQL Server behaviour (MODEL.md).
import type { Server } from './server';

export class ConsistencyFaults {
  /**
   * sys.dm_exec_session_wait_stats leaves out these wait types ('all': every row) for every session: the session's
   * WRITELOG then reads 0 while the per-statement trace saw the waits.
   */
  withholdSessionWaits: readonly string[] | 'all' = [];
  /**
   * SQLServer:Databases counters of user databases reported × this factor, per counter name (e.g.
   * `{ 'Log Flushes/sec': 0.5 }` halves the flush counter): that counter's delta then disagrees with the XE count and
   * the log file's writes.
   */
  counterFactors: Record<string, number> = {};
  /** sys.dm_xe_object_columns describes `duration` without naming a unit (the client then assumes microseconds). */
  unstatedDurationUnits = false;
  /** Appended to the GUID instance_name of databases on Managed Instance / Azure SQL Database (e.g. '.1'). */
  counterInstanceSuffix: string | null = null;

  reset(): void {
    this.withholdSessionWaits = [];
    this.counterFactors = {};
    this.unstatedDurationUnits = false;
    this.counterInstanceSuffix = null;
  }

  /** Whether a session's row of this wait type is withheld from sys.dm_exec_session_wait_stats. */
  withholds(waitType: string): boolean {
    return this.withholdSessionWaits === 'all' || this.withholdSessionWaits.some((w) => w.toUpperCase() === waitType.toUpperCase());
  }

  /** A counter's value as reported: × its factor (1 when none is set). */
  counterValue(counterName: string, value: number): number {
    return value * (this.counterFactors[counterName] ?? 1);
  }
}

const byServer = new WeakMap<Server, ConsistencyFaults>();

/** The switches of one stand-in server (created, all off, on first use). */
export function consistencyFaults(server: Server): ConsistencyFaults {
  let f = byServer.get(server);
  if (!f) {
    f = new ConsistencyFaults();
    byServer.set(server, f);
  }
  return f;
}
