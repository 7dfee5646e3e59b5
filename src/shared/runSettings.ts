// The `durabilityLens.*` settings that shape a run (sampling, timeouts, benign waits, Extended Events, history,
// comparison defaults): names, defaults and a forgiving reader. package.json mirrors RUN_SETTING_DEFAULTS (tested).

export type RunDurabilityMode = 'DISABLED' | 'ALLOWED' | 'FORCED';

export interface RunSettings {
  samplingIntervalMs: number;
  connectTimeoutMs: number;
  /** Time limit of each measured run's workload (then cancelled like the Cancel button); 0 = no limit. */
  requestTimeoutMs: number;
  /** Wait types to keep visible although the shipped benign list hides them. */
  benignInclude: string[];
  /** Extra wait types to hide as benign. */
  benignExclude: string[];
  xeEnabled: boolean;
  /** Also trace the workload session's statements (per-statement attribution); only with xeEnabled. */
  xeStatements: boolean;
  xeTarget: { kind: 'ring_buffer' } | { kind: 'event_file'; path: string };
  /**
   * Profile runs also measure the per-statement trace's cost: this many runs with it and as many without, alternating
   * (2–10; 0 = off). Runs the workload 2×N times, so it is off by default and shown in the confirmation.
   */
  xeTraceOverheadRuns: number;
  /**
   * Set when xe.eventFilePath is a network (UNC) path that was not confirmed: the run uses the ring buffer and this
   * says why. SQL Server's service account would connect to that share and authenticate to it.
   */
  xeTargetRefused: string | null;
  historySize: number;
  compareModes: RunDurabilityMode[];
  compareRepetitions: number;
  compareWarmup: boolean;
  /** Concurrency sweep levels (session counts, 1..64, no repeats); [] = one workload session, no sweep. */
  compareSessions: number[];
}

/** Full setting keys (without the `durabilityLens.` section) and their defaults, as package.json declares them. */
export const RUN_SETTING_DEFAULTS = {
  'sampling.intervalMs': 1000,
  'timeouts.connectMs': 15000,
  'timeouts.requestMs': 0,
  'waits.benign.include': [] as string[],
  'waits.benign.exclude': [] as string[],
  'xe.enabled': true,
  'xe.statements': true,
  'xe.traceOverheadRuns': 0,
  'xe.target': 'ring_buffer',
  'xe.eventFilePath': '',
  'history.size': 20,
  'compare.modes': ['DISABLED', 'FORCED'] as RunDurabilityMode[],
  'compare.repetitions': 3,
  'compare.warmup': true,
  'compare.sessions': [] as number[],
} as const;

export type RunSettingKey = keyof typeof RUN_SETTING_DEFAULTS;

const MODES: readonly RunDurabilityMode[] = ['DISABLED', 'ALLOWED', 'FORCED'];

function int(value: unknown, min: number, max: number, fallback: number): number {
  return typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max ? value : fallback;
}

function names(value: unknown): string[] {
  if (!Array.isArray(value)) return [];
  return [...new Set(value.filter((v): v is string => typeof v === 'string' && v.trim() !== '').map((v) => v.trim().toUpperCase()))];
}

/**
 * Complete settings from a getter of raw values (VS Code's WorkspaceConfiguration.get). A value of the wrong type or
 * out of range keeps its default, so a half-written settings.json never stops a run.
 */
/**
 * A UNC / network path: `\\server\share\…`, `//server/share/…`, and the device forms `\\?\UNC\server\…` and
 * `\\.\UNC\server\…`. Writing an event file there makes the SQL Server service account open a connection to that
 * server and authenticate (NTLM), which hands its credentials to whoever runs the share. Local paths (C:\…,
 * /var/opt/mssql/…) and the local device forms of a drive or volume (`\\?\C:\…`, `\\.\C:\…`, `\\?\Volume{…}\…`,
 * the Win32 long-path prefix) are not network paths. Any other device path (`\\?\GLOBALROOT\…`, `\\.\pipe\…`) can
 * reach a redirector, so it counts as network (server unknown) and needs the same confirmation.
 */
