// Command ids the extension contributes, and the arguments the language server's code lenses pass
// to them. Plain data (no vscode, no LSP runtime) so both sides and the tests can use it.

export const Commands = {
  profileTransaction: 'durabilityLens.profileTransaction',
  profileBatch: 'durabilityLens.profileBatch',
  profileSelection: 'durabilityLens.profileSelection',
  compareDurability: 'durabilityLens.compareDurability',
  /** Lens on CREATE/ALTER PROCEDURE: prompt for parameters, run the procedure as an RPC, profile it. */
  profileProcedure: 'durabilityLens.profileProcedure',
  /** Lens on CREATE/ALTER PROCEDURE: the same call, compared across durability modes. */
  compareProcedure: 'durabilityLens.compareProcedure',
  showOutput: 'durabilityLens.showOutput',
} as const;

export type CommandId = (typeof Commands)[keyof typeof Commands];

/** 0-based, UTF-16 like LSP (structurally the same as the LSP and src/tsql types). */
export interface TargetPosition {
  line: number;
  character: number;
}

export interface TargetRange {
  start: TargetPosition;
  end: TargetPosition;
}

/** The COMMIT a "Profile transaction" / "Compare durability" lens sits on. */
export interface CommitTarget {
  /** Where the COMMIT keyword starts. */
  position: TargetPosition;
  /** The whole COMMIT statement. */
  range: TargetRange;
  /** BEGIN TRAN … COMMIT when the BEGIN is in the same batch, else null. */
  transactionRange: TargetRange | null;
  /** WITH (DELAYED_DURABILITY = ON|OFF) on this COMMIT, null when absent. */
  delayedDurability: 'ON' | 'OFF' | null;
  inLoop: boolean;
}

/** What a lens asks the client to profile: a batch of a document, optionally focused on one COMMIT. */
export interface ProfileTarget {
  /** Document URI as the language server received it. */
  uri: string;
  /** Document version the lens was computed for (the text may have moved on since). */
  version: number;
  /** 0-based batch index (batches are split on GO). */
  batchIndex: number;
  /** Range of the batch text (GO line excluded). */
  batchRange: TargetRange;
  /** `GO n` → n; otherwise 1. */
  repeat: number;
  /** Set for transaction lenses; null for "Profile batch". */
  commit: CommitTarget | null;
}

function isPosition(value: unknown): value is TargetPosition {
  const v = value as TargetPosition | null;
  return typeof v === 'object' && v !== null && Number.isInteger(v.line) && Number.isInteger(v.character);
}

function isRange(value: unknown): value is TargetRange {
  const v = value as TargetRange | null;
  return typeof v === 'object' && v !== null && isPosition(v.start) && isPosition(v.end);
}

/** Commands can be invoked from the palette, keybindings or other extensions with anything as argument. */
export function isProfileTarget(value: unknown): value is ProfileTarget {
  const v = value as ProfileTarget | null;
  if (typeof v !== 'object' || v === null) return false;
  if (typeof v.uri !== 'string' || !Number.isInteger(v.version) || !Number.isInteger(v.batchIndex)) return false;
  if (!isRange(v.batchRange) || !Number.isInteger(v.repeat)) return false;
  if (v.commit === null) return true;
  const c = v.commit as CommitTarget | null;
  return (
    typeof c === 'object' &&
    c !== null &&
    isPosition(c.position) &&
    isRange(c.range) &&
    (c.transactionRange === null || isRange(c.transactionRange)) &&
    (c.delayedDurability === null || c.delayedDurability === 'ON' || c.delayedDurability === 'OFF') &&
    typeof c.inLoop === 'boolean'
  );
}

/** Human description of a target for messages, 1-based lines as editors show them. */
export function describeTarget(target: ProfileTarget): string {
  const lines = (r: TargetRange) =>
    r.start.line === r.end.line ? `line ${r.start.line + 1}` : `lines ${r.start.line + 1}–${r.end.line + 1}`;
  const repeat = target.repeat > 1 ? ` (GO ${target.repeat})` : '';
  if (target.commit) {
    const where = target.commit.transactionRange ? lines(target.commit.transactionRange) : lines(target.commit.range);
    return `the transaction committed at line ${target.commit.position.line + 1} (${where}, batch ${target.batchIndex + 1}${repeat})`;
  }
  return `batch ${target.batchIndex + 1} (${lines(target.batchRange)})${repeat}`;
}
