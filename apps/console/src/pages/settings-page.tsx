/**
 * Settings: which API and which chain RPC this console uses. Served by core-api they are fixed
 * (its Content-Security-Policy allows no other); a copy opened from anywhere else can point at
 * any API and RPC, remembered in this browser.
 * @module
 */
import { type FormEvent, type ReactNode, useState } from "react";
import { useConsole } from "../api/context.js";
import { normaliseUrl, PUBLIC_RPC, rememberEndpoints } from "../config/runtime.js";

/** The page. */
export function SettingsPage(): ReactNode {
  const { endpoints, chainRpcUrl, cluster, info } = useConsole();
  return (
    <section aria-labelledby="settings-title" className="narrow">
      <h1 id="settings-title">Settings</h1>
      <dl className="facts">
        <dt>Service</dt>
        <dd>{info.service}</dd>
        <dt>API</dt>
        <dd>
          <code>{endpoints.apiUrl}</code>
        </dd>
        <dt>Cluster</dt>
        <dd>{cluster}</dd>
        <dt>Chain RPC</dt>
        <dd>
          <code>{chainRpcUrl}</code>
        </dd>
        <dt>Commitment program</dt>
        <dd>
          <code>{info.programId}</code>
        </dd>
        <dt>Anchoring key</dt>
        <dd>
          {info.anchorAuthority === null ? "not published" : <code>{info.anchorAuthority}</code>}
        </dd>
        <dt>Sign-in domain</dt>
        <dd>
          <code>{info.siws.domain}</code>
        </dd>
      </dl>
      {endpoints.served ? (
        <p>
          This console is served by the service itself, so it talks only to this API and this chain
          RPC. To check the service from a page it does not serve, open a copy of the console from
          elsewhere (docs/console.md).
        </p>
      ) : (
        <EndpointsForm
          apiUrl={endpoints.apiUrl}
          rpcUrl={endpoints.chainRpcUrl ?? ""}
          placeholder={PUBLIC_RPC[cluster]}
        />
      )}
    </section>
  );
}

/** The form choosing the API and the chain RPC (blank RPC: the cluster's public endpoint). */
export function EndpointsForm(props: {
  readonly apiUrl: string;
  readonly rpcUrl: string;
  readonly placeholder: string;
}): ReactNode {
  const [apiUrl, setApiUrl] = useState(props.apiUrl);
  const [rpcUrl, setRpcUrl] = useState(props.rpcUrl);
  const [problem, setProblem] = useState<string | null>(null);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    try {
      normaliseUrl(apiUrl);
      if (rpcUrl.trim() !== "") {
        normaliseUrl(rpcUrl.trim());
      }
    } catch (error) {
      setProblem((error as Error).message);
      return;
    }
    rememberEndpoints(apiUrl, rpcUrl.trim() === "" ? null : rpcUrl.trim());
    const url = new URL(location.href);
    url.search = "";
    url.hash = "";
    location.assign(url.href);
  };
  return (
    <form onSubmit={submit} aria-label="Where this console points">
      <label>
        API URL
        <input
          type="url"
          value={apiUrl}
          onChange={(e) => setApiUrl(e.target.value)}
          placeholder="https://memory.example.com"
          required
        />
      </label>
      <label>
        Chain RPC URL (blank: the cluster's public endpoint)
        <input
          type="url"
          value={rpcUrl}
          onChange={(e) => setRpcUrl(e.target.value)}
          placeholder={props.placeholder}
        />
      </label>
      {problem !== null && (
        <p role="alert" className="notice notice-error">
          {problem}
        </p>
      )}
      <button type="submit">Use these</button>
    </form>
  );
}
