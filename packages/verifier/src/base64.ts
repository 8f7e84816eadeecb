/**
 * Standard base64 (RFC 4648 §4) to bytes with the platform's `atob` (Node.js ≥ 16 and every
 * browser), so the verifier needs no `Buffer`.
 * @module
 */

/**
 * Decodes standard base64 (padding optional, no whitespace).
 * @param text base64 text, e.g. a bundle's `salt` or an RPC account's `data[0]`.
 * @returns the decoded bytes.
 * @throws DOMException (`InvalidCharacterError`) when `text` is not base64.
 */
export function base64Bytes(text: string): Uint8Array {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) {
    bytes[i] = binary.charCodeAt(i);
  }
  return bytes;
}