export function networkPathServer(path: string): { server: string | null } | null {
  const p = path.trim();
  const device = /^[\\/]{2}[?.][\\/]([^\\/]*)(?:[\\/]([^\\/]*))?/.exec(p);
  if (device) {
    const [, root = '', next = ''] = device;
    if (/^[a-z]:$/i.test(root) || /^volume\{[0-9a-f-]+\}$/i.test(root)) return null;
    return root.toUpperCase() === 'UNC' ? { server: next === '' ? null : next } : { server: null };
  }
  const unc = /^[\\/]{2}([^\\/]+)/.exec(p);
  return unc ? { server: unc[1]! } : null;
}

export function isNetworkPath(path: string): boolean {
  return networkPathServer(path) !== null;
}

/** Who the service account would authenticate to: "the server X" or, for a device path, "whatever server it leads to". */
export function networkPathTarget(path: string): string {
  const server = networkPathServer(path)?.server;
  return server ? `the server ${server}` : 'whatever server that device path leads to';
}

export interface ReadRunSettingsOptions {
  /** A network xe.eventFilePath the user confirmed (from the user-level setting only); default false. */
  allowNetworkEventFile?: boolean;
}

export function readRunSettings(get: (key: RunSettingKey) => unknown, options: ReadRunSettingsOptions = {}): RunSettings {
  const d = RUN_SETTING_DEFAULTS;
  const modesRaw = get('compare.modes');
  let compareModes = Array.isArray(modesRaw) ? [...new Set(modesRaw.filter((m): m is RunDurabilityMode => MODES.includes(m as RunDurabilityMode)))] : [];
  if (compareModes.length < 2) compareModes = [...d['compare.modes']];
  const path = get('xe.eventFilePath');
  const targetKind = get('xe.target');
  // event_file without a path cannot be created: fall back to the ring buffer rather than fail every run.
  let xeTarget: RunSettings['xeTarget'] =
    targetKind === 'event_file' && typeof path === 'string' && path.trim() !== '' ? { kind: 'event_file', path: path.trim() } : { kind: 'ring_buffer' };
  let xeTargetRefused: string | null = null;
  if (xeTarget.kind === 'event_file' && isNetworkPath(xeTarget.path) && !options.allowNetworkEventFile) {
    xeTargetRefused = `The event-file path ${xeTarget.path} is a network path: SQL Server's service account would connect to ${networkPathTarget(xeTarget.path)} and authenticate to it. Not used without your confirmation; the ring buffer is used instead.`;
    xeTarget = { kind: 'ring_buffer' };
  }
  const xeEnabled = get('xe.enabled');
  const xeStatements = get('xe.statements');
  const warmup = get('compare.warmup');
  return {
    samplingIntervalMs: int(get('sampling.intervalMs'), 100, 3_600_000, d['sampling.intervalMs']),
    connectTimeoutMs: int(get('timeouts.connectMs'), 1000, 600_000, d['timeouts.connectMs']),
    requestTimeoutMs: int(get('timeouts.requestMs'), 0, 86_400_000, d['timeouts.requestMs']),
    benignInclude: names(get('waits.benign.include')),
    benignExclude: names(get('waits.benign.exclude')),
    xeEnabled: typeof xeEnabled === 'boolean' ? xeEnabled : d['xe.enabled'],
    xeStatements: typeof xeStatements === 'boolean' ? xeStatements : d['xe.statements'],
    xeTarget,
    xeTargetRefused,
    xeTraceOverheadRuns: traceOverheadRuns(get('xe.traceOverheadRuns')),
    historySize: int(get('history.size'), 1, 500, d['history.size']),
    compareModes,
    compareRepetitions: int(get('compare.repetitions'), 1, 100, d['compare.repetitions']),
    compareWarmup: typeof warmup === 'boolean' ? warmup : d['compare.warmup'],
    compareSessions: sessionLevels(get('compare.sessions')),
  };
}

/** 0 (off) or 2..10 runs each way; anything else (1 gives no range) is off. */
function traceOverheadRuns(value: unknown): number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 2 && value <= 10 ? value : 0;
}

/** Whole numbers 1..64, repeats dropped, order kept; anything else is ignored (a half-written list never stops a run). */
function sessionLevels(value: unknown): number[] {
  if (!Array.isArray(value)) return [];
  return [...new Set(value.filter((v): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 1 && v <= 64))];
}

export function defaultRunSettings(): RunSettings {
  return readRunSettings(() => undefined);
}
