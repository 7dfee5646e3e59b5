// Our event sessions: which window owns each (the ledger) and the offer to drop the ones a crash left behind. What
// other folders of the extension use.
export { offerOrphanCleanup } from './orphanSessions';
export { HEARTBEAT_MS, SessionLedger } from './sessionLedger';
