// Recordings: the ad-hoc log-flush trace and the recording window over the server's own workload. What the
// extension registers.
export { AdhocTrace } from './adhocTrace';
export { RecordingWindow } from './recordingWindow';
