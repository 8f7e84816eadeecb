/**
 * The development wallet's panel on the sign-in page of a localnet deployment: create a key in
 * this browser or import a Solana CLI keypair file, see its address and balance, and airdrop
 * play SOL from the local chain's faucet (JSON-RPC `requestAirdrop`).
 * @module
 */
import { type ChangeEvent, type ReactNode, useEffect, useState } from "react";
import { useConsole } from "../api/context.js";
import { sol } from "../ui/format.js";
import {
  forgetDevKey,
  generateDevKey,
  importDevKey,
  registerDevWallet,
  storedDevKey,
  unregisterDevWallet,
} from "./dev-wallet.js";
import { rpcCall } from "./rpc.js";

/** The panel. */
export function DevWalletPanel(): ReactNode {
  const { chainRpcUrl } = useConsole();
  const [address, setAddress] = useState<string | null>(() => {
    const key = storedDevKey();
    return key === null ? null : registerDevWallet(key);
  });
  const [balance, setBalance] = useState<string | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const refreshBalance = async (of: string) => {
    try {
      const result = await rpcCall<{ value: number }>(chainRpcUrl, "getBalance", [of]);
      setBalance(String(result.value));
    } catch (error) {
      setBalance(null);
      setMessage(`The chain at ${chainRpcUrl} cannot be read: ${(error as Error).message}`);
    }
  };
  useEffect(() => {
    if (address !== null) {
      void refreshBalance(address);
    }
  }, [address]);

  const use = (secret: Uint8Array) => {
    setAddress(registerDevWallet(secret));
    setMessage(null);
  };
  const onFile = async (event: ChangeEvent<HTMLInputElement>) => {
    const file = event.target.files?.[0];
    if (file === undefined) {
      return;
    }
    try {
      use(importDevKey(await file.text()));
    } catch (error) {
      setMessage((error as Error).message);
    }
  };
  const airdrop = async () => {
    if (address === null) {
      return;
    }
    setBusy(true);
    setMessage(null);
    try {
      await rpcCall<string>(chainRpcUrl, "requestAirdrop", [address, 2_000_000_000]);
      setMessage("2 SOL airdropped.");
      await refreshBalance(address);
    } catch (error) {
      setMessage(`The airdrop failed: ${(error as Error).message}`);
    } finally {
      setBusy(false);
    }
  };

  return (
    <article className="dev-wallet" aria-labelledby="dev-wallet-title">
      <header>
        <h2 id="dev-wallet-title">Development wallet</h2>
        <p className="notice notice-warning">
          For this local chain only: its key is kept in this browser, readable by any script of this
          page. Never import a key that holds real funds.
        </p>
      </header>
      {address === null ? (
        <div className="row">
          <button type="button" onClick={() => use(generateDevKey())}>
            Create a development wallet
          </button>
          <label className="file-button">
            Import a Solana CLI keypair file
            <input type="file" accept=".json,application/json" onChange={(e) => void onFile(e)} />
          </label>
        </div>
      ) : (
        <>
          <p>
            Address <code>{address}</code>
            <br />
            Balance: {balance === null ? "unknown" : sol(balance)}
          </p>
          <div className="row">
            <button type="button" onClick={() => void airdrop()} disabled={busy} aria-busy={busy}>
              Airdrop 2 SOL
            </button>
            <button
              type="button"
              className="secondary"
              onClick={() => {
                forgetDevKey();
                unregisterDevWallet();
                setAddress(null);
                setBalance(null);
              }}
            >
              Forget this wallet
            </button>
          </div>
          <p>
            <small>It is listed with the wallets above: sign in with it there.</small>
          </p>
        </>
      )}
      {message !== null && <p role="status">{message}</p>}
    </article>
  );
}
