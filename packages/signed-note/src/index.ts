/**
 * `@verifiable-memory/signed-note`: C2SP signed notes and checkpoints with Ed25519 (type 0x01): key
 * names, key ids, verifier and signer keys, signing, parsing and verifying notes, the
 * tlog-checkpoint note text, witness cosignatures (tlog-cosignature, type 0x04) and the k-of-n
 * witness policy (docs/protocol.md §13 "Signed checkpoints and the transparency log").
 * Pure: @noble/ed25519 and @noble/hashes, no Node built-ins, runs unchanged in browsers.
 * @module
 */
export { decodeBase64, encodeBase64 } from "./base64.js";
export {
  type Checkpoint,
  formatCheckpoint,
  openCheckpoint,
  parseCheckpoint,
  userLogOrigin,
} from "./checkpoint.js";
export {
  type Cosigner,
  cosignatureMessage,
  cosignatureTime,
  cosignerFromSeed,
  generateCosigner,
  MAX_COSIGNATURE_TIME,
  parseCosignerKey,
  parseCosignerVerifierKey,
  SIG_TYPE_COSIGNATURE_V1,
} from "./cosignature.js";
export { NoteError, type NoteErrorReason } from "./errors.js";
export {
  generateSigner,
  isValidKeyName,
  keyId,
  type NoteSigner,
  type NoteVerifier,
  parseSignerKey,
  parseVerifierKey,
  SIG_TYPE_ED25519,
  signerFromSeed,
} from "./keys.js";
export {
  assertNoteText,
  hasForbiddenCharacter,
  MAX_SIGNATURES,
  type NoteSignature,
  type OpenedNote,
  openNote,
  type ParsedNote,
  parseNote,
  signNote,
} from "./note.js";
export {
  type CountedCosignature,
  openWitnessedCheckpoint,
  type WitnessedCheckpoint,
} from "./witness-policy.js";
