// The restore journal: a record, written BEFORE DELAYED_DURABILITY is first changed, of what the database must be
// put back to; cleared only after the original setting was re-read and verified. Each entry names its owner (process,
// host, window, start time) so recovery can tell a crashed run from a live one. Two stores: a Memento-like key-value
// store (the extension backs it with globalState) and a JSON file (the CLI), whose writes are serialised across
// processes by a lock file (O_EXCL) and land atomically (unique temp file + rename).
import { randomUUID } from 'node:crypto';
import { mkdir, open, readFile, rename, rm, stat, unlink, writeFile } from 'node:fs/promises';
import { homedir, hostname } from 'node:os';
import { dirname, join } from 'node:path';
import type { DurabilityMode } from './types';

/** Who wrote an entry: recovery leaves entries whose owner is still running (its database lock is held). */
export interface JournalOwner {
  pid: number;
  host: string;
  /** The VS Code window (vscode.env.sessionId) or 'cli'. */
  session: string;
  /** ISO time the owning run started. */
  startedAt: string;
}

let ownerSession = 'cli';
/** The extension names its window once at activation; the CLI keeps 'cli'. */
export function setJournalOwnerSession(session: string): void {
  ownerSession = session;
}

export function currentOwner(now: () => Date = () => new Date()): JournalOwner {
  return { pid: process.pid, host: hostname(), session: ownerSession, startedAt: now().toISOString() };
}

/** True when the owner is this very process (same host, pid and window). */
export function ownedByThisProcess(owner: JournalOwner | undefined): boolean {
  return owner !== undefined && owner.host === hostname() && owner.pid === process.pid && owner.session === ownerSession;
}

/** Owner line for messages; journal text is shown as text (control characters removed). */
export function describeOwner(owner: JournalOwner | undefined): string {
  if (!owner) return 'an unknown run (an entry written before owners were recorded)';
  const clean = (v: string) => String(v).replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ');
  return `process ${owner.pid} on ${clean(owner.host)} (${owner.session === 'cli' ? 'CLI' : `VS Code window ${clean(owner.session)}`}), started ${clean(owner.startedAt)}`;
}

export interface RestoreEntry {
  id: string;
  /** Server as the user named it ("host,port" or "host\\instance"). */
  server: string;
  database: string;
  /** The setting found before the first change: what the database is restored to. */
  originalSetting: DurabilityMode;
  /** The setting most recently applied (for messages). */
  lastApplied: DurabilityMode | null;
  /** ISO time the entry was written. */
  createdAt: string;
  /** The exact statement that restores the database, for the user to run when we cannot. */
  restoreStatement: string;
  /** Absent only in entries written by older versions. */
  owner?: JournalOwner;
}

export interface RestoreJournal {
  list(): Promise<RestoreEntry[]>;
  /** Adds or replaces the entry with the same id. */
  put(entry: RestoreEntry): Promise<void>;
  remove(id: string): Promise<void>;
}

export function newRestoreEntry(fields: Omit<RestoreEntry, 'id' | 'createdAt'>, now: () => Date = () => new Date()): RestoreEntry {
  return { id: randomUUID(), createdAt: now().toISOString(), owner: currentOwner(now), ...fields };
}

/** The subset of vscode.Memento the journal needs (get + update), so src/profile never imports vscode. */
export interface KeyValueStore {
  get<T>(key: string): T | undefined;
  update(key: string, value: unknown): PromiseLike<void>;
}

export const JOURNAL_KEY = 'durabilityLens.restoreJournal';

export class KeyValueRestoreJournal implements RestoreJournal {
  constructor(
    private readonly store: KeyValueStore,
    private readonly key: string = JOURNAL_KEY,
  ) {}

  async list(): Promise<RestoreEntry[]> {
    const value = this.store.get<RestoreEntry[]>(this.key);
    return Array.isArray(value) ? value.map((e) => ({ ...e })) : [];
  }

  /** One change at a time in this extension host, each re-reading the store (no lost update between two runs). */
  private queue: Promise<unknown> = Promise.resolve();

  private modify(change: (entries: RestoreEntry[]) => RestoreEntry[]): Promise<void> {
    const run = async () => this.store.update(this.key, change(await this.list()));
    const next = this.queue.then(run, run);
    this.queue = next.catch(() => undefined);
    return next;
  }

  put(entry: RestoreEntry): Promise<void> {
    return this.modify((entries) => [...entries.filter((e) => e.id !== entry.id), entry]);
  }

