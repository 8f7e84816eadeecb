/**
 * Browser wallets through the Wallet Standard: the wallets registered in this page (extensions
 * such as Phantom or Solflare, and the development wallet on localnet), and what each can do for
 * the console: sign in (`solana:signIn`, else `solana:signMessage`) and sign transactions
 * (`solana:signTransaction`, for staking).
 * @module
 */
import type {
  SolanaSignInFeature,
  SolanaSignMessageFeature,
  SolanaSignTransactionFeature,
} from "@solana/wallet-standard-features";
import { getWallets } from "@wallet-standard/app";
import type { Wallet, WalletAccount } from "@wallet-standard/base";
import type { StandardConnectFeature } from "@wallet-standard/features";
import { useEffect, useState } from "react";

/** A wallet's feature object by name, when it has one. */
export function featureOf<F>(wallet: Wallet, name: string): F | undefined {
  return (wallet.features as Record<string, F | undefined>)[name];
}

/** `solana:signIn` of `wallet`, if any. */
export const signInFeature = (wallet: Wallet) =>
  featureOf<SolanaSignInFeature["solana:signIn"]>(wallet, "solana:signIn");
/** `solana:signMessage` of `wallet`, if any. */
export const signMessageFeature = (wallet: Wallet) =>
  featureOf<SolanaSignMessageFeature["solana:signMessage"]>(wallet, "solana:signMessage");
/** `solana:signTransaction` of `wallet`, if any. */
export const signTransactionFeature = (wallet: Wallet) =>
  featureOf<SolanaSignTransactionFeature["solana:signTransaction"]>(
    wallet,
    "solana:signTransaction",
  );

/** Whether the console can sign in with `wallet`. */
export function canSignIn(wallet: Wallet): boolean {
  return signInFeature(wallet) !== undefined || signMessageFeature(wallet) !== undefined;
}

/**
 * The wallet's account for `address` (default its first), connecting with `standard:connect`
 * when it shows none yet.
 * @throws Error when it has no account and cannot connect, or lacks `address`.
 */
export async function accountOf(wallet: Wallet, address?: string): Promise<WalletAccount> {
  let accounts = wallet.accounts;
  if (accounts.length === 0) {
    const connect = featureOf<StandardConnectFeature["standard:connect"]>(
      wallet,
      "standard:connect",
    );
    if (connect === undefined) {
      throw new Error(`${wallet.name} shows no account and cannot connect`);
    }
    accounts = (await connect.connect()).accounts;
  }
  const account = address === undefined ? accounts[0] : accounts.find((a) => a.address === address);
  if (account === undefined) {
    throw new Error(
      address === undefined
        ? `${wallet.name} gave no account`
        : `${wallet.name} has no account ${address}`,
    );
  }
  return account;
}

/** The wallets registered in this page, kept current as wallets register. */
export function useWallets(): readonly Wallet[] {
  const [wallets, setWallets] = useState<readonly Wallet[]>(() => getWallets().get());
  useEffect(() => {
    const registry = getWallets();
    const update = () => setWallets(registry.get());
    update();
    const offRegister = registry.on("register", update);
    const offUnregister = registry.on("unregister", update);
    return () => {
      offRegister();
      offUnregister();
    };
  }, []);
  return wallets;
}
