// The four agent tools Durability Lens offers, declared once: their names, what a model is told about each (precise
// enough to choose between them), and their input schemas. The VS Code language-model tools (src/extension/lm) and
// the stdio MCP server (src/cli/mcp) both serve exactly these; a unit test keeps package.json's languageModelTools
// equal to them. vscode-free.

/** A JSON Schema object as both hosts take it (VS Code's languageModelTools.inputSchema, MCP's tools/list inputSchema). */
import { TRACE_OVERHEAD_MAX_RUNS, TRACE_OVERHEAD_MIN_RUNS } from '../profile/traceOverhead';

export interface ToolInputSchema {
  type: 'object';
  properties: Record<string, Record<string, unknown>>;
  required?: string[];
  additionalProperties: false;
}

export interface AgentToolDefinition {
  name: AgentToolName;
  displayName: string;
  /** In VS Code's tool picker and `#` references. */
  toolReferenceName: string;
  /** True when the tool sends T-SQL that may change data or schema, and changes DELAYED_DURABILITY (compare). */
  changesDatabase: boolean;
  /** What the model reads to decide whether and how to call the tool. */
  modelDescription: string;
  /** What the user reads in the tool picker. */
  userDescription: string;
  inputSchema: ToolInputSchema;
}

export const AgentTools = {
  analyzeFile: 'durability_lens_analyze_file',
  getResults: 'durability_lens_get_results',
  profile: 'durability_lens_profile',
  compareDurability: 'durability_lens_compare_durability',
} as const;
export type AgentToolName = (typeof AgentTools)[keyof typeof AgentTools];

const PATH_PROPERTY = {
  type: 'string',
  description: 'Path of the T-SQL file (absolute, or relative to the workspace folder / the server\'s working folder).',
};

const LINE_PROPERTIES = {
  startLine: { type: 'integer', minimum: 1, description: '1-based first line of the T-SQL to run. With endLine: exactly those lines run (a selection; GO lines in it split batches). Without endLine: the GO batch containing this line runs, after the script\'s setup batches when it marks them (-- durability-lens: setup … measure). Omit both to run the whole file (its setup markers honoured); a file that defines a procedure, function or trigger is then refused (its CREATE/ALTER would run) — pass the lines of an EXEC that calls it.' },
  endLine: { type: 'integer', minimum: 1, description: '1-based last line (inclusive) of the T-SQL to run; needs startLine.' },
};

/**
 * The profile tool's trace-overhead option: the CLI's `profile --trace-overhead N`, the setting
 * durabilityLens.xe.traceOverheadRuns (profile/traceOverheadRun.ts). Only Profile takes it: a comparison runs without
 * the per-statement trace (profile/compareRuns.ts), so there is nothing of it to measure there.
 */
const TRACE_OVERHEAD_PROPERTY = {
  type: 'integer',
  minimum: TRACE_OVERHEAD_MIN_RUNS,
  maximum: TRACE_OVERHEAD_MAX_RUNS,
  description: `Optional, ${TRACE_OVERHEAD_MIN_RUNS}–${TRACE_OVERHEAD_MAX_RUNS}: also measure what the per-statement trace (the Extended Events session that gives the per-statement figures) costs this workload. After the profile's own run, the same T-SQL runs again on the same connection, alternating without and with the trace, until it has run N times with the trace and N times without — 2×N runs in all, the setup batches before each — so every INSERT/UPDATE/DELETE or DDL in it runs 2×N times (that count is part of what the user confirms). The result's traceOverhead gives the median elapsed time with vs without the trace, the slowdown in %, whether the ranges overlap (then the difference may be noise) and the cost per traced statement; the rest of the result comes from the first run. Omit it to run the T-SQL once (in VS Code the user's setting durabilityLens.xe.traceOverheadRuns then decides). Same as \`durability-lens profile --trace-overhead N\`.`,
};

