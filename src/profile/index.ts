// Public surface of run orchestration: profile runs, durability comparisons, the restore guard and journal.
export * from './types';
export { describeServer, profileConnectionSource, tediousExecutor } from './connections';
export { counterDelta, figureSourceOf, measureRun, profileRun, ProfileCancelledError, readTargetDatabase, TARGET_DATABASE_SQL, type MeasureOptions, type ProfileRunOptions, type RunContext, type TargetDatabase } from './profileRun';
export * from './plan';
export * from './durabilityGuard';
export * from './databaseLock';
export * from './recovery';
export * from './restoreJournal';
export { runComparison, type CompareOptions, type ComparisonResult, type ComparisonStatus } from './compare';
export { SETUP_MARKER, MEASURE_MARKER, SetupMarkerError, isBlankSql, hasLineMarkers, splitByLineMarkers } from './setupMarkers';
export { runSetup, SetupFailedError, type SetupOutcome } from './setupRun';
export * from './runSchema';
export * from './sampler';
export * from './printSeries';
export { recordWindow, type RecordOptions } from './record';
export { CommandWorkload, commandFailureText, FOREIGN_SESSIONS_REASON, type CommandWorkloadOptions } from './recording';
export { displayCommand, runExternalCommand, type CommandOutcome, type CommandSpec } from './externalCommand';
