/**
 * Signing a staking transaction with a Wallet Standard wallet (`solana:signTransaction`): the
 * service's unsigned legacy transaction (base64) goes to the wallet's account that is the
 * signed-in wallet, and comes back signed, base64 again for `POST /staking/submit`.
 * @module
 */
import type { Wallet } from "@wallet-standard/base";
import type { Cluster } from "../../config/runtime.js";
import { accountOf, signTransactionFeature } from "../../wallet/standard.js";

/** Standard base64 of `bytes`. */
function base64(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) {
    binary += String.fromCharCode(byte);
  }
  return btoa(binary);
}

/**
 * Has `wallet` sign `transaction` (base64) as `address`.
 * @returns the signed transaction, base64.
 * @throws Error when the wallet cannot sign transactions, has no account `address`, or returns
 *   nothing.
 */
export async function signWithWallet(
  wallet: Wallet,
  address: string,
  transaction: string,
  cluster: Cluster,
): Promise<string> {
  const feature = signTransactionFeature(wallet);
  if (feature === undefined) {
    throw new Error(`${wallet.name} cannot sign transactions.`);
  }
  const account = await accountOf(wallet, address);
  const bytes = Uint8Array.from(atob(transaction), (c) => c.charCodeAt(0));
  const [output] = await feature.signTransaction({
    account,
    transaction: bytes,
    chain: `solana:${cluster}`,
  });
  if (output === undefined) {
    throw new Error(`${wallet.name} returned no signed transaction.`);
  }
  return base64(output.signedTransaction);
}
