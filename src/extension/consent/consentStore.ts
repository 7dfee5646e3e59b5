// What the user has confirmed to run, remembered per workspace (VS Code's workspaceState): per file, the hash of the
// file's whole text at the time and the keys of the parts confirmed (a key hashes the exact text sent, its GO count
// and the connection it runs on). Any change of the file's text revokes every confirmation for that file — checked
// when asked, and at once when the editor reports an edit. vscode-free (a Memento-like interface), unit-tested.
import { createHash } from 'node:crypto';
import { byCodeUnits } from '../../shared/textOrder';

export const CONSENT_STATE_KEY = 'durabilityLens.consent';
/** Files remembered per workspace; the least recently confirmed are forgotten first. */
export const MAX_CONSENT_FILES = 200;
/** Confirmed parts per file; the oldest are forgotten first. */
export const MAX_CONSENT_KEYS = 200;

/** The part of vscode.Memento the store needs (workspaceState in the extension, a Map in tests). */
export interface ConsentMemento {
  get<T>(key: string): T | undefined;
  update(key: string, value: unknown): Thenable<void>;
}

interface FileConsent {
  /** sha256 of the file's whole text when the parts were confirmed. */
  fileHash: string;
  /** Part keys in the order they were confirmed (oldest first). */
  keys: string[];
  /** ISO time of the last confirmation (which file to forget first). */
  at: string;
}

type ConsentState = Record<string, FileConsent>;

export function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** What a part's key is made of: the connection it runs on, the exact text sent and how often GO repeats it. */
export interface ConsentKeyInput {
  /** Profile, server and database: a confirmation for the lab database is not one for production. */
  connection: string;
  /** 'run' for batches sent as they are, 'deploy' for a CREATE OR ALTER, 'call' for the definition a call runs. */
  kind: string;
  text: string;
  repeat: number;
}

export function consentKey(input: ConsentKeyInput): string {
  return sha256(JSON.stringify(['durability-lens consent v1', input.connection, input.kind, input.text, input.repeat]));
}

/** Only well-formed entries survive a read (the state may come from an older version, or be edited by hand). */
function readState(value: unknown): ConsentState {
  const out: ConsentState = Object.create(null) as ConsentState;
  if (typeof value !== 'object' || value === null) return out;
  for (const [file, entry] of Object.entries(value as Record<string, unknown>)) {
    const e = entry as Partial<FileConsent> | null;
    if (typeof e !== 'object' || e === null || typeof e.fileHash !== 'string' || !Array.isArray(e.keys) || typeof e.at !== 'string') continue;
    out[file] = { fileHash: e.fileHash, keys: e.keys.filter((k): k is string => typeof k === 'string').slice(-MAX_CONSENT_KEYS), at: e.at };
  }
  return out;
}

export class ConsentStore {
  constructor(
    private readonly memento: ConsentMemento,
    private readonly now: () => Date = () => new Date(),
  ) {}

  private state(): ConsentState {
    return readState(this.memento.get(CONSENT_STATE_KEY));
  }

  /**
   * True when every key was confirmed for this file while it had exactly this text. A file whose text differs from
   * the confirmed one loses all its confirmations here (revoked, not just unmatched: undoing the edit does not bring
   * them back).
   */
  async has(file: string, fileText: string, keys: readonly string[]): Promise<boolean> {
    const state = this.state();
    const entry = state[file];
    if (!entry) return false;
    if (entry.fileHash !== sha256(fileText)) {
      delete state[file];
      await this.memento.update(CONSENT_STATE_KEY, state);
      return false;
    }
    const granted = new Set(entry.keys);
    return keys.every((k) => granted.has(k));
  }

  /** Remembers `keys` as confirmed for this file and text (a file whose text changed starts over). */
  async grant(file: string, fileText: string, keys: readonly string[]): Promise<void> {
    const state = this.state();
    const hash = sha256(fileText);
    const previous = state[file]?.fileHash === hash ? state[file]!.keys : [];
    const merged = [...previous.filter((k) => !keys.includes(k)), ...keys].slice(-MAX_CONSENT_KEYS);
    state[file] = { fileHash: hash, keys: merged, at: this.now().toISOString() };
    const files = Object.keys(state);
    if (files.length > MAX_CONSENT_FILES) {
      const oldest = files.sort((a, b) => byCodeUnits(state[a]!.at, state[b]!.at)).slice(0, files.length - MAX_CONSENT_FILES);
      for (const f of oldest) delete state[f];
    }
    await this.memento.update(CONSENT_STATE_KEY, state);
  }

  /** Forgets every confirmation for `file` (its text changed in the editor). No write when there was none. */
  async revoke(file: string): Promise<void> {
    const state = this.state();
    if (!state[file]) return;
    delete state[file];
    await this.memento.update(CONSENT_STATE_KEY, state);
  }

  /** Forgets every confirmation in this workspace. */
  async revokeAll(): Promise<void> {
    await this.memento.update(CONSENT_STATE_KEY, undefined);
  }

  /** Files with confirmations (tests, and the "forget" command's message). */
  files(): string[] {
    return Object.keys(this.state());
  }
}

/** A Memento in memory: confirmations last as long as the process (tests, and hosts that pass no store). */
export class MemoryMemento implements ConsentMemento {
  private readonly values = new Map<string, unknown>();
  get<T>(key: string): T | undefined {
    return this.values.get(key) as T | undefined;
  }
  async update(key: string, value: unknown): Promise<void> {
    if (value === undefined) this.values.delete(key);
    else this.values.set(key, JSON.parse(JSON.stringify(value)));
  }
}
