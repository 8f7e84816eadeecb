/**
 * The console's shared state, one React context: where it points (API, chain RPC, the service's
 * `GET /info`), the SDK client, and the tab's credential, with sign-in, sign-out and the expiry
 * timer that signs out when a session ends.
 * @module
 */
import { createClient, type ServiceInfo, type SvcClient } from "@verifiable-memory/client";
import {
  createContext,
  type ReactNode,
  useCallback,
  useContext,
  useEffect,
  useMemo,
  useState,
} from "react";
import { type Cluster, chainRpcOf, type Endpoints } from "../config/runtime.js";
import {
  clearSession,
  loadSession,
  msUntilExpiry,
  type StoredSession,
  saveSession,
} from "./session.js";

/** Everything the pages share. */
export interface ConsoleState {
  readonly endpoints: Endpoints;
  /** The service's `GET /info`. */
  readonly info: ServiceInfo;
  readonly cluster: Cluster;
  /** The chain JSON-RPC the page reads accounts from (never the API). */
  readonly chainRpcUrl: string;
  /** The SDK client, with the tab's credential. */
  readonly client: SvcClient;
  /** The tab's credential, or null when signed out. */
  readonly session: StoredSession | null;
  /** Why the last session ended, when it ended by itself (shown on the sign-in page). */
  readonly endedBecause: string | null;
  /** Keeps `session` and authenticates the following calls with it. */
  signIn(session: StoredSession): void;
  /** Drops the credential; `because` is shown on the sign-in page. */
  signOut(because?: string): void;
}

const Context = createContext<ConsoleState | null>(null);

/** The console's state. @throws Error outside {@link ConsoleProvider}. */
export function useConsole(): ConsoleState {
  const state = useContext(Context);
  if (state === null) {
    throw new Error("useConsole outside ConsoleProvider");
  }
  return state;
}

/** The signed-in console's state: as {@link useConsole}, with a session. */
export function useSession(): ConsoleState & { readonly session: StoredSession } {
  const state = useConsole();
  if (state.session === null) {
    throw new Error("useSession while signed out");
  }
  return state as ConsoleState & { readonly session: StoredSession };
}

/** Provides {@link ConsoleState} for `endpoints` and the service's `info`. */
export function ConsoleProvider(props: {
  readonly endpoints: Endpoints;
  readonly info: ServiceInfo;
  readonly children: ReactNode;
}): ReactNode {
  const { endpoints, info } = props;
  const client = useMemo(
    () => createClient({ baseUrl: endpoints.apiUrl, retry: false }),
    [endpoints.apiUrl],
  );
  const [session, setSession] = useState<StoredSession | null>(() => {
    const loaded = loadSession(endpoints.apiUrl);
    client.setToken(loaded?.token ?? null);
    return loaded;
  });
  const [endedBecause, setEndedBecause] = useState<string | null>(null);

  const signIn = useCallback(
    (next: StoredSession) => {
      saveSession(next);
      client.setToken(next.token);
      setEndedBecause(null);
      setSession(next);
    },
    [client],
  );
  const signOut = useCallback(
    (because?: string) => {
      clearSession();
      client.signOut();
      setEndedBecause(because ?? null);
      setSession(null);
    },
    [client],
  );

  useEffect(() => {
    if (session === null) {
      return;
    }
    const left = msUntilExpiry(session);
    if (left === null) {
      return;
    }
    // setTimeout's delay is a 32-bit integer; a session never lasts that long (1 hour).
    const timer = setTimeout(
      () => signOut("Your session expired (sessions last one hour). Sign in again."),
      Math.min(left, 2 ** 31 - 1),
    );
    return () => clearTimeout(timer);
  }, [session, signOut]);

  const cluster = info.cluster as Cluster;
  const value = useMemo<ConsoleState>(
    () => ({
      endpoints,
      info,
      cluster,
      chainRpcUrl: chainRpcOf(endpoints, cluster),
      client,
      session,
      endedBecause,
      signIn,
      signOut,
    }),
    [endpoints, info, cluster, client, session, endedBecause, signIn, signOut],
  );
  return <Context.Provider value={value}>{props.children}</Context.Provider>;
}
