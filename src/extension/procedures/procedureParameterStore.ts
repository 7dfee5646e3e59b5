// Remembered parameter values for the procedure lenses, in the workspace's state (never a setting, never sent to a
// server as text): the last values per procedure and named sets the user saved. Values are the answers as typed
// (`42`, `NULL`, `DEFAULT`, `'quoted'`), checked again against the parameter types every time they are used.
// vscode-free: it takes a Memento-like store, so tests use a Map.

export interface KeyValueMemento {
  get<T>(key: string): T | undefined;
  update(key: string, value: unknown): Thenable<void> | Promise<void>;
}

/** Answers by parameter name (with '@'), as typed. */
export type ParameterAnswers = Record<string, string>;

interface Stored {
  last?: ParameterAnswers;
  sets?: Record<string, ParameterAnswers>;
}

const KEY = 'durabilityLens.procedureParameters';
/** Procedures remembered per workspace; the least recently used go first past this. */
export const MAX_PROCEDURES = 200;
/** Characters kept of one answer: a value longer than this is not remembered (nvarchar(max) pastes). */
export const MAX_ANSWER_CHARS = 4000;

function keyOf(procedure: string, number: number | null): string {
  return `${procedure.toLowerCase()}${number !== null ? `;${number}` : ''}`;
}

function clean(answers: ParameterAnswers): ParameterAnswers {
  const out: ParameterAnswers = {};
  for (const [name, value] of Object.entries(answers)) {
    if (typeof value === 'string' && /^@/.test(name) && value.length <= MAX_ANSWER_CHARS) out[name] = value;
  }
  return out;
}

export class ProcedureParameterStore {
  constructor(private readonly memento: KeyValueMemento) {}

  private all(): Record<string, Stored> {
    const v = this.memento.get<Record<string, Stored>>(KEY);
    return typeof v === 'object' && v !== null ? v : {};
  }

  private async save(key: string, entry: Stored): Promise<void> {
    const all = this.all();
    delete all[key];
    all[key] = entry; // re-inserted last: insertion order is recency
    const keys = Object.keys(all);
    for (const old of keys.slice(0, Math.max(0, keys.length - MAX_PROCEDURES))) delete all[old];
    await this.memento.update(KEY, all);
  }

  last(procedure: string, number: number | null): ParameterAnswers | null {
    const v = this.all()[keyOf(procedure, number)]?.last;
    return v ? clean(v) : null;
  }

  sets(procedure: string, number: number | null): Record<string, ParameterAnswers> {
    const sets = this.all()[keyOf(procedure, number)]?.sets ?? {};
    return Object.fromEntries(Object.entries(sets).map(([name, answers]) => [name, clean(answers)]));
  }

  async remember(procedure: string, number: number | null, answers: ParameterAnswers): Promise<void> {
    const key = keyOf(procedure, number);
    await this.save(key, { ...this.all()[key], last: clean(answers) });
  }

  async saveSet(procedure: string, number: number | null, name: string, answers: ParameterAnswers): Promise<void> {
    const key = keyOf(procedure, number);
    const entry = this.all()[key] ?? {};
    await this.save(key, { ...entry, sets: { ...entry.sets, [name]: clean(answers) } });
  }

  async deleteSet(procedure: string, number: number | null, name: string): Promise<void> {
    const key = keyOf(procedure, number);
    const entry = this.all()[key];
    if (!entry?.sets?.[name]) return;
    const sets = { ...entry.sets };
    delete sets[name];
    await this.save(key, { ...entry, sets });
  }
}
