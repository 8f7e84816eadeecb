/**
 * Staking (loaded on demand): the wallet's vault and lots read from the chain by the service
 * (`GET /staking`), and stake / unstake: the service builds the unsigned transaction
 * (`POST /staking/stake`, `/staking/unstake`), the wallet signs it with
 * `solana:signTransaction`, and the service relays it (`POST /staking/submit`), which accepts
 * only this program's instructions on the caller's own vault (docs/protocol.md §11.5).
 * @module
 */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { unwrap } from "@verifiable-memory/client";
import type { Wallet } from "@wallet-standard/base";
import { type FormEvent, type ReactNode, useState } from "react";
import { useSession } from "../../api/context.js";
import { ErrorNotice } from "../../ui/error-notice.js";
import { lamportsOf, sol, when } from "../../ui/format.js";
import { signTransactionFeature, useWallets } from "../../wallet/standard.js";
import { signWithWallet } from "./sign.js";

/** What the stake form asks for. */
type Action = { readonly kind: "stake"; readonly lamports: string } | { readonly kind: "unstake" };

/** The page. */
export default function StakingPage(): ReactNode {
  const { client, session, cluster } = useSession();
  const queries = useQueryClient();
  const wallets = useWallets().filter((w) => signTransactionFeature(w) !== undefined);
  const [walletName, setWalletName] = useState<string | null>(null);
  const [amount, setAmount] = useState("1");
  const [done, setDone] = useState<string | null>(null);
  const position = useQuery({
    queryKey: ["staking", session.token],
    queryFn: () => unwrap(client.raw.GET("/staking")),
  });
  const wallet: Wallet | undefined = wallets.find((w) => w.name === walletName) ?? wallets[0];

  const run = useMutation({
    mutationFn: async (action: Action) => {
      if (wallet === undefined) {
        throw new Error("No wallet here can sign transactions.");
      }
      if (session.publicKey === null) {
        throw new Error("Sign in with your wallet to stake: an API key does not name one.");
      }
      const unsigned =
        action.kind === "stake"
          ? await unwrap(
              client.raw.POST("/staking/stake", { body: { amountLamports: action.lamports } }),
            )
          : await unwrap(client.raw.POST("/staking/unstake", { body: {} }));
      const signed = await signWithWallet(wallet, session.publicKey, unsigned.transaction, cluster);
      return unwrap(client.raw.POST("/staking/submit", { body: { transaction: signed } }));
    },
    onSuccess: async (result) => {
      setDone(`Confirmed in slot ${result.slot}: transaction ${result.signature}.`);
      await queries.invalidateQueries({ queryKey: ["staking"] });
    },
  });
  const stake = (event: FormEvent) => {
    event.preventDefault();
    const lamports = lamportsOf(amount);
    if (lamports === null) {
      run.reset();
      setDone("Enter an amount of SOL above zero, e.g. 1.5.");
      return;
    }
    setDone(null);
    run.mutate({ kind: "stake", lamports });
  };

  const p = position.data;
  return (
    <section aria-labelledby="staking-title">
      <h1 id="staking-title">Staking</h1>
      {position.error !== null && (
        <ErrorNotice error={position.error} onRetry={() => void position.refetch()} />
      )}
      {position.isPending && <p aria-busy="true">Reading the vault from the chain…</p>}
      {p !== undefined && (
        <>
          <dl className="facts">
            <dt>Vault</dt>
            <dd>
              <code>{p.vault}</code>
            </dd>
            <dt>Staked</dt>
            <dd data-testid="staked">{sol(p.balanceLamports)}</dd>
            <dt>Withdrawable now</dt>
            <dd>{sol(p.withdrawableLamports)}</dd>
            <dt>Lock period</dt>
            <dd>{Math.round(p.lockPeriodSeconds / 86_400)} days</dd>
          </dl>
          {p.lots.length > 0 && (
            <table>
              <caption>Lots</caption>
              <thead>
                <tr>
                  <th scope="col">Amount</th>
                  <th scope="col">Matures</th>
                  <th scope="col">State</th>
                </tr>
              </thead>
              <tbody>
                {p.lots.map((lot, i) => (
                  <tr key={i}>
                    <td>{sol(lot.amountLamports)}</td>
                    <td>{when(lot.maturesAt)}</td>
                    <td>{lot.matured ? "matured" : "locked"}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </>
      )}
      {wallets.length === 0 ? (
        <p className="notice">
          No wallet in this browser can sign transactions (solana:signTransaction), so staking is
          read-only here.
        </p>
      ) : (
        <>
          {wallets.length > 1 && (
            <label>
              Sign with
              <select value={wallet?.name ?? ""} onChange={(e) => setWalletName(e.target.value)}>
                {wallets.map((w) => (
                  <option key={w.name}>{w.name}</option>
                ))}
              </select>
            </label>
          )}
          <form onSubmit={stake} className="row" aria-label="Stake">
            <label>
              Amount (SOL)
              <input
                inputMode="decimal"
                value={amount}
                onChange={(e) => setAmount(e.target.value)}
                required
              />
            </label>
            <button type="submit" aria-busy={run.isPending && run.variables?.kind === "stake"}>
              Stake
            </button>
            <button
              type="button"
              className="secondary"
              disabled={p === undefined || p.withdrawableLamports === "0"}
              aria-busy={run.isPending && run.variables?.kind === "unstake"}
              onClick={() => {
                setDone(null);
                run.mutate({ kind: "unstake" });
              }}
            >
              Unstake matured lots
            </button>
          </form>
        </>
      )}
      {run.error !== null && <ErrorNotice error={run.error} />}
      {done !== null && <p role="status">{done}</p>}
    </section>
  );
}