const RUN_NOTE =
  'It RUNS the T-SQL against the connected SQL Server database: the statements execute for real (INSERT/UPDATE/DELETE and DDL in it change data or schema), wrapped in measurements (log flushes, WRITELOG waits, log bytes, per-file IO, Extended Events). Before anything that changes data or schema runs, the user sees the exact text and must confirm; when they decline, nothing runs and the tool says so. Use durability_lens_analyze_file first to find what is worth running (loops of single-row DML, COMMIT in a loop) and its lines. To measure a stored procedure, pass the lines of an EXEC statement that calls it.';

export const AGENT_TOOLS: readonly AgentToolDefinition[] = [
  {
    name: AgentTools.analyzeFile,
    displayName: 'Analyze T-SQL Durability',
    toolReferenceName: 'durabilityAnalyze',
    changesDatabase: false,
    modelDescription:
      'Reads a T-SQL script (no server, nothing runs) and reports its GO batches with their line ranges, loops, COMMITs, DML and the durability diagnostics of Durability Lens: autocommit DML inside a loop (one log flush per row), COMMIT inside a loop, COMMIT WITH (DELAYED_DURABILITY = ON) that needs the database ALLOWED, ALTER DATABASE … SET DELAYED_DURABILITY = FORCED (data-loss risk), unbalanced transactions. It also lists the batches worth measuring (DML in a loop) with the startLine/endLine to pass to durability_lens_profile or durability_lens_compare_durability. Lines are 1-based. Use it to answer "why is this script slow to commit" from the text, before measuring.',
    userDescription: 'Analyze a T-SQL file for commit and log-flush problems (reads only).',
    inputSchema: {
      type: 'object',
      properties: { path: { ...PATH_PROPERTY, description: `${PATH_PROPERTY.description} In VS Code it may be omitted: the active editor's SQL file is analysed.` } },
      additionalProperties: false,
    },
  },
  {
    name: AgentTools.getResults,
    displayName: 'Read Durability Results',
    toolReferenceName: 'durabilityResults',
    changesDatabase: false,
    modelDescription:
      'Returns the measured results of the latest Durability Lens profile or durability comparison (nothing runs): the verdict (speed-up of FORCED vs DISABLED with its range and whether it is conclusive (two runs or more per mode with ranges apart; one run per mode is only indicative), log flushes per commit, where the time went), the causes and diagnosis findings with the figures they rest on, the consistency checks between independent sources of the same figure, every figure that was NOT measured with the reason and the GRANT that enables it (never read a missing figure as zero), whether the figures are the test stand-in\'s rather than SQL Server\'s, and how the database was left (DELAYED_DURABILITY restored and verified). Use it to explain a run the user made, or after durability_lens_profile / durability_lens_compare_durability.',
    userDescription: 'Read the verdict, causes and consistency of the latest profile or comparison (reads only).',
    inputSchema: {
      type: 'object',
      properties: {
        kind: { type: 'string', enum: ['any', 'comparison', 'profile'], default: 'any', description: 'Which latest result: a comparison of DELAYED_DURABILITY modes, a single profile, or whichever is newer.' },
        file: { type: 'string', description: 'Optional: a comparison JSON document written by `durability-lens compare --out FILE.json` or exported from the panel, read instead of the latest result.' },
      },
      additionalProperties: false,
    },
  },
  {
    name: AgentTools.profile,
    displayName: 'Profile T-SQL',
    toolReferenceName: 'durabilityProfile',
    changesDatabase: true,
    modelDescription: `Profiles T-SQL from a file on the connected SQL Server database — once, unless traceOverheadRuns asks to also measure what the per-statement trace costs (then 2×traceOverheadRuns times) — and returns where commit time went (elapsed, commits, log flushes, log bytes, WRITELOG and other waits, per-file IO), with the verdict and diagnosis as durability_lens_get_results gives them. ${RUN_NOTE} Durability Lens does not change DELAYED_DURABILITY; if the script does (ALTER DATABASE), the result says so and how to put it back.`,
    userDescription: 'Run T-SQL from a file once with commit measurements (asks before changing data).',
    inputSchema: { type: 'object', properties: { path: PATH_PROPERTY, ...LINE_PROPERTIES, traceOverheadRuns: TRACE_OVERHEAD_PROPERTY }, required: ['path'], additionalProperties: false },
  },
  {
    name: AgentTools.compareDurability,
    displayName: 'Compare Durability Modes',
    toolReferenceName: 'durabilityCompare',
    changesDatabase: true,
    modelDescription: `Runs T-SQL from a file repeatedly under DELAYED_DURABILITY = DISABLED and FORCED (alternating, after a warm-up) and returns the side-by-side comparison: speed-up with its range and whether it is conclusive, log flushes per commit, causes, consistency, and the verified restore of the original setting. It CHANGES the database setting with ALTER DATABASE … SET DELAYED_DURABILITY while it runs (while FORCED, recent commits of every session in that database can be lost on a crash) and restores it afterwards. ${RUN_NOTE} The switch of the setting is confirmed separately unless the connection is marked as a development database.`,
    userDescription: 'Compare DELAYED_DURABILITY modes for T-SQL from a file (asks before changing anything).',
    inputSchema: { type: 'object', properties: { path: PATH_PROPERTY, ...LINE_PROPERTIES }, required: ['path'], additionalProperties: false },
  },
];

