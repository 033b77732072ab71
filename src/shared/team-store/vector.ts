/** Vectors across the wire: written as pgvector reads text ("[0.1,-0.2,...]"), read back in its binary form. */

/**
 * A vector as pgvector reads it. Nine significant digits give back every float32
 * exactly (the server stores float4), in about half the text of a double's digits.
 */
export function vectorText(point: ArrayLike<number>): string {
  let s = '[';
  for (let i = 0; i < point.length; i++) s += (i ? ',' : '') + Number(point[i]).toPrecision(9);
  return s + ']';
}

/**
 * pgvector's binary form (`vector_send`: int16 dimensions, int16 unused, then each float4 big-endian), as
 * node-postgres hands a bytea over: a Buffer. Copied and byte-swapped natively, not split and parsed as
 * text: the text form cost an org check 31 ms for its thousand fetched chunks (bench/store-bench.mjs). A
 * buffer whose length does not match its stated dimensions gives an empty vector (the caller names that row bad).
 */
export function vectorFromBinary(bytes: Uint8Array): Float32Array {
  if (bytes.length < 4) return new Float32Array(0);
  const dimensions = (bytes[0] << 8) | bytes[1];
  if (bytes.length !== 4 + 4 * dimensions) return new Float32Array(0);
  const out = new Float32Array(dimensions);
  const raw = new Uint8Array(out.buffer);
  raw.set(bytes.subarray(4));
  if (LITTLE_ENDIAN) Buffer.from(out.buffer).swap32();
  return out;
}

const LITTLE_ENDIAN = new Uint8Array(Uint16Array.of(1).buffer)[0] === 1;
