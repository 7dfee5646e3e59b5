// The restore journal: a record, written BEFORE DELAYED_DURABILITY is first changed, of what the database must be
// put back to; cleared only after the original setting was re-read and verified. Each entry names its owner (process,
// host, window, start time) so recovery can tell a crashed run from a live one. Two stores: a Memento-like key-value
// store (the extension backs it with globalState) and a folder of JSON files (the CLI), one file per entry, each
// written atomically (unique temp file, flushed, renamed): concurrent writers never share a file, so none is lost.
import { createHash, randomUUID } from 'node:crypto';
import { mkdir, open, readdir, readFile, rename, stat, unlink } from 'node:fs/promises';
import { homedir, hostname } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { alterDurabilitySql } from './durabilitySetting';
import { DURABILITY_MODES, type DurabilityMode } from './types';

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
  /** Stored entries that could not be read (the folder journal's files), for the user to be told; none when absent. */
  unreadableFiles?(): Promise<string[]>;
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
    const value = this.store.get<unknown[]>(this.key);
    return Array.isArray(value) ? value.map(readEntry).filter((e): e is RestoreEntry => e !== null) : [];
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

/** The journal folder: one file per entry. */
export function defaultJournalPath(): string {
  return join(homedir(), '.durability-lens', 'restore-journal');
}