  remove(id: string): Promise<void> {
    return this.modify((entries) => entries.filter((e) => e.id !== id));
  }
}

/** A plain in-memory KeyValueStore (tests; also a fallback when no persistent store exists). */
export class MemoryStore implements KeyValueStore {
  private readonly values = new Map<string, unknown>();
  get<T>(key: string): T | undefined {
    return structuredClone(this.values.get(key)) as T | undefined;
  }
  async update(key: string, value: unknown): Promise<void> {
    this.values.set(key, structuredClone(value));
  }
}

export function defaultJournalPath(): string {
  return join(homedir(), '.durability-lens', 'restore-journal.json');
}

/** A held lock file older than this is taken over: no journal write takes anywhere near this long. */
const STALE_LOCK_MS = 30_000;
/** How long a writer waits for another writer's lock before giving up. */
const LOCK_WAIT_MS = 10_000;

/** Serialises writers of one journal file inside this process (the lock file does it across processes). */
const inProcess = new Map<string, Promise<unknown>>();

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Runs `work` holding `${path}.lock`, created with O_CREAT|O_EXCL ('wx'): only one process at a time. A lock left
 * by a process that died (same host, pid gone) or older than STALE_LOCK_MS is removed; otherwise waits with
 * backoff up to LOCK_WAIT_MS.
 */
async function withFileLock<T>(path: string, work: () => Promise<T>): Promise<T> {
  const lockPath = `${path}.lock`;
  await mkdir(dirname(path), { recursive: true });
  const deadline = Date.now() + LOCK_WAIT_MS;
  let delay = 5;
  for (;;) {
    try {
      const handle = await open(lockPath, 'wx', 0o600);
      try {
        await handle.writeFile(JSON.stringify({ pid: process.pid, host: hostname(), at: new Date().toISOString() }));
      } finally {
        await handle.close();
      }
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      if (await lockIsStale(lockPath)) {
        await unlink(lockPath).catch(() => undefined);
        continue;
      }
      if (Date.now() > deadline) throw new Error(`The restore journal ${path} is locked by another process (${lockPath}); try again, or delete the lock file if no Durability Lens process is running.`);
      await new Promise((resolve) => setTimeout(resolve, delay)); // backoff while another writer holds the lock
      delay = Math.min(delay * 2, 200);
    }
  }
  try {
    return await work();
  } finally {
    await rm(lockPath, { force: true });
  }
}

async function lockIsStale(lockPath: string): Promise<boolean> {
  try {
    const info = await stat(lockPath);
    if (Date.now() - info.mtimeMs > STALE_LOCK_MS) return true;
    const holder = JSON.parse(await readFile(lockPath, 'utf8')) as { pid?: number; host?: string };
    return holder.host === hostname() && typeof holder.pid === 'number' && !pidAlive(holder.pid);
  } catch {
    return false; // being written or just removed: look again
  }
}

/** JSON file journal: each change re-reads the file under the lock, writes a unique temp file and renames it. */
export class FileRestoreJournal implements RestoreJournal {
  constructor(readonly path: string = defaultJournalPath()) {}

  async list(): Promise<RestoreEntry[]> {
    let raw: string;
    try {
      raw = await readFile(this.path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
    const parsed = JSON.parse(raw) as { entries?: RestoreEntry[] };
    return Array.isArray(parsed.entries) ? parsed.entries : [];
  }

  private async write(entries: RestoreEntry[]): Promise<void> {
    // Unique per write (pid alone collides between two writes of one process).
    const tmp = `${this.path}.${process.pid}.${randomUUID()}.tmp`;
    await writeFile(tmp, JSON.stringify({ schemaVersion: 1, entries }, null, 2) + '\n', { encoding: 'utf8', mode: 0o600 });
    await rename(tmp, this.path);
  }

  /** Read-modify-write under the in-process queue and the cross-process lock file. */
  private modify(change: (entries: RestoreEntry[]) => RestoreEntry[]): Promise<void> {
    const previous = inProcess.get(this.path) ?? Promise.resolve();
    const next = previous.then(
      () => withFileLock(this.path, async () => this.write(change(await this.list()))),
      () => withFileLock(this.path, async () => this.write(change(await this.list()))),
    );
    inProcess.set(this.path, next.catch(() => undefined));
    return next;
  }

  put(entry: RestoreEntry): Promise<void> {
    return this.modify((entries) => [...entries.filter((e) => e.id !== entry.id), entry]);
  }

  remove(id: string): Promise<void> {
    return this.modify((entries) => entries.filter((e) => e.id !== id));
  }
}
