// Consent: what a run will change, shown before it runs (the modal and the review tab), remembered per file and
// connection, and refused in Restricted Mode. What other folders of the extension use.
export { ConsentGate } from './consentGate';
export { ConsentStore } from './consentStore';
export { partsOfWorkload, type ConsentPart, type ConsentRequest } from './consentView';
export { footprintNotes } from './footprint';
export { procedureConsentParts, type CalledDefinition } from './procedureParts';
export { withTraceOverheadPlan } from './traceOverheadPlan';
export { withSweepPart } from './sessionPlan';
export { comparisonRunTotal, withComparisonRuns } from './comparisonRuns';
