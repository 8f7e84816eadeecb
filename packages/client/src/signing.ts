/**
 * Signing the sign-in message (docs/protocol.md §2) with an ed25519 secret key (agents) or a
 * browser wallet (Wallet Standard `solana:signMessage`, or a wallet-adapter-style
 * `signMessage`). Browser-safe: @noble/ed25519 (its async API uses WebCrypto's SHA-512), bs58,
 * TextEncoder and the dependency-free @verifiable-memory/siws-message grammar; nothing from node:*.
 * @module
 */
import * as ed from "@noble/ed25519";
import { parseSignInMessage } from "@verifiable-memory/siws-message";
import bs58 from "bs58";

/** A public key as the Solana libraries hand it out: base58, raw bytes, or a web3.js PublicKey. */
export type PublicKeyLike =
  | string
  | Uint8Array
  | { toBase58(): string }
  | { toBytes(): Uint8Array };

/**
 * An ed25519 secret key: 64 bytes `seed ‖ public key` (a Solana CLI keypair file's array, or
 * web3.js `Keypair.secretKey`), or the 32-byte seed alone.
 */
export type SecretKeyInput = Uint8Array | readonly number[];

/** A keypair object, e.g. web3.js `Keypair` (`{ publicKey: PublicKey, secretKey: Uint8Array }`). */
export interface KeypairLike {
  readonly publicKey: PublicKeyLike;
  readonly secretKey: SecretKeyInput;
}

/** A Wallet Standard account (`@wallet-standard/base` `WalletAccount`, the parts used here). */
export interface StandardWalletAccount {
  /** base58 public key. */
  readonly address: string;
  readonly publicKey: Uint8Array;
}

/** `solana:signMessage` output (`@solana/wallet-standard-features`). */
export interface SignMessageOutput {
  readonly signedMessage: Uint8Array;
  readonly signature: Uint8Array;
}

/**
 * A Wallet Standard wallet (`@wallet-standard/base` `Wallet`, structurally): the SDK uses its
 * `solana:signMessage` feature, and `standard:connect` when no account is authorized yet.
 */
export interface StandardWallet {
  readonly accounts: readonly StandardWalletAccount[];
  readonly features: Readonly<Record<string, unknown>>;
}

/**
 * A wallet-adapter-style wallet (`@solana/wallet-adapter-base` `MessageSignerWalletAdapter`,
 * structurally): a connected `publicKey` and `signMessage(bytes) → signature`.
 */
export interface AdapterWallet {
  readonly publicKey: PublicKeyLike | null;
  signMessage(message: Uint8Array): Promise<Uint8Array>;
}

/** Anything `signInWithWallet` accepts. */
export type SignInWallet = StandardWallet | AdapterWallet;

/** Signs sign-in messages for one public key. */
export interface MessageSigner {
  /** base58 public key. */
  readonly publicKey: string;
  /** The ed25519 signature of `message` (the UTF-8 bytes of the sign-in text), 64 bytes. */
  signMessage(message: Uint8Array): Promise<Uint8Array>;
}

/** @throws TypeError when `key` is none of the {@link PublicKeyLike} forms. */
function publicKeyToBase58(key: PublicKeyLike, what: string): string {
  if (typeof key === "string") {
    return key;
  }
  if (key instanceof Uint8Array) {
    return bs58.encode(key);
  }
  if (typeof (key as { toBase58?: unknown }).toBase58 === "function") {
    return (key as { toBase58(): string }).toBase58();
  }
  if (typeof (key as { toBytes?: unknown }).toBytes === "function") {
    return bs58.encode((key as { toBytes(): Uint8Array }).toBytes());
  }
  throw new TypeError(`${what} must be base58, bytes or a PublicKey`);
}

/** Byte-wise equality. */
function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}

/**
 * A signer over an ed25519 secret key, checked for consistency: the public half of a 64-byte key,
 * and a keypair's `publicKey`, must be the seed's.
 * @throws TypeError when the key is not 32 or 64 bytes, or its halves (or `publicKey`) disagree.
 */
export async function keypairSigner(input: SecretKeyInput | KeypairLike): Promise<MessageSigner> {
  const pair = input instanceof Uint8Array || Array.isArray(input) ? null : (input as KeypairLike);
  const raw = Uint8Array.from(pair ? pair.secretKey : (input as SecretKeyInput));
  if (raw.length !== 32 && raw.length !== 64) {
    throw new TypeError(
      `secretKey must be 32 (seed) or 64 (seed ‖ public key) bytes, got ${raw.length}`,
    );
  }
  const seed = raw.slice(0, 32);
  const publicKey = await ed.getPublicKeyAsync(seed);
  if (raw.length === 64 && !equalBytes(raw.subarray(32), publicKey)) {
    throw new TypeError("secretKey's last 32 bytes are not the public key of its seed");
  }
  const address = bs58.encode(publicKey);
  if (pair && publicKeyToBase58(pair.publicKey, "publicKey") !== address) {
    throw new TypeError("publicKey is not the public key of secretKey");
  }
  return { publicKey: address, signMessage: (message) => ed.signAsync(message, seed) };
}

