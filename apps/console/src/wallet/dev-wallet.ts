/**
 * The development wallet, for a `localnet` deployment only: an ed25519 key generated in this
 * browser or imported from a Solana CLI keypair file, kept in localStorage, offered as a Wallet
 * Standard wallet (`standard:connect`, `solana:signIn`, `solana:signMessage`,
 * `solana:signTransaction`) so that the console can be tried without a wallet extension. Its key
 * is readable by any script of this origin: it is for play money on a local chain, never for a
 * real cluster, and the console never offers it elsewhere.
 * @module
 */
import * as ed from "@noble/ed25519";
import { sha512 } from "@noble/hashes/sha2.js";
import type {
  SolanaSignInInput,
  SolanaSignInOutput,
  SolanaSignMessageInput,
  SolanaSignMessageOutput,
  SolanaSignTransactionInput,
  SolanaSignTransactionOutput,
} from "@solana/wallet-standard-features";
import { buildSignInMessage, type SignInMessageFields } from "@verifiable-memory/siws-message";
import { getWallets } from "@wallet-standard/app";
import type { Wallet, WalletAccount } from "@wallet-standard/base";
import bs58 from "bs58";

ed.hashes.sha512 = sha512;

const STORAGE_KEY = "vm-console.dev-wallet";
const CHAIN = "solana:localnet";
/** A key glyph, as a data: URL (the page's CSP allows data: images). */
const ICON =
  "data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciIHZpZXdCb3g9IjAgMCAzMiAzMiI+PHJlY3Qgd2lkdGg9IjMyIiBoZWlnaHQ9IjMyIiByeD0iNiIgZmlsbD0iI2I0NTMwOSIvPjxjaXJjbGUgY3g9IjExIiBjeT0iMTYiIHI9IjUiIGZpbGw9Im5vbmUiIHN0cm9rZT0iI2ZmZiIgc3Ryb2tlLXdpZHRoPSIzIi8+PHBhdGggZD0iTTE2IDE2aDEwdjVNMjIgMTZ2NCIgc3Ryb2tlPSIjZmZmIiBzdHJva2Utd2lkdGg9IjMiIGZpbGw9Im5vbmUiLz48L3N2Zz4=" as const;

/** The development wallet's name, as wallets list it. */
export const DEV_WALLET_NAME = "Development wallet (localnet only)";

/** A 64-byte Solana secret key: seed ‖ public key. */
type SecretKey = Uint8Array;

/** The stored key, or null. */
export function storedDevKey(): SecretKey | null {
  try {
    const text = localStorage.getItem(STORAGE_KEY);
    return text === null ? null : bs58.decode(text);
  } catch {
    return null;
  }
}

/** Keeps `secret` (64 bytes) as the development wallet's key. */
function storeDevKey(secret: SecretKey): void {
  localStorage.setItem(STORAGE_KEY, bs58.encode(secret));
}

/** A fresh key, stored. */
export function generateDevKey(): SecretKey {
  const seed = ed.utils.randomSecretKey();
  const secret = new Uint8Array(64);
  secret.set(seed, 0);
  secret.set(ed.getPublicKey(seed), 32);
  storeDevKey(secret);
  return secret;
}

/**
 * The key of a Solana CLI keypair file (a JSON array of 64 numbers, seed then public key),
 * stored.
 * @throws Error naming what is wrong with the file.
 */
export function importDevKey(fileText: string): SecretKey {
  let numbers: unknown;
  try {
    numbers = JSON.parse(fileText);
  } catch {
    throw new Error(
      "The file is not JSON: a Solana CLI keypair file is a JSON array of 64 numbers.",
    );
  }
  if (
    !Array.isArray(numbers) ||
    numbers.length !== 64 ||
    !numbers.every((n) => Number.isInteger(n) && n >= 0 && n <= 255)
  ) {
    throw new Error("A Solana CLI keypair file is a JSON array of 64 numbers from 0 to 255.");
  }
  const secret = Uint8Array.from(numbers as number[]);
  const derived = ed.getPublicKey(secret.subarray(0, 32));
  if (!derived.every((byte, i) => byte === secret[32 + i])) {
    throw new Error("The file's last 32 numbers are not the public key of its first 32.");
  }
  storeDevKey(secret);
  return secret;
}

/** Forgets the stored key. */
export function forgetDevKey(): void {
  localStorage.removeItem(STORAGE_KEY);
}

/** The Wallet Standard wallet over `secret`. */
function devWallet(secret: SecretKey): Wallet {
  const seed = secret.slice(0, 32);
  const publicKey = secret.slice(32);
  const features = [
    "solana:signIn",
    "solana:signMessage",
    "solana:signTransaction",
  ] as `${string}:${string}`[];
  const account: WalletAccount = {
    address: bs58.encode(publicKey),
    publicKey,
    chains: [CHAIN],
    features,
  };
  const signMessage = async (
    ...inputs: readonly SolanaSignMessageInput[]
  ): Promise<readonly SolanaSignMessageOutput[]> =>
    inputs.map((input) => ({
      signedMessage: input.message,
      signature: ed.sign(input.message, seed),
    }));
  return {
    version: "1.0.0",
    name: DEV_WALLET_NAME,
    icon: ICON,
    chains: [CHAIN],
    accounts: [account],
    features: {
      "standard:connect": { version: "1.0.0", connect: async () => ({ accounts: [account] }) },
      "standard:events": { version: "1.0.0", on: () => () => undefined },
      "solana:signIn": {
        version: "1.0.0",
        async signIn(
          ...inputs: readonly SolanaSignInInput[]
        ): Promise<readonly SolanaSignInOutput[]> {
          return inputs.map((input) => {
            const text = buildSignInMessage({
              ...input,
              address: account.address,
            } as SignInMessageFields);
            const signedMessage = new TextEncoder().encode(text);
            return {
              account,
              signedMessage,
              signature: ed.sign(signedMessage, seed),
              signatureType: "ed25519" as const,
            };
          });
        },
      },
      "solana:signMessage": { version: "1.0.0", signMessage },
      "solana:signTransaction": {
        version: "1.0.0",
        supportedTransactionVersions: ["legacy"],
        async signTransaction(
          ...inputs: readonly SolanaSignTransactionInput[]
        ): Promise<readonly SolanaSignTransactionOutput[]> {
          const { signLegacyTransaction } = await import("./legacy-transaction.js");
          return inputs.map((input) => ({
            signedTransaction: signLegacyTransaction(input.transaction, seed, publicKey),
          }));
        },
      },
    },
  };
}

let unregister: (() => void) | null = null;

/**
 * Registers the development wallet over `secret` with the page's Wallet Standard registry (in
 * place of one registered before), so the sign-in page lists it with the other wallets.
 * @returns its address, base58.
 */
export function registerDevWallet(secret: SecretKey): string {
  unregister?.();
  const wallet = devWallet(secret);
  unregister = getWallets().register(wallet);
  return wallet.accounts[0]?.address as string;
}

/** Removes the development wallet from the registry. */
export function unregisterDevWallet(): void {
  unregister?.();
  unregister = null;
}
