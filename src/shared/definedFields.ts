// An object without its undefined fields. Data that is stored or compared as written (a settings entry, a connection
// profile, an error's fields) is built as one literal whose optional values may be undefined, and stripped once here,
// instead of one conditional spread per field.

/** The same object with every field whose value is undefined left out (null, 0, '' and false stay). */
export function definedFields<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
