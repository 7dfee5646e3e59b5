// The comparison panel: its webview host (strict CSP), the PanelData it shows, and exports to a file. What other
// folders of the extension use.
export { EXPORT_FORMATS, saveExport } from './exportFile';
export { ComparisonPanels } from './panel';
export { comparisonContextOf, panelDataFromComparison, panelDataFromDocument, panelDataFromRun, panelDataFromTrace, type ComparisonContext } from './panelData';
