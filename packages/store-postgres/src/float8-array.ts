/**
 * Decodes `array_send` of a one-dimensional `double precision[]` (network byte order: ndim,
 * has-nulls flag, element type, then length and lower bound, then per element its byte length,
 * -1 for NULL, and the value). Returns `bytes` unchanged when it is not such an array, so that the
 * row's validation rejects it like any other malformed value.
 */
export function decodeFloat8Array(bytes: Uint8Array): (number | null)[] | Uint8Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.byteLength < 12 || view.getInt32(8) !== FLOAT8_OID) return bytes;
  const ndim = view.getInt32(0);
  if (ndim === 0) return [];
  if (ndim !== 1 || bytes.byteLength < 20) return bytes;
  const length = view.getInt32(12);
  const out: (number | null)[] = new Array(length);
  let offset = 20;
  for (let i = 0; i < length; i++) {
    if (offset + 4 > bytes.byteLength) return bytes;
    const size = view.getInt32(offset);
    offset += 4;
    if (size === -1) {
      out[i] = null;
      continue;
    }
    if (size !== 8 || offset + 8 > bytes.byteLength) return bytes;
    out[i] = view.getFloat64(offset);
    offset += 8;
  }
  return offset === bytes.byteLength ? out : bytes;
}

const FLOAT8_OID = 701;
