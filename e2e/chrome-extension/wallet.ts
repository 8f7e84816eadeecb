/**
 * A Wallet Standard wallet for the connect page under test, backed by a real ed25519 keypair held
 * in Node: the page-side script (injected with `addInitScript`) registers the wallet through the
 * standard `wallet-standard:register-wallet` / `wallet-standard:app-ready` window events, and
 * every signature is made in Node through a binding, so the signature the server checks is real.
 * @module
 */
import * as ed from "@noble/ed25519";
import { sha512 } from "@noble/hashes/sha2.js";
import bs58 from "bs58";
import type { BrowserContext } from "playwright-core";

ed.hashes.sha512 = sha512;

/** How the injected wallet behaves on the next connect page. */
export type WalletMode = "none" | "sign-in" | "sign-message" | "refuse" | "two";

/** The Node side of the test wallet. */
export interface TestWallet {
  readonly publicKey: string;
  mode: WalletMode;
  /** Called with the text about to be signed (UTF-8), before the page-side wallet gets its signature. */
  beforeSign: ((message: string) => void) | undefined;
  /** Signs UTF-8 `message` like the page-side wallet does. */
  sign(message: string): string;
}

/** Page-side script: registers the wallet(s) the Node side's mode asks for. */
function injectedWallet(): void {
  type Binding = (...args: unknown[]) => Promise<unknown>;
  const w = window as unknown as Record<string, Binding>;
  const config = w.__svcTestWalletConfig;
  const sign = w.__svcTestWalletSign;
  if (location.pathname !== "/connect" || !config || !sign) {
    return;
  }
  void (async () => {
    const { mode, publicKey } = (await config()) as { mode: string; publicKey: number[] };
    if (mode === "none") {
      return;
    }
    const keyBytes = Uint8Array.from(publicKey);
    const alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
    let n = 0n;
    for (const b of keyBytes) {
      n = n * 256n + BigInt(b);
    }
    let address = "";
    while (n > 0n) {
      address = alphabet[Number(n % 58n)] + address;
      n /= 58n;
    }
    const account = {
      address,
      publicKey: keyBytes,
      chains: ["solana:devnet", "solana:localnet"],
      features: ["solana:signIn", "solana:signMessage"],
    };
    const signBytes = async (message: Uint8Array) =>
      Uint8Array.from((await sign(Array.from(message))) as number[]);
    /** The sign-in text a wallet builds from signIn input (the SIWS / EIP-4361 layout). */
    const signInText = (input: Record<string, string | undefined>) =>
      [
        `${input.domain} wants you to sign in with your Solana account:`,
        input.address ?? address,
        "",
        input.statement,
        "",
        `URI: ${input.uri}`,
        `Version: ${input.version}`,
        `Chain ID: ${input.chainId}`,
        `Nonce: ${input.nonce}`,
        `Issued At: ${input.issuedAt}`,
        `Expiration Time: ${input.expirationTime}`,
      ].join("\n");
    const makeWallet = (name: string, withSignIn: boolean) => {
      const features: Record<string, unknown> = {
        "standard:connect": {
          version: "1.0.0",
          connect: async () => ({ accounts: [account] }),
        },
        "solana:signMessage": {
          version: "1.0.0",
          signMessage: async (...inputs: { message: Uint8Array }[]) => {
            if (mode === "refuse") {
              throw new Error("User rejected the request.");
            }
            return Promise.all(
              inputs.map(async (i) => ({
                signedMessage: i.message,
                signature: await signBytes(i.message),
              })),
            );
          },
        },
      };
      if (withSignIn) {
        features["solana:signIn"] = {
          version: "1.0.0",
          signIn: async (...inputs: Record<string, string | undefined>[]) =>
            Promise.all(
              inputs.map(async (input) => {
                const signedMessage = new TextEncoder().encode(signInText(input));
                return {
                  account,
                  signedMessage,
                  signature: await signBytes(signedMessage),
                  signatureType: "ed25519",
                };
              }),
            ),
        };
      }
      return {
        version: "1.0.0",
        name,
        icon: "data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciLz4=",
        chains: account.chains,
        features,
        accounts: [],
      };
    };
    const wallets =
      mode === "two"
        ? [makeWallet("Test Wallet A", true), makeWallet("Test Wallet B", false)]
        : [makeWallet("Test Wallet", mode === "sign-in")];
    const register = ({ register }: { register: (...w: unknown[]) => unknown }) =>
      register(...wallets);
    window.addEventListener("wallet-standard:app-ready", (event) =>
      register((event as CustomEvent).detail),
    );
    window.dispatchEvent(new CustomEvent("wallet-standard:register-wallet", { detail: register }));
  })();
}

/**
 * Installs the test wallet into every page of `context` (it acts on `/connect` pages only).
 * @returns the Node side, whose `mode` the test sets before opening a connect page.
 */
export async function installTestWallet(context: BrowserContext): Promise<TestWallet> {
  const secret = ed.utils.randomSecretKey();
  const publicKeyBytes = ed.getPublicKey(secret);
  const wallet: TestWallet = {
    publicKey: bs58.encode(publicKeyBytes),
    mode: "sign-in",
    beforeSign: undefined,
    sign: (message) => bs58.encode(ed.sign(new TextEncoder().encode(message), secret)),
  };
  await context.exposeBinding("__svcTestWalletConfig", () => ({
    mode: wallet.mode,
    publicKey: Array.from(publicKeyBytes),
  }));
  await context.exposeBinding("__svcTestWalletSign", (_source, message: number[]) => {
    const bytes = Uint8Array.from(message);
    wallet.beforeSign?.(new TextDecoder().decode(bytes));
    return Array.from(ed.sign(bytes, secret));
  });
  // Transpilers that keep function names (tsx, esbuild's keepNames) call a `__name` helper inside
  // the serialised function; the page has none, so give it a no-op one.
  await context.addInitScript("globalThis.__name ??= (fn) => fn;");
  await context.addInitScript(injectedWallet);
  return wallet;
}
