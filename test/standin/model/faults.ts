// Fault injection for tests: dropped connections, slow answers, refused ALTER DATABASE / CREATE EVENT SESSION,
// and batches that fail with a chosen error. Set through Standin.faults; each fault is plain data.

export interface StatementFault {
  /**
   * Matched against the text the server compiles: the batch / RPC statement text, and the statement of each
   * `EXEC sp_executesql N'…'` inside a batch. A request's own text is matched with those nested statements blanked
   * out, so a pattern naming one composed probe fails that probe's sp_executesql alone, not the whole batch.
   */
  pattern: RegExp;
  number: number;
  message: string;
  class?: number;
  state?: number;
  /** How many more times it fires (default: every time). */
  times?: number;
}

export class Faults {
  /** Drop the connection when the k-th request (1-based, counted per session from login) arrives. */
  dropAtRequest: number | null = null;
  /** Drop a session's connection this many real ms after its request starts (if still running). */
  dropAfterMs: number | null = null;
  /** Delay every answer by this many real ms before the first output. */
  delayMs = 0;
  /** ALTER DATABASE cannot get its lock (another session holds it): NO_WAIT fails with 5061, else waits / 1222. */
  alterDatabaseLocked = false;
  /** ALTER DATABASE is refused as if the login lacked ALTER on the database (5011). */
  alterDatabaseDenied = false;
  /** CREATE EVENT SESSION is refused as if ALTER ANY EVENT SESSION were missing. */
  createEventSessionDenied = false;
  /** Hold the attention acknowledgement back this many real ms after a cancel (tedious gives up after cancelTimeout). */
  attentionAckDelayMs = 0;
  statements: StatementFault[] = [];

  reset(): void {
    this.dropAtRequest = null;
    this.dropAfterMs = null;
    this.delayMs = 0;
    this.alterDatabaseLocked = false;
    this.alterDatabaseDenied = false;
    this.createEventSessionDenied = false;
    this.attentionAckDelayMs = 0;
    this.statements = [];
  }

  /** The first statement fault matching a request's own text (nested sp_executesql statements blanked out). */
  matchRequest(text: string): StatementFault | null {
    if (this.statements.length === 0) return null;
    return this.matchStatement(text.replace(/(\bsp_executesql\s+(?:@stmt\s*=\s*)?N?)'(?:[^']|'')*'/gi, "$1''"));
  }

  /** The first statement fault matching `text`, consuming one use. */
  matchStatement(text: string): StatementFault | null {
    for (const f of this.statements) {
      if (f.times !== undefined && f.times <= 0) continue;
      if (!f.pattern.test(text)) continue;
      if (f.times !== undefined) f.times--;
      return f;
    }
    return null;
  }
}
