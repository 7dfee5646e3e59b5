// Run history: past runs and comparisons kept in globalState, reopened, exported, and a comparison file opened
// from disk. What other folders of the extension use.
export { registerHistoryCommands } from './historyCommands';
export { RunHistory, type HistoryEntry, type KeyValueStore } from './runHistory';
export { showAndKeep } from './showAndKeep';
