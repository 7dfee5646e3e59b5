// An order of text every machine agrees on. String.prototype.localeCompare without a locale collates by the machine's
// (Node's ICU follows LC_ALL / LANG): Czech sorts "CH" after "H", Danish "aa" after "z". Where text breaks a tie in a
// report, an export or a file list — wait types, event names, statements, ISO timestamps, paths — that made the order,
// and which rows made a top N, depend on who ran it.

/** Code-unit order, the order `<` gives: the same in every locale and on every machine. */
export function byCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
