// The restore journal: a record, written BEFORE DELAYED_DURABILITY is first changed, of what the database must be
// put back to; cleared only after the original setting was re-read and verified. Two stores: a Memento-like
// key-value store (the extension backs it with globalState) and a JSON file (the CLI).
import { randomUUID } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import type { DurabilityMode } from './types';

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
}

export interface RestoreJournal {
  list(): Promise<RestoreEntry[]>;
  /** Adds or replaces the entry with the same id. */
  put(entry: RestoreEntry): Promise<void>;
  remove(id: string): Promise<void>;
}

export function newRestoreEntry(fields: Omit<RestoreEntry, 'id' | 'createdAt'>, now: () => Date = () => new Date()): RestoreEntry {
  return { id: randomUUID(), createdAt: now().toISOString(), ...fields };
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

  async put(entry: RestoreEntry): Promise<void> {
    const entries = (await this.list()).filter((e) => e.id !== entry.id);
    await this.store.update(this.key, [...entries, entry]);
  }

  async remove(id: string): Promise<void> {
    await this.store.update(this.key, (await this.list()).filter((e) => e.id !== id));
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

/** JSON file journal; writes go to a temp file first and are renamed, so a crash never leaves half a file. */
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
    await mkdir(dirname(this.path), { recursive: true });
    const tmp = `${this.path}.${process.pid}.tmp`;
    await writeFile(tmp, JSON.stringify({ schemaVersion: 1, entries }, null, 2) + '\n', { encoding: 'utf8', mode: 0o600 });
    await rename(tmp, this.path);
  }

  async put(entry: RestoreEntry): Promise<void> {
    await this.write([...(await this.list()).filter((e) => e.id !== entry.id), entry]);
  }

  async remove(id: string): Promise<void> {
    await this.write((await this.list()).filter((e) => e.id !== id));
  }
}