/** The `solana:signMessage` feature object. */
interface SignMessageFeature {
  signMessage(
    ...inputs: { account: StandardWalletAccount; message: Uint8Array }[]
  ): Promise<readonly SignMessageOutput[]>;
}
/** The `standard:connect` feature object. */
interface ConnectFeature {
  connect(): Promise<{ accounts: readonly StandardWalletAccount[] }>;
}

/** `wallet.features[name]` when it has the method `method`, else undefined. */
function feature<F>(wallet: StandardWallet, name: string, method: string): F | undefined {
  const value = wallet.features[name] as Record<string, unknown> | undefined;
  return typeof value?.[method] === "function" ? (value as F) : undefined;
}

/** Whether `wallet` is shaped like a Wallet Standard wallet (`accounts` and `features`). */
function isStandardWallet(wallet: SignInWallet): wallet is StandardWallet {
  return (
    typeof (wallet as StandardWallet).features === "object" &&
    (wallet as StandardWallet).features !== null &&
    Array.isArray((wallet as StandardWallet).accounts)
  );
}

/**
 * A signer over a browser wallet. A Wallet Standard wallet signs with `solana:signMessage`
 * (connecting with `standard:connect` first when it has no account yet), for `account` (default
 * its first account); an adapter-style wallet with its `signMessage`.
 * @throws TypeError when the wallet cannot sign messages, has no account / public key, or
 *   `account` is not one of its accounts.
 */
export async function walletSigner(
  wallet: SignInWallet,
  account?: StandardWalletAccount | string,
): Promise<MessageSigner> {
  if (!isStandardWallet(wallet)) {
    if (typeof wallet.signMessage !== "function") {
      throw new TypeError("the wallet has neither solana:signMessage nor signMessage");
    }
    if (wallet.publicKey === null || wallet.publicKey === undefined) {
      throw new TypeError("the wallet is not connected (publicKey is null)");
    }
    return {
      publicKey: publicKeyToBase58(wallet.publicKey, "wallet.publicKey"),
      signMessage: (message) => wallet.signMessage(message),
    };
  }
  const signing = feature<SignMessageFeature>(wallet, "solana:signMessage", "signMessage");
  if (!signing) {
    throw new TypeError("the wallet does not support solana:signMessage");
  }
  let accounts = wallet.accounts;
  if (accounts.length === 0) {
    const connecting = feature<ConnectFeature>(wallet, "standard:connect", "connect");
    if (!connecting) {
      throw new TypeError("the wallet has no account and no standard:connect");
    }
    accounts = (await connecting.connect()).accounts;
  }
  const wanted = typeof account === "string" ? account : account?.address;
  const chosen = wanted === undefined ? accounts[0] : accounts.find((a) => a.address === wanted);
  if (!chosen) {
    throw new TypeError(
      wanted === undefined ? "the wallet has no account" : `the wallet has no account ${wanted}`,
    );
  }
  return {
    publicKey: chosen.address,
    async signMessage(message) {
      const [output] = await signing.signMessage({ account: chosen, message });
      if (!output) {
        throw new Error("the wallet returned no signature");
      }
      if (!equalBytes(output.signedMessage, message)) {
        // The API checks the signature over the exact issued text.
        throw new Error("the wallet signed a different message than the sign-in text");
      }
      return output.signature;
    },
  };
}

/**
 * Checks that `message` is a sign-in message (docs/protocol.md §2.2) for `publicKey` before
 * anything signs it, so a hostile or confused server cannot obtain a signature over other bytes
 * (e.g. a transaction) from an agent's key.
 * @throws TypeError when the text is not a SIWS message or names another address.
 */
export function assertSignInMessage(message: string, publicKey: string): void {
  let address: string;
  try {
    address = parseSignInMessage(message).address;
  } catch (error) {
    throw new TypeError(
      `the server's challenge is not a sign-in message: ${(error as Error).message}`,
    );
  }
  if (address !== publicKey) {
    throw new TypeError(`the server's challenge is for ${address}, not for ${publicKey}`);
  }
}

/**
 * A signature as `POST /auth/verify` takes it: base58 (Bitcoin alphabet) of the 64 bytes
 * (docs/protocol.md §2.3 "Verification").
 */
export function encodeSignature(signature: Uint8Array): string {
  return bs58.encode(signature);
}
