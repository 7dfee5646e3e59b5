// Profiling: a profile or comparison from a lens, the editor or another caller, through consent to the panel; the
// workload targets, the statement hints, the readiness check. What other folders of the extension use.
export { registerCommands } from './commands';
export type { ProfileMode, RunOutcome } from './profiling';
export { documentName, ProfilingController } from './profilingController';
export { registerReadinessCommand } from './readinessCommand';
export { StatementHints } from './statementHints';
export type { WorkloadTarget } from './targets';
