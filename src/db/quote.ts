// QUOTENAME-style identifiers and N'...' literals: the one place SQL text is built from a name or a string, so
// every statement, GRANT hint and DROP advice quotes the same way.

/** QUOTENAME-style: [a]]b] for a]b. Never interpolate a name any other way. */
export function quoteName(name: string): string {
  return `[${name.replace(/\]/g, ']]')}]`;
}

/** An N'...' literal with quotes doubled: for the places DDL takes no parameters (event_file filename). */
export function quoteString(value: string): string {
  if (value.includes('\u0000')) throw new RangeError('string literal must not contain NUL');
  return `N'${value.replace(/'/g, "''")}'`;
}
