/**
 * A Wallet Standard wallet injected into the page by the test (as a browser extension injects
 * one): "Test Wallet", registered through the standard's `wallet-standard:register-wallet` /
 * `wallet-standard:app-ready` events before the console's scripts run, with `standard:connect`,
 * `solana:signIn`, `solana:signMessage` and `solana:signTransaction`. The key stays in Node: the
 * page calls functions the test exposes, which sign with @noble/ed25519 (and build the SIWS text
 * from the input's fields, as a wallet does for `solana:signIn`).
 * @module
 */
import * as ed from "@noble/ed25519";
import { sha512 } from "@noble/hashes/sha2.js";
import { buildSignInMessage, type SignInMessageFields } from "@verifiable-memory/siws-message";
import type { SolanaKeypair } from "@verifiable-memory/testkit";
import type { Page } from "playwright-core";
import { signLegacyTransaction } from "../src/wallet/legacy-transaction.js";

ed.hashes.sha512 = sha512;

/**
 * The wallet as it runs in the page (plain JavaScript, so no transpiler helper leaks into it);
 * `ARGS` is `{ address, publicKey }`. It calls the functions {@link injectTestWallet} exposes.
 */
const WALLET_SCRIPT = `(() => {
  const args = ARGS;
  const account = {
    address: args.address,
    publicKey: new Uint8Array(args.publicKey),
    chains: ["solana:localnet", "solana:devnet"],
    features: ["solana:signIn", "solana:signMessage", "solana:signTransaction"],
  };
  const wallet = {
    version: "1.0.0",
    name: "Test Wallet",
    icon: "data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciIHZpZXdCb3g9IjAgMCAxIDEiLz4=",
    chains: account.chains,
    accounts: [account],
    features: {
      "standard:connect": { version: "1.0.0", connect: async () => ({ accounts: [account] }) },
      "standard:events": { version: "1.0.0", on: () => () => undefined },
      "solana:signIn": {
        version: "1.0.0",
        signIn: (...inputs) => Promise.all(inputs.map(async (input) => {
          const signed = await window.testWalletSignIn(input);
          return {
            account,
            signedMessage: new Uint8Array(signed.signedMessage),
            signature: new Uint8Array(signed.signature),
          };
        })),
      },
      "solana:signMessage": {
        version: "1.0.0",
        signMessage: (...inputs) => Promise.all(inputs.map(async (input) => ({
          signedMessage: input.message,
          signature: new Uint8Array(await window.testWalletSign([...input.message])),
        }))),
      },
      "solana:signTransaction": {
        version: "1.0.0",
        supportedTransactionVersions: ["legacy"],
        signTransaction: (...inputs) => Promise.all(inputs.map(async (input) => ({
          signedTransaction: new Uint8Array(
            await window.testWalletSignTransaction([...input.transaction]),
          ),
        }))),
      },
    },
  };
  const register = (api) => api.register(wallet);
  window.addEventListener("wallet-standard:app-ready", (event) => register(event.detail));
  window.dispatchEvent(new CustomEvent("wallet-standard:register-wallet", { detail: register }));
})();`;

/**
 * Injects the Test Wallet over `key` into `page` (before any navigation).
 * @returns the SIWS messages it signed (texts), for the test to inspect.
 */
export async function injectTestWallet(page: Page, key: SolanaKeypair): Promise<string[]> {
  const seed = key.secretKey.slice(0, 32);
  const publicKey = key.secretKey.slice(32);
  const signed: string[] = [];
  await page.exposeFunction("testWalletSignIn", (input: SignInMessageFields) => {
    const text = buildSignInMessage({ ...input, address: key.address });
    signed.push(text);
    const message = new TextEncoder().encode(text);
    return { signedMessage: [...message], signature: [...ed.sign(message, seed)] };
  });
  await page.exposeFunction("testWalletSign", (message: number[]) => [
    ...ed.sign(Uint8Array.from(message), seed),
  ]);
  await page.exposeFunction("testWalletSignTransaction", (transaction: number[]) => [
    ...signLegacyTransaction(Uint8Array.from(transaction), seed, publicKey),
  ]);
  const args = JSON.stringify({ address: key.address, publicKey: [...publicKey] });
  await page.addInitScript({ content: WALLET_SCRIPT.replace("ARGS", args) });
  return signed;
}
