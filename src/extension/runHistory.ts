// Run history kept per workspace (workspaceState): the last N profiles, comparisons and ad-hoc traces with the
// PanelData to reopen them and the raw RunResults to export them. vscode-free (a Memento-like store), unit-tested.
import type { RunResult } from '../profile/types';
import { buildVerdict } from '../report/verdict';
import type { PanelData } from '../shared/webviewProtocol';
import type { ComparisonContext } from './panelData';

export const HISTORY_KEY = 'durabilityLens.runHistory';

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
}

/**
 * One entry of the quick pick, named so entries can be told apart (issue 20): the file and the modes in the label,
 * the verdict's headline and the time in the description, server, database and status in the detail.
 */
export function describeEntry(e: HistoryEntry): { label: string; description: string; detail: string } {
  const when = e.createdAt.replace('T', ' ').replace(/\.\d+Z$/, 'Z');
  const kind = e.kind === 'comparison' ? 'Comparison' : e.kind === 'trace' ? 'Log-flush trace' : 'Profile';
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
  return {
    label: `${kind}: ${[file ?? e.database ?? 'unknown database', modes].filter((x) => x).join(' · ')}`,
    description: `${headline ? `${headline} · ` : ''}${when}`,
    detail: `${e.server ?? 'unknown server'} — database ${e.database ?? 'unknown'} — ${e.status}${e.panel.standInLabel ? ' (stand-in figures)' : ''}`,
  };
}

export class RunHistory {
  private counter = 0;

  constructor(
    private readonly store: KeyValueStore,
    private readonly limit: () => number,
  ) {}

  /** Newest first. Entries of a wrong shape (an older version's data) are skipped, not fatal. */
  list(): HistoryEntry[] {
    const raw = this.store.get<unknown>(HISTORY_KEY);
    if (!Array.isArray(raw)) return [];
    return raw.filter((e): e is HistoryEntry => typeof e === 'object' && e !== null && typeof (e as HistoryEntry).id === 'string' && typeof (e as HistoryEntry).panel === 'object');
  }

  get(id: string): HistoryEntry | undefined {
    return this.list().find((e) => e.id === id);
  }

  /** Adds a run or comparison, newest first, and drops the oldest beyond the `history.size` setting. */
  async add(panel: PanelData, runs: readonly RunResult[], comparison: ComparisonContext | null = null): Promise<HistoryEntry> {
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
    const kept = [JSON.parse(JSON.stringify(entry)) as HistoryEntry, ...this.list()].slice(0, Math.max(1, this.limit()));
    await this.store.update(HISTORY_KEY, kept);
    return kept[0]!;
  }

  /** Applies a smaller `history.size` at once. */
  async trim(): Promise<void> {
    const all = this.list();
    const limit = Math.max(1, this.limit());
    if (all.length > limit) await this.store.update(HISTORY_KEY, all.slice(0, limit));
  }

  async clear(): Promise<void> {
    await this.store.update(HISTORY_KEY, []);
  }
}
