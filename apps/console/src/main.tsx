/**
 * Start-up: find the API (config/runtime.ts), read its `GET /info`, then render the console.
 * Without an API, or when it cannot be reached, the page says so and asks for one.
 * @module
 */
import "@picocss/pico/css/pico.min.css";
import "./styles/app.css";
import type { ServiceInfo } from "@verifiable-memory/client";
import { type ReactNode, StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { ConsoleProvider } from "./api/context.js";
import { App } from "./app.js";
import { type Endpoints, PUBLIC_RPC, resolveEndpoints } from "./config/runtime.js";
import { EndpointsForm } from "./pages/settings-page.js";

const root = createRoot(document.getElementById("root") as HTMLElement);

/** A page shown before the console can start: `children` inside the plain frame. */
function Frame(props: { readonly children: ReactNode }): ReactNode {
  return (
    <main id="main" className="container narrow">
      <h1>Verifiable memory console</h1>
      {props.children}
    </main>
  );
}

/** Reads `GET /info` of `endpoints.apiUrl`. @throws Error saying why it could not. */
async function serviceInfo(endpoints: Endpoints): Promise<ServiceInfo> {
  let res: Response;
  try {
    res = await fetch(`${endpoints.apiUrl}/info`, { signal: AbortSignal.timeout(15_000) });
  } catch {
    throw new Error(
      `The service at ${endpoints.apiUrl} cannot be reached. Check that it is running and that this is its address.`,
    );
  }
  if (!res.ok) {
    throw new Error(
      `${endpoints.apiUrl}/info answered HTTP ${res.status}: is this a memory service?`,
    );
  }
  return (await res.json()) as ServiceInfo;
}

/** Starts the console (again, from "Try again"). */
async function start(): Promise<void> {
  root.render(
    <Frame>
      <p aria-busy="true">Connecting…</p>
    </Frame>,
  );
  let endpoints: Endpoints | null;
  try {
    endpoints = await resolveEndpoints(location.search);
  } catch (error) {
    endpoints = null;
    console.warn((error as Error).message);
  }
  if (endpoints === null) {
    root.render(
      <Frame>
        <p>Which memory service should this console open? Give its API URL.</p>
        <EndpointsForm apiUrl="" rpcUrl="" placeholder={PUBLIC_RPC.devnet} />
      </Frame>,
    );
    return;
  }
  try {
    const info = await serviceInfo(endpoints);
    root.render(
      <StrictMode>
        <ConsoleProvider endpoints={endpoints} info={info}>
          <App />
        </ConsoleProvider>
      </StrictMode>,
    );
  } catch (error) {
    const served = endpoints.served;
    root.render(
      <Frame>
        <p role="alert" className="notice notice-error">
          {(error as Error).message}
        </p>
        <button type="button" onClick={() => void start()}>
          Try again
        </button>
        {!served && (
          <EndpointsForm
            apiUrl={endpoints.apiUrl}
            rpcUrl={endpoints.chainRpcUrl ?? ""}
            placeholder={PUBLIC_RPC.devnet}
          />
        )}
      </Frame>,
    );
  }
}

void start();
