// Server errors the model raises, shaped like SQL Server's (number, state, class, message, line).
// Numbers and texts follow the documented/observed SQL Server messages; modelling choices are listed in MODEL.md.
import type { ServerMessage } from '../engine';

export class SqlError extends Error {
  constructor(
    public readonly number: number,
    public readonly cls: number,
    message: string,
    public line = 0,
    public readonly state = 1,
    /** Further errors SQL Server sends right after this one (e.g. 5069 after 5061). */
    public readonly followUps: SqlError[] = [],
  ) {
    super(message);
  }

  toMessage(): ServerMessage {
    return { number: this.number, state: this.state, class: this.cls, message: this.message, lineNumber: this.line };
  }
}

export const errors = {
  syntax: (near: string, line: number) => new SqlError(102, 15, `Incorrect syntax near '${near}'.`, line),
  syntaxEnd: (line: number) => new SqlError(102, 15, 'Incorrect syntax near the end of the batch.', line),
  invalidObject: (name: string, line: number) => new SqlError(208, 16, `Invalid object name '${name}'.`, line),
  invalidColumn: (name: string, line: number) => new SqlError(207, 16, `Invalid column name '${name}'.`, line),
  ambiguousColumn: (name: string, line: number) => new SqlError(209, 16, `Ambiguous column name '${name}'.`, line),
  mustDeclare: (name: string, line: number) => new SqlError(137, 15, `Must declare the scalar variable "${name}".`, line),
  alreadyDeclared: (name: string, line: number) =>
    new SqlError(134, 15, `The variable name '${name}' has already been declared. Variable names must be unique within a query batch or stored procedure.`, line),
  unknownFunction: (name: string, line: number) => new SqlError(195, 15, `'${name}' is not a recognized built-in function name.`, line),
  divideByZero: (line: number) => new SqlError(8134, 16, 'Divide by zero error encountered.', line),
  conversion: (value: string, type: string, line: number) =>
    new SqlError(245, 16, `Conversion failed when converting the varchar value '${value}' to data type ${type}.`, line),
  dbNotExist: (name: string, line: number) =>
    new SqlError(911, 16, `Database '${name}' does not exist. Make sure that the name is entered correctly.`, line),
  commitNoBegin: (line: number) => new SqlError(3902, 16, 'The COMMIT TRANSACTION request has no corresponding BEGIN TRANSACTION.', line),
  rollbackNoBegin: (line: number) => new SqlError(3903, 16, 'The ROLLBACK TRANSACTION request has no corresponding BEGIN TRANSACTION.', line),
  objectExists: (name: string, line: number) => new SqlError(2714, 16, `There is already an object named '${name}' in the database.`, line),
  cannotDropTable: (name: string, line: number) =>
    new SqlError(3701, 11, `Cannot drop the table '${name}', because it does not exist or you do not have permission.`, line),
  /** Msg 300 then Msg 297, as SQL Server reports a missing server-level VIEW permission. */
  viewPermission: (permission: string, line: number) =>
    new SqlError(300, 14, `${permission} permission was denied on object 'server', database 'master'.`, line, 1, [
      new SqlError(297, 16, 'The user does not have permission to perform this action.', line),
    ]),
  /** Azure SQL Database's refusal of a DMV: the text is NOT CONFIRMED (modelled on Msg 300 + 297 of SQL Server). */
  viewDatabasePermission: (db: string, line: number) =>
    new SqlError(300, 14, `VIEW DATABASE STATE permission was denied on object '${db}', database '${db}'.`, line, 1, [
      new SqlError(297, 16, 'The user does not have permission to perform this action.', line),
    ]),
  noPermission: (line: number) => new SqlError(15247, 16, 'User does not have permission to perform this action.', line),
  alterDbPermission: (db: string, line: number) =>
    new SqlError(5011, 14, `User does not have permission to alter database '${db}', the database does not exist, or the database is not in a state that allows access checks.`, line, 1, [
      new SqlError(5069, 16, 'ALTER DATABASE statement failed.', line),
    ]),
  alterDbLocked: (db: string, line: number) =>
    new SqlError(5061, 16, `ALTER DATABASE failed because a lock could not be placed on database '${db}'. Try again later.`, line, 1, [
      new SqlError(5069, 16, 'ALTER DATABASE statement failed.', line),
    ]),
  lockTimeout: (line: number) => new SqlError(1222, 16, 'Lock request time out period exceeded.', line, 56),
  loginFailed: (user: string) => new SqlError(18456, 14, `Login failed for user '${user}'.`, 1),
  cannotOpenDb: (db: string) => new SqlError(4060, 11, `Cannot open database "${db}" requested by the login. The login failed.`, 1),
};
