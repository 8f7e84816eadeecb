/**
 * The console's routes (hash-based, `#/memories/…`, so one build works at `/console` on
 * core-api, on any static host and from a local folder): the signed-out pages (sign-in,
 * verify a file, settings) and the signed-in ones. Pages with heavy code (the proof checks,
 * the chart, staking) are loaded on demand.
 * @module
 */
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { lazy, type ReactNode, Suspense, useState } from "react";
import { Route, Router, Switch } from "wouter";
import { useHashLocation } from "wouter/use-hash-location";
import { useConsole } from "./api/context.js";
import { ActivityPage } from "./pages/activity-page.js";
import { ExportPage } from "./pages/export-page.js";
import { KeysPage } from "./pages/keys-page.js";
import { MemoriesPage } from "./pages/memories/memories-page.js";
import { MemoryPage } from "./pages/memory-page.js";
import { NamespacesPage } from "./pages/namespaces-page.js";
import { SettingsPage } from "./pages/settings-page.js";
import { SharesPage } from "./pages/shares-page.js";
import { SignInPage } from "./pages/sign-in.js";
import { Layout } from "./ui/layout.js";

const ProofPage = lazy(() => import("./pages/proof/proof-page.js"));
const VerifyFilePage = lazy(() => import("./pages/proof/verify-file-page.js"));
const LogPage = lazy(() => import("./pages/log/log-page.js"));
const StakingPage = lazy(() => import("./pages/staking/staking-page.js"));

/** The page for an unknown route. */
function NotFound(): ReactNode {
  return (
    <section>
      <h1>Not found</h1>
      <p>This console has no such page.</p>
    </section>
  );
}

/** The routes of a signed-in console. */
function SignedIn(): ReactNode {
  return (
    <Switch>
      <Route path="/">
        <MemoriesPage />
      </Route>
      <Route path="/memories/:id/proof">{(params) => <ProofPage id={params.id} />}</Route>
      <Route path="/memories/:id">
        {(params) => <MemoryPage key={params.id} id={params.id} />}
      </Route>
      <Route path="/namespaces" component={NamespacesPage} />
      <Route path="/log" component={LogPage} />
      <Route path="/activity" component={ActivityPage} />
      <Route path="/keys" component={KeysPage} />
      <Route path="/shares" component={SharesPage} />
      <Route path="/staking" component={StakingPage} />
      <Route path="/export" component={ExportPage} />
      <Route path="/verify" component={VerifyFilePage} />
      <Route path="/settings" component={SettingsPage} />
      <Route component={NotFound} />
    </Switch>
  );
}

/** The routes of a signed-out console. */
function SignedOut(): ReactNode {
  return (
    <Switch>
      <Route path="/verify" component={VerifyFilePage} />
      <Route path="/settings" component={SettingsPage} />
      <Route component={SignInPage} />
    </Switch>
  );
}

/** The console, inside its ConsoleProvider. */
export function App(): ReactNode {
  const { session } = useConsole();
  const [queries] = useState(
    () =>
      new QueryClient({
        defaultOptions: { queries: { retry: false, refetchOnWindowFocus: false } },
      }),
  );
  return (
    <QueryClientProvider client={queries}>
      <Router hook={useHashLocation}>
        <Layout>
          <Suspense fallback={<p aria-busy="true">Loading…</p>}>
            {session === null ? <SignedOut /> : <SignedIn key={session.token} />}
          </Suspense>
        </Layout>
      </Router>
    </QueryClientProvider>
  );
}
