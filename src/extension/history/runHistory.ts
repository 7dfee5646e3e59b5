// Run history kept per workspace (workspaceState): the last N profiles, comparisons and ad-hoc traces with the
// PanelData to reopen them and the raw RunResults to export them. vscode-free (a Memento-like store), unit-tested.
import type { RunResult } from '../../profile/types';
import { buildVerdict } from '../../report/verdict';
import type { PanelData } from '../../shared/webviewProtocol';
import type { ComparisonContext } from '../panel';
import { l10n } from '../l10n';
import { iconLabelField } from '../../shared/visibleText';

export const HISTORY_KEY = 'durabilityLens.runHistory';

/** Hard caps, whatever the setting or the stored state says (docs/settings-and-commands.md "Limits"). */
export const MAX_HISTORY_ENTRIES = 500;
/** One entry's JSON: beyond this its raw runs are dropped (the panel stays); beyond it again it is not kept. */
export const MAX_ENTRY_CHARS = 2_000_000;
/** All entries together: the oldest go first. */
export const MAX_HISTORY_CHARS = 20_000_000;

/** The part of vscode.Memento the history needs. */
export interface KeyValueStore {
  get<T>(key: string): T | undefined;
  update(key: string, value: unknown): Thenable<void>;
}

export interface HistoryEntry {
  /** Unique within the history: creation time plus a counter. */
  id: string;
  kind: PanelData['kind'];
  title: string;
  createdAt: string;
  database: string | null;
  server: string | null;
  status: string;
  panel: PanelData;
  /** The measured RunResults (warm-up included) so "Export Run" can write them as JSON. */
  runs: RunResult[];
  /** Comparisons: plan, restore and error, so the JSON export is the CLI's comparison document. */
  comparison?: ComparisonContext | null;
  /** Set when the raw runs were too large to keep (MAX_ENTRY_CHARS): how many were dropped. */
  runsDropped?: number;
}

/**
 * One entry of the quick pick, named so entries can be told apart (issue 20): the file and the modes in the label,
 * the verdict's headline and the time in the description, server, database and status in the detail.
 */
export function describeEntry(e: HistoryEntry): { label: string; description: string; detail: string } {
  const when = e.createdAt.replace('T', ' ').replace(/\.\d+Z$/, 'Z');
  const kind = e.kind === 'comparison' ? l10n.t('Comparison') : e.kind === 'trace' ? l10n.t('Log-flush trace') : l10n.t('Profile');
  // header.workload is "file.sql: batch 3 (…)"; entries saved by older versions have none.
  const file = e.panel.header.workload?.split(': ')[0] ?? null;
  const modes = e.panel.model.columns.length > 0 ? e.panel.model.columns.join(' vs ') : null;
  let headline: string | null = null;
  if (e.kind !== 'trace') {
    try {
      headline = buildVerdict(e.panel.model).headline;
    } catch {
      headline = null; // an older entry's model may lack what the verdict reads: the entry still opens
    }
  }
  // A quick pick renders $(icon) syntax: the file's, server's and database's names show as written (iconLabelField).
  const [named, server, database] = [file ?? e.database, e.server, e.database].map((n) => (n === null ? null : iconLabelField(n)));
  return {
    label: `${kind}: ${[named ?? l10n.t('unknown database'), modes].filter((x) => x).join(' · ')}`,
    description: `${headline ? `${headline} · ` : ''}${when}`,
    detail: e.panel.standInLabel
      ? l10n.t('{0} — database {1} — {2} (stand-in figures)', server ?? l10n.t('unknown server'), database ?? l10n.t('unknown'), e.status)
      : l10n.t('{0} — database {1} — {2}', server ?? l10n.t('unknown server'), database ?? l10n.t('unknown'), e.status),
  };
}

export class RunHistory {
  private counter = 0;
  private readonly addListeners: Array<(panel: PanelData, runs: readonly RunResult[]) => void> = [];

  /** Called after every add with the runs it kept (Heaviest Log Writers compares a routine's profile with production). */
  onDidAdd(listener: (panel: PanelData, runs: readonly RunResult[]) => void): { dispose(): void } {
    this.addListeners.push(listener);
    return { dispose: () => void this.addListeners.splice(this.addListeners.indexOf(listener) >>> 0, 1) };
  }

  constructor(
    private readonly store: KeyValueStore,
    private readonly limit: () => number,
  ) {}

  /** The setting, clamped to 1 … MAX_HISTORY_ENTRIES (a wrong value cannot make the history unbounded). */
  private cap(): number {
    const n = Math.trunc(Number(this.limit()));
    return Number.isFinite(n) ? Math.min(MAX_HISTORY_ENTRIES, Math.max(1, n)) : MAX_HISTORY_ENTRIES;
  }

  /**
   * Newest first, at most `history.size` entries even when the stored state holds more (written by another version
   * or tampered with). Entries of a wrong shape (an older version's data) are skipped, not fatal.
   */
  list(): HistoryEntry[] {
    const raw = this.store.get<unknown>(HISTORY_KEY);
    if (!Array.isArray(raw)) return [];
    const out: HistoryEntry[] = [];
    const cap = this.cap();
    for (const e of raw) {
      if (out.length >= cap) break;
      if (typeof e === 'object' && e !== null && typeof (e as HistoryEntry).id === 'string' && typeof (e as HistoryEntry).panel === 'object' && (e as HistoryEntry).panel !== null) out.push(e as HistoryEntry);
    }
    return out;
  }

  get(id: string): HistoryEntry | undefined {
    return this.list().find((e) => e.id === id);
  }

  /** Adds a run or comparison, newest first, and drops the oldest beyond the `history.size` setting. */
  async add(panel: PanelData, runs: readonly RunResult[], comparison: ComparisonContext | null = null): Promise<HistoryEntry> {
    for (const listener of this.addListeners) listener(panel, runs);
    const entry: HistoryEntry = {
      id: `${panel.createdAt}#${++this.counter}`,
      kind: panel.kind,
      title: panel.title,
      createdAt: panel.createdAt,
      database: panel.header.database,
      server: panel.header.server,
      status: panel.header.status,
      panel,
      runs: [...runs],
      comparison,
    };
    // JSON round trip: workspaceState stores JSON, so what we keep is what a reload gives back.
    let text = JSON.stringify(entry);
    if (text.length > MAX_ENTRY_CHARS) text = JSON.stringify({ ...entry, runs: [], runsDropped: runs.length });
    if (text.length > MAX_ENTRY_CHARS) return entry; // too large to keep at all; the panel still shows it now
    const kept = [JSON.parse(text) as HistoryEntry, ...this.list()].slice(0, this.cap());
    await this.store.update(HISTORY_KEY, withinTotal(kept));
    return kept[0]!;
  }

  /** Applies a smaller `history.size` (and the caps) at once. */
  async trim(): Promise<void> {
    const raw = this.store.get<unknown>(HISTORY_KEY);
    const all = this.list();
    const bounded = withinTotal(all);
    if (!Array.isArray(raw) || raw.length !== bounded.length) await this.store.update(HISTORY_KEY, bounded);
  }

  async clear(): Promise<void> {
    await this.store.update(HISTORY_KEY, []);
  }
}

/** The newest entries whose JSON together stays under MAX_HISTORY_CHARS. */
function withinTotal(entries: HistoryEntry[]): HistoryEntry[] {
  let total = 0;
  const out: HistoryEntry[] = [];
  for (const e of entries) {
    total += JSON.stringify(e).length;
    if (total > MAX_HISTORY_CHARS && out.length > 0) break;
    out.push(e);
  }
  return out;
}
