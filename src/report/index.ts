// Public surface of the report model: metrics, comparison model, diagnosis and exporters (no vscode, no db).
export * from './stats';
export * from './metrics';
export * from './comparison';
export * from './diagnosis';
export * from './export';
export * from './markdownText';
export * from './document';
export * from './environment';
export { byteScale, formatByteRate, formatBytes, formatCount, formatDuration, formatFactor, formatShare } from './units';
export * from './verdict';
export * from './gates';
export { gatesToJunit, xmlEscape, type JunitOptions } from './junit';
export { analysisToSarif, pathToSarifUri, sarifLevel, SARIF_RULES, SARIF_SCHEMA, SARIF_VERSION, type SarifFileInput } from './sarif';
export * from './concurrency';
export * from './consistency';
