// Who owns each durability_lens_* event session this VS Code created: the window that made it (an id, its process
// and a heartbeat), kept in globalState so every window of this machine sees the others'. The leftover-session
// prompt offers only sessions whose owner is gone (crash, killed window) — never a live trace of another window.
// Sessions not in the ledger (the CLI, another machine, an older version) are offered only by the manual command.
// vscode-free: the store is a Memento-like object.
import { randomBytes } from 'node:crypto';
import { processRuns } from '../../profile';
import { newSessionName, owningSessionName } from '../../xe';
import type { KeyValueStore } from '../history';

export const LEDGER_KEY = 'durabilityLens.eventSessionOwners';
/** An owner that has not written a heartbeat for this long is gone (the heartbeat runs every HEARTBEAT_MS). */
export const OWNER_STALE_MS = 90_000;
export const HEARTBEAT_MS = 30_000;
/** Entries kept at most (oldest dropped): a ledger must not grow with every run ever made. */
export const MAX_LEDGER_ENTRIES = 200;

export interface LedgerEntry {
  name: string;
  owner: string;
  pid: number;
  heartbeatAt: number;
}

export interface SessionOwnership {
  /** Ours and abandoned (owner gone, or this window's and no longer live): offered for dropping. */
  orphans: string[];
  /** Owned by another window that is still alive: left alone, not shown. */
  liveElsewhere: string[];
  /** Not created by this VS Code: offered only when the user asks (manual command), with a caution. */
  unknown: string[];
}

export class SessionLedger {
  readonly owner = `${process.pid}-${randomBytes(6).toString('hex')}`;

  constructor(
    private readonly store: KeyValueStore,
    private readonly now: () => number = Date.now,
    private readonly pidAlive: (pid: number) => boolean = processRuns,
  ) {}

  private entries(): LedgerEntry[] {
    const raw = this.store.get<unknown>(LEDGER_KEY);
    if (!Array.isArray(raw)) return [];
    return raw
      .filter((e): e is LedgerEntry => typeof e === 'object' && e !== null && typeof (e as LedgerEntry).name === 'string' && typeof (e as LedgerEntry).owner === 'string')
      .slice(-MAX_LEDGER_ENTRIES);
  }

  private async save(entries: LedgerEntry[]): Promise<void> {
    await this.store.update(LEDGER_KEY, entries.slice(-MAX_LEDGER_ENTRIES));
  }

  /** A new session name, recorded as this window's before the session is created. */
  async claim(): Promise<string> {
    const name = newSessionName();
    await this.save([...this.entries(), { name, owner: this.owner, pid: process.pid, heartbeatAt: this.now() }]);
    return name;
  }

  /** The session was dropped: forget it. */
  async release(name: string): Promise<void> {
    await this.save(this.entries().filter((e) => e.name !== name));
  }

  /** Marks this window's entries as alive. */
  async heartbeat(): Promise<void> {
    const at = this.now();
    const entries = this.entries();
    if (!entries.some((e) => e.owner === this.owner)) return;
    await this.save(entries.map((e) => (e.owner === this.owner ? { ...e, heartbeatAt: at } : e)));
  }

  /** Sorts the durability_lens_* sessions found on a server; `liveHere` are this window's running ones. */
  classify(found: readonly string[], liveHere: readonly string[]): SessionOwnership {
    const byName = new Map(this.entries().map((e) => [e.name, e]));
    const out: SessionOwnership = { orphans: [], liveElsewhere: [], unknown: [] };
    for (const name of found) {
      if (liveHere.includes(name)) continue;
      // A latency companion (issue #12) is owned by whoever owns its trace session.
      const e = byName.get(name) ?? byName.get(owningSessionName(name));
      if (!e) out.unknown.push(name);
      else if (e.owner !== this.owner && this.now() - e.heartbeatAt < OWNER_STALE_MS && this.pidAlive(e.pid)) out.liveElsewhere.push(name);
      else out.orphans.push(name);
    }
    return out;
  }
}
