/**
 * The page frame: a skip link, the header with the service, its cluster and the navigation
 * (current page marked), the main region (focused on every navigation, so keyboard and screen
 * reader users start at the new page), and a footer naming the API and chain RPC in use.
 * @module
 */
import { type ReactNode, useEffect, useRef } from "react";
import { Link, useLocation } from "wouter";
import { useConsole } from "../api/context.js";
import { short } from "./format.js";

/** The navigation of a signed-in console. */
const SIGNED_IN_LINKS: readonly (readonly [string, string])[] = [
  ["/", "Memories"],
  ["/namespaces", "Namespaces"],
  ["/log", "Log"],
  ["/activity", "Activity"],
  ["/keys", "API keys"],
  ["/shares", "Shares"],
  ["/staking", "Staking"],
  ["/export", "Export"],
  ["/verify", "Verify a file"],
  ["/settings", "Settings"],
];
/** The navigation of a signed-out console. */
const SIGNED_OUT_LINKS: readonly (readonly [string, string])[] = [
  ["/", "Sign in"],
  ["/verify", "Verify a file"],
  ["/settings", "Settings"],
];

/** Whether `href` is the current page (a memory's pages count as Memories). */
function isCurrent(href: string, location: string): boolean {
  return href === "/" ? location === "/" || location.startsWith("/memories") : location === href;
}

/** The frame around `children`. */
export function Layout(props: { readonly children: ReactNode }): ReactNode {
  const { info, cluster, session, signOut, endpoints, chainRpcUrl } = useConsole();
  const [location] = useLocation();
  const main = useRef<HTMLElement>(null);
  const first = useRef(true);
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    main.current?.focus();
  }, [location]);
  const links = session === null ? SIGNED_OUT_LINKS : SIGNED_IN_LINKS;
  return (
    <>
      <button type="button" className="skip-link" onClick={() => main.current?.focus()}>
        Skip to content
      </button>
      <header className="container site-header">
        <nav aria-label="Console">
          <ul>
            <li>
              <strong>{info.service}</strong>{" "}
              <span className={`badge badge-${cluster}`} title="cluster">
                {cluster}
              </span>
            </li>
          </ul>
          <ul className="nav-links">
            {links.map(([href, label]) => (
              <li key={href}>
                <Link href={href} aria-current={isCurrent(href, location) ? "page" : undefined}>
                  {label}
                </Link>
              </li>
            ))}
            {session !== null && (
              <li>
                <button
                  type="button"
                  className="secondary outline"
                  onClick={() => signOut("You signed out.")}
                  title={session.publicKey ?? "API key"}
                >
                  Sign out {session.publicKey === null ? "(API key)" : short(session.publicKey, 4)}
                </button>
              </li>
            )}
          </ul>
        </nav>
      </header>
      <main id="main" ref={main} tabIndex={-1} className="container">
        {props.children}
      </main>
      <footer className="container site-footer">
        <small>
          API <code>{endpoints.apiUrl}</code> · chain RPC <code>{chainRpcUrl}</code>
          {endpoints.served ? " · served by the service" : " · a copy served from elsewhere"}
        </small>
      </footer>
    </>
  );
}