/** The single-file journal of earlier versions; its entries move into the folder on first use. */
export function legacyJournalPath(): string {
  return join(homedir(), '.durability-lens', 'restore-journal.json');
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The entry's file name: its id when that is a UUID (every id this version writes), else a hash of it. */
function fileNameOf(id: string): string {
  return `${UUID.test(id) ? id.toLowerCase() : createHash('sha256').update(id).digest('hex').slice(0, 32)}.json`;
}

function isEntry(v: unknown): v is RestoreEntry {
  const e = v as Partial<RestoreEntry> | null;
  const mode = (m: unknown) => DURABILITY_MODES.includes(m as DurabilityMode);
  return !!e && typeof e === 'object' && typeof e.id === 'string' && typeof e.server === 'string' && typeof e.database === 'string' && mode(e.originalSetting) &&
    (e.lastApplied === null || e.lastApplied === undefined || mode(e.lastApplied)) && typeof e.restoreStatement === 'string';
}

/**
 * An entry as read back: only a real setting is restored, and the statement the user is shown, copies and may run is
 * rebuilt from the database and that setting — never a stored text, which a hand-edited or planted journal file (a
 * `--journal` folder inside a repository) could make any T-SQL.
 */
function readEntry(v: unknown): RestoreEntry | null {
  if (!isEntry(v)) return null;
  return { ...v, lastApplied: v.lastApplied ?? null, restoreStatement: alterDurabilitySql(v.database, v.originalSetting) };
}

const RETRYABLE_RENAME = new Set(['EPERM', 'EACCES', 'EBUSY']);

/** rename, retried briefly where Windows refuses to replace a file another process has open (a reader). */
async function renameRetrying(from: string, to: string): Promise<void> {
  for (let attempt = 0, delay = 5; ; attempt++, delay *= 2) {
    try {
      await rename(from, to);
      return;
    } catch (err) {
      if (!RETRYABLE_RENAME.has((err as NodeJS.ErrnoException).code ?? '') || attempt >= 8) throw err;
      await new Promise((resolve) => setTimeout(resolve, delay)); // backoff while a reader has the target open
    }
  }
}

/** Serialises the changes of one journal folder inside this process (order of put/remove of one run). */
const inProcess = new Map<string, Promise<unknown>>();

/**
 * The CLI's journal: a folder with one JSON file per entry. A put writes the whole entry to a unique temp file in the
 * folder, flushes it to disk and renames it over `<id>.json` (atomic); a remove deletes that file. No writer ever
 * reads, changes and rewrites a file another writer also changes, so no lock file is needed and none can go stale:
 * concurrent processes cannot lose each other's entries (issue 25 N7). A `--journal` path that is an existing file
 * (an earlier version's single-file journal) keeps its folder next to it (`PATH.d`) and its entries are moved there.
 */
export class FileRestoreJournal implements RestoreJournal {
  private ready: Promise<{ dir: string }> | null = null;

  constructor(readonly path: string = defaultJournalPath()) {}

  /** Where the entry files live (after the first call: the folder is created, an old single file migrated). */
  private folder(): Promise<{ dir: string }> {
    this.ready ??= (async () => {
      const isDefault = this.path === defaultJournalPath();
      const fileAtPath = await stat(this.path).then((s) => s.isFile(), () => false);
      // Only a file that is an earlier journal is moved in and deleted; any other file is the user's and stays.
      if (fileAtPath && !(await isLegacyJournal(this.path))) throw new NotAJournalError(this.path);
      const dir = fileAtPath ? `${this.path}.d` : this.path;
      await mkdir(dir, { recursive: true, mode: 0o700 });
      const legacy = fileAtPath ? this.path : isDefault ? legacyJournalPath() : null;
      if (legacy) await migrateLegacy(legacy, dir);
      return { dir };
    })();
    const ready = this.ready;
    // A failed start (a folder that cannot be made) is tried again next time.
    ready.catch(() => {
      if (this.ready === ready) this.ready = null;
    });
    return ready;
  }

  async list(): Promise<RestoreEntry[]> {
    return (await this.read()).entries;
  }

  /**
   * Entry files that are not a readable entry (truncated, hand-edited, another tool's): left untouched, but never
   * skipped in silence — one may stand for a database that is still changed (the CLI says so at start).
   */
  async unreadableFiles(): Promise<string[]> {
    return (await this.read()).unreadable;
  }

  private async read(): Promise<{ entries: RestoreEntry[]; unreadable: string[] }> {
    const { dir } = await this.folder();
    let names: string[];
    try {
      names = await readdir(dir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { entries: [], unreadable: [] };
      throw err;
    }
    const entries = new Map<string, RestoreEntry>();
    const unreadable: string[] = [];
    for (const name of names.filter((n) => n.endsWith('.json') && !n.startsWith('.'))) {
      let text: string;
      try {
        text = await readFile(join(dir, name), 'utf8');
      } catch {
        continue; // removed meanwhile (another process recovered it)
      }
      let entry: RestoreEntry | null = null;
      try {
        const { schemaVersion: _version, ...stored } = JSON.parse(text) as Record<string, unknown>;
        entry = readEntry(stored);
      } catch {
        entry = null;
      }
      if (entry) entries.set(entry.id, entry);
      else unreadable.push(join(dir, name));
    }
    const sorted = [...entries.values()].sort((a, b) => (a.createdAt === b.createdAt ? (a.id < b.id ? -1 : 1) : a.createdAt < b.createdAt ? -1 : 1));
    return { entries: sorted, unreadable: unreadable.sort() };
  }

  private change(work: (dir: string) => Promise<void>): Promise<void> {
    const previous = inProcess.get(this.path) ?? Promise.resolve();
    const run = async () => work((await this.folder()).dir);
    const next = previous.then(run, run);
    inProcess.set(this.path, next.catch(() => undefined));
    return next;
  }

  put(entry: RestoreEntry): Promise<void> {
    return this.change((dir) => writeEntry(dir, entry));
  }

  remove(id: string): Promise<void> {
    return this.change(async (dir) => {
      await unlink(join(dir, fileNameOf(id))).catch((err: NodeJS.ErrnoException) => {
        if (err.code !== 'ENOENT') throw err;
      });
    });
  }
}

/** Writes one entry file atomically: unique temp file in the folder, flushed, renamed into place. */
async function writeEntry(dir: string, entry: RestoreEntry): Promise<void> {
  const target = join(dir, fileNameOf(entry.id));
  const tmp = join(dir, `.${process.pid}.${randomUUID()}.tmp`);
  const handle = await open(tmp, 'wx', 0o600);
  try {
    await handle.writeFile(`${JSON.stringify({ schemaVersion: 2, ...entry }, null, 2)}\n`, 'utf8');
    await handle.sync(); // on disk before the ALTER it guards runs
  } finally {
    await handle.close();
  }
  try {
    await renameRetrying(tmp, target);
  } catch (err) {
    await unlink(tmp).catch(() => undefined);
    throw err;
  }
}

/** A journal path that names a file which is not an earlier version's journal: nothing is read, moved or deleted. */
export class NotAJournalError extends Error {
  constructor(readonly path: string) {
    super(`the journal path ${path} is a file that is not a Durability Lens restore journal; it was left untouched and nothing was changed on the server. Give a folder (it is created if missing), or leave --journal out for the default.`);
    this.name = 'NotAJournalError';
  }
}

/** An earlier version's single-file journal: a JSON object whose `entries` is an array (of restore entries). */
async function isLegacyJournal(file: string): Promise<boolean> {
  try {
    const doc = JSON.parse(await readFile(file, 'utf8')) as unknown;
    return typeof doc === 'object' && doc !== null && !Array.isArray(doc) && Array.isArray((doc as { entries?: unknown }).entries)
      && (doc as { entries: unknown[] }).entries.every(isEntry);
  } catch {
    return false;
  }
}

/**
 * Moves an earlier version's single-file journal into the folder: the file is renamed away first (only one process
 * wins that rename), its entries written as files, then it is deleted. A leftover from a migration that died midway
 * (`<file>.migrating-*`) is finished the same way.
 */
async function migrateLegacy(legacy: string, dir: string): Promise<void> {
  const claimed = `${legacy}.migrating-${process.pid}-${randomUUID()}`;
  const pending: string[] = [];
  try {
    await rename(legacy, claimed);
    pending.push(claimed);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const base = basename(legacy);
  const leftovers = (await readdir(dirname(legacy)).catch(() => [] as string[])).filter((n) => n.startsWith(`${base}.migrating-`)).map((n) => join(dirname(legacy), n));
  for (const file of new Set([...pending, ...leftovers])) {
    let entries: unknown[] = [];
    try {
      const doc = JSON.parse(await readFile(file, 'utf8')) as { entries?: unknown[] };
      entries = Array.isArray(doc.entries) ? doc.entries : [];
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue; // another process finished it
      entries = [];
    }
    for (const e of entries) if (isEntry(e)) await writeEntry(dir, e);
    await unlink(file).catch(() => undefined);
  }
}
