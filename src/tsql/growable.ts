// Growable columns of typed arrays (the lexer's tokens, the scanner's statement table): one copy per doubling.

/** A copy of `array` in a new array of `size` elements (zeros after the old ones). */
export function grown<T extends Uint8Array | Uint16Array | Int32Array>(array: T, size: number): T {
  const bigger = new (array.constructor as new (size: number) => T)(size);
  bigger.set(array);
  return bigger;
}
