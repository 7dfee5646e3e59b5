// Public surface of the Extended Events layer: session lifecycle, orphan cleanup, readers and the RunResult summary.

export { aggregateLogFlushEvents, LogFlushAggregator, type AggregateContext, type DurationUnit, type LogFlushTrace } from './aggregate';
export { dropOrphanSessions, dropSession, findOrphanSessions } from './cleanup';
export { mapSessionError, XeSessionError, type XePlatform, type XeStep } from './errors';
export { readEventFile, readEventFileRows, streamEventFile, type EventFileCursor, type EventFileRead, type EventFileStream } from './eventFile';
export { parseCounterTarget, parseHistogramTarget, type CounterData, type HistogramData } from './targetData';
export type { TimelineCoverage } from './timeline';
export { LogFlushSession, withLogFlushTrace, type SessionState, type WithTraceOptions } from './logFlushTrace';
export { sessionScopeOf } from './sessionRunner';
export { planLogFlushTrace, ringBufferEventsLimit, type LogFlushTraceOptions, type TracePlan } from './plan';
export { readRingBufferXml, XeXmlReader, type LostEvents, type RingBufferHeader, type XeEvent, type XeField, type XeReadResult } from './reader';
export { latencySessionName, newSessionName, owningSessionName, SESSION_NAME_PREFIX, statementSessionName, type SessionScope } from './sessionSql';
export { analyzeTraceFiles, type OfflineStatement, type OfflineTrace } from './offlineTrace';
export { readTraceFile, TraceFileError, type TraceFileKind, type TraceFileRead } from './traceFile';
