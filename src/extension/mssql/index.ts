// The mssql extension's connection sharing: "Use the mssql Connection of This Editor". What the extension registers.
export { registerMssqlCommands } from './mssqlCommands';
