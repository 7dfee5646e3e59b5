// Stored procedures: the procedure lens's run (deployed or editor definition, parameters asked and remembered).
// What the extension registers.
export { ProcedureParameterStore } from './procedureParameterStore';
export { ProcedureRunner } from './procedureRun';
