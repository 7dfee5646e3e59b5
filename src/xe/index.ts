// Public surface of the Extended Events layer: session lifecycle, orphan cleanup, readers and the RunResult summary.

export { aggregateLogFlushEvents, LogFlushAggregator, type AggregateContext, type DurationUnit, type LogFlushTrace } from './aggregate';
export { mapSessionError, XeSessionError, type XePlatform, type XeStep } from './errors';
export { readEventFile, readEventFileRows, type EventFileCursor, type EventFileRead } from './eventFile';
export {
  dropOrphanSessions,
  dropSession,
  findOrphanSessions,
  LogFlushSession,
  planLogFlushTrace,
  ringBufferEventsLimit,
  withLogFlushTrace,
  type LogFlushTraceOptions,
  type TracePlan,
  type WithTraceOptions,
} from './logFlushTrace';
export { readRingBufferXml, XeXmlReader, type LostEvents, type RingBufferHeader, type XeEvent, type XeField, type XeReadResult } from './reader';
export { newSessionName, SESSION_NAME_PREFIX, type SessionScope } from './sessionSql';