export function agentTool(name: AgentToolName): AgentToolDefinition {
  return AGENT_TOOLS.find((t) => t.name === name)!;
}

/** Input of the analyze tool. */
export interface AnalyzeFileInput {
  path?: string;
}

export interface GetResultsInput {
  kind?: 'any' | 'comparison' | 'profile';
  file?: string;
}

export interface RunToolInput {
  path: string;
  startLine?: number;
  endLine?: number;
  /** Profile only: runs each way of the trace-overhead measurement (2–10); undefined: not asked. */
  traceOverheadRuns?: number;
}

/**
 * Checks a run tool's input (the hosts validate against the schema too; this says what is wrong in words). `tool` is
 * the tool it was given to: only profile takes traceOverheadRuns.
 */
export function checkRunInput(input: unknown, tool: 'profile' | 'compare'): RunToolInput | string {
  const i = (typeof input === 'object' && input !== null ? input : {}) as Record<string, unknown>;
  if (typeof i.path !== 'string' || i.path.trim() === '') return '"path" (the T-SQL file) is required.';
  const line = (v: unknown, name: string): number | undefined | string => {
    if (v === undefined || v === null) return undefined;
    return typeof v === 'number' && Number.isInteger(v) && v >= 1 ? v : `"${name}" must be a whole number ≥ 1.`;
  };
  const startLine = line(i.startLine, 'startLine');
  const endLine = line(i.endLine, 'endLine');
  if (typeof startLine === 'string') return startLine;
  if (typeof endLine === 'string') return endLine;
  if (endLine !== undefined && startLine === undefined) return '"endLine" needs "startLine".';
  if (startLine !== undefined && endLine !== undefined && endLine < startLine) return '"endLine" is before "startLine".';
  let traceOverheadRuns: number | undefined;
  if (i.traceOverheadRuns !== undefined && i.traceOverheadRuns !== null) {
    if (tool === 'compare') return `"traceOverheadRuns" is an option of ${AgentTools.profile} only: a comparison runs without the per-statement trace, so it has no trace cost to measure.`;
    const n = i.traceOverheadRuns;
    if (typeof n !== 'number' || !Number.isInteger(n) || n < TRACE_OVERHEAD_MIN_RUNS || n > TRACE_OVERHEAD_MAX_RUNS) {
      return `"traceOverheadRuns" must be a whole number from ${TRACE_OVERHEAD_MIN_RUNS} to ${TRACE_OVERHEAD_MAX_RUNS} (runs each way, with and without the per-statement trace); omit it to run once.`;
    }
    traceOverheadRuns = n;
  }
  return { path: i.path, startLine, endLine, traceOverheadRuns };
}
