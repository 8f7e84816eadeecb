/**
 * Sign-in: every Wallet Standard wallet of the page that can sign in (api ../wallet/sign-in.ts),
 * the development wallet on a localnet deployment only, and an API key for a console opened on
 * another host than the service's SIWS domain.
 * @module
 */
import { createClient, unwrap } from "@verifiable-memory/client";
import type { Wallet } from "@wallet-standard/base";
import { type FormEvent, type ReactNode, useState } from "react";
import { useConsole } from "../api/context.js";
import { ErrorNotice } from "../ui/error-notice.js";
import { DevWalletPanel } from "../wallet/dev-wallet-panel.js";
import { DomainMismatchError, signInWithWallet } from "../wallet/sign-in.js";
import { canSignIn, useWallets } from "../wallet/standard.js";

/** The sign-in page. */
export function SignInPage(): ReactNode {
  const state = useConsole();
  const { client, info, cluster, endedBecause } = state;
  const wallets = useWallets().filter(canSignIn);
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const domainMatches = info.siws.domain === location.host;

  const start = async (wallet: Wallet) => {
    setBusy(wallet.name);
    setError(null);
    try {
      state.signIn(await signInWithWallet(wallet, client, location.host));
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(null);
    }
  };

  return (
    <section aria-labelledby="sign-in-title" className="narrow">
      <h1 id="sign-in-title">Sign in to {info.service}</h1>
      {endedBecause !== null && (
        <p role="status" className="notice">
          {endedBecause}
        </p>
      )}
      {!domainMatches && (
        <p className="notice notice-warning">
          This service signs people in for <strong>{info.siws.domain}</strong>, and this console
          runs at <strong>{location.host}</strong>. Wallets must only sign in to the site they are
          on, so sign in here with an API key, or open the console at {info.siws.domain}.
        </p>
      )}
      <h2>With a wallet</h2>
      {wallets.length === 0 ? (
        <p>
          No Solana wallet found in this browser. Install one that supports the Wallet Standard
          {cluster === "localnet" ? ", or use the development wallet below" : ""}.
        </p>
      ) : (
        <ul className="wallets">
          {wallets.map((wallet) => (
            <li key={wallet.name}>
              <button
                type="button"
                onClick={() => void start(wallet)}
                disabled={busy !== null || !domainMatches}
                aria-busy={busy === wallet.name}
              >
                <img src={wallet.icon} alt="" width="24" height="24" />
                Sign in with {wallet.name}
              </button>
            </li>
          ))}
        </ul>
      )}
      {error !== null &&
        (error instanceof DomainMismatchError ? (
          <p role="alert" className="notice notice-error">
            {error.message}
          </p>
        ) : (
          <ErrorNotice error={error} />
        ))}
      {cluster === "localnet" && <DevWalletPanel />}
      <ApiKeySignIn />
    </section>
  );
}

/** Sign-in with an API key (`svc_…`): checked with one `GET /log` before it is kept. */
function ApiKeySignIn(): ReactNode {
  const state = useConsole();
  const [key, setKey] = useState("");
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const probe = createClient({
        baseUrl: state.endpoints.apiUrl,
        apiKey: key.trim(),
        retry: false,
      });
      await unwrap(probe.raw.GET("/log"));
      state.signIn({
        kind: "api_key",
        token: key.trim(),
        publicKey: null,
        expiresAt: null,
        apiUrl: state.endpoints.apiUrl,
      });
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };
  return (
    <details>
      <summary>With an API key</summary>
      <form onSubmit={(event) => void submit(event)}>
        <label>
          API key
          <input
            type="password"
            autoComplete="off"
            placeholder="svc_…"
            value={key}
            onChange={(event) => setKey(event.target.value)}
            pattern="svc_[0-9a-f]{48}"
            required
          />
          <small>
            It needs the <code>memories:read</code> scope. Keys cannot manage keys; staking needs a
            wallet too. It is kept for this tab only.
          </small>
        </label>
        <button type="submit" disabled={busy} aria-busy={busy}>
          Sign in with the key
        </button>
      </form>
      {error !== null && <ErrorNotice error={error} />}
    </details>
  );
}
