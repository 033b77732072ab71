/** Vectors as pgvector reads and writes them in text: "[0.1,-0.2,...]". */

/**
 * A vector as pgvector reads it. Nine significant digits give back every float32
 * exactly (the server stores float4), in about half the text of a double's digits.
 */
export function vectorText(point: ArrayLike<number>): string {
  let s = '[';
  for (let i = 0; i < point.length; i++) s += (i ? ',' : '') + Number(point[i]).toPrecision(9);
  return s + ']';
}

/** pgvector's text output (shortest round-trip decimals of float4): exact back in a Float32Array. */
export function parseVector(text: string): Float32Array {
  const body = text.trim().replace(/^\[/, '').replace(/\]$/, '');
  return Float32Array.from(body ? body.split(',').map(Number) : []);
}
