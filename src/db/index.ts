// The db layer's public surface: the only code in the product that imports tedious lives behind this file.
export { connect, ENCRYPTION_CHECK_SQL, type ConnectOptions } from './connect';
export { ConnectionFailure, SqlQueryError, classifyConnectionError, isMissingObjectError, isPermissionError, sqlErrorsOf } from './errors';
export { applicationName, toTediousConfig } from './profile';
export { TediousSession } from './session';
export { documentLineOf, runWorkload, type WorkloadRun, type WorkloadRunOptions } from './workload';
export type * from './types';
export { parseDataSource, profileFromConnectionString, type ParsedConnectionString } from './connectionString';
