/**
 * Where the console talks to: the core API and the chain's JSON-RPC. Served by core-api (at
 * `/console`), the build finds `config.json` beside it, written by core-api: the API next to it
 * and `CONSOLE_CHAIN_RPC_URL`; the page's Content-Security-Policy pins both. Opened anywhere else
 * (a static host, a local folder), the page takes the API from `?api=` or from what the person
 * typed before (kept in localStorage), and the chain RPC from `?rpc=`, a typed one, or the
 * cluster's public endpoint (the API's `GET /info` names the cluster).
 * @module
 */

/** The Solana clusters a deployment can anchor on (docs/protocol.md §10 SIWS_CHAIN_ID). */
export type Cluster = "mainnet" | "devnet" | "testnet" | "localnet";

/** Public JSON-RPC endpoints of each cluster (localnet: the local chain's default port). */
export const PUBLIC_RPC: Readonly<Record<Cluster, string>> = {
  mainnet: "https://api.mainnet-beta.solana.com",
  devnet: "https://api.devnet.solana.com",
  testnet: "https://api.testnet.solana.com",
  localnet: "http://127.0.0.1:8899",
};

/** What core-api writes at `<console>/config.json`. */
interface ServedConfig {
  /** The API's base URL, relative to config.json's own URL (e.g. `../`). */
  readonly apiUrl: string;
  /** The chain JSON-RPC the page reads accounts from (CONSOLE_CHAIN_RPC_URL). */
  readonly chainRpcUrl: string;
}

/** Where the console is pointed. */
export interface Endpoints {
  /** The core API's base URL, without a trailing slash. */
  readonly apiUrl: string;
  /** The chain RPC chosen here, or null to use the cluster's public endpoint. */
  readonly chainRpcUrl: string | null;
  /**
   * True when served by core-api: both URLs come from its config.json and the page's
   * Content-Security-Policy allows no other.
   */
  readonly served: boolean;
}

const API_KEY = "vm-console.api";
const RPC_KEY = "vm-console.rpc";

/** `url` without trailing slashes; throws TypeError unless it is an absolute http(s) URL. */
export function normaliseUrl(url: string): string {
  const parsed = new URL(url);
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw new TypeError(`${url} is not an http: or https: URL`);
  }
  return parsed.href.replace(/\/+$/, "");
}

/** The config.json core-api serves beside the build, or null when there is none. */
async function servedConfig(): Promise<ServedConfig | null> {
  const location = new URL(/* @vite-ignore */ "../config.json", import.meta.url);
  try {
    const res = await fetch(location, { cache: "no-store" });
    if (!res.ok || !(res.headers.get("content-type") ?? "").includes("json")) {
      return null;
    }
    const body = (await res.json()) as Partial<ServedConfig>;
    if (typeof body.apiUrl !== "string" || typeof body.chainRpcUrl !== "string") {
      return null;
    }
    return {
      apiUrl: normaliseUrl(new URL(body.apiUrl, location).href),
      chainRpcUrl: normaliseUrl(body.chainRpcUrl),
    };
  } catch {
    return null;
  }
}

/** Reads localStorage, tolerating a browser that refuses it (private modes). */
function stored(key: string): string | null {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}

/** Writes (or, with null, removes) a localStorage entry, tolerating a refusal. */
function store(key: string, value: string | null): void {
  try {
    if (value === null) {
      localStorage.removeItem(key);
    } else {
      localStorage.setItem(key, value);
    }
  } catch {
    // Without storage the choice lasts until the page is reloaded.
  }
}

/**
 * The endpoints this page uses (see the module documentation); null when nothing names an API
 * yet (the page then asks for one). `?api=` and `?rpc=` are remembered for the next visit.
 */
export async function resolveEndpoints(search: string): Promise<Endpoints | null> {
  const served = await servedConfig();
  if (served) {
    return { apiUrl: served.apiUrl, chainRpcUrl: served.chainRpcUrl, served: true };
  }
  const query = new URLSearchParams(search);
  const fromQuery = (name: string, key: string): string | null => {
    const value = query.get(name);
    if (value === null || value === "") {
      return stored(key);
    }
    const url = normaliseUrl(value);
    store(key, url);
    return url;
  };
  const apiUrl = fromQuery("api", API_KEY);
  const chainRpcUrl = fromQuery("rpc", RPC_KEY);
  return apiUrl === null ? null : { apiUrl, chainRpcUrl, served: false };
}

/** Remembers the endpoints typed in the settings page (null: forget). */
export function rememberEndpoints(apiUrl: string | null, chainRpcUrl: string | null): void {
  store(API_KEY, apiUrl === null ? null : normaliseUrl(apiUrl));
  store(RPC_KEY, chainRpcUrl === null ? null : normaliseUrl(chainRpcUrl));
}

/** The chain RPC to read: the chosen one, else the cluster's public endpoint. */
export function chainRpcOf(endpoints: Endpoints, cluster: Cluster): string {
  return endpoints.chainRpcUrl ?? PUBLIC_RPC[cluster];
}
