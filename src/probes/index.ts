// The probes' public surface: snapshot capture and diff, each probe's SQL + mapper, the preflight.
export * from './databaseInfo';
export * from './fileStats';
export * from './logInfo';
export * from './measurement';
export * from './perfCounters';
export * from './permissions';
export * from './serverInfo';
export * from './snapshot';
export * from './values';
export * from './waitStats';
export * from './grantRebuild';
export * from './logRateGovernance';
export * from './hyperscaleLogRate';
export * from './inMemoryTables';
export * from './sessionCpu';
