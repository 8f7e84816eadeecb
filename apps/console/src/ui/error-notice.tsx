/**
 * An error shown as a person reads it (api/errors.ts): one sentence, the request id to quote,
 * a live countdown for a 429, and sign-out when the session is over.
 * @module
 */
import { type ReactNode, useEffect, useState } from "react";
import { useConsole } from "../api/context.js";
import { describeError } from "../api/errors.js";

/** Seconds left until `until` (ms epoch), ticking once a second; 0 once passed. */
function useCountdown(until: number | null): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (until === null || until <= Date.now()) {
      return;
    }
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [until]);
  return until === null ? 0 : Math.max(0, Math.ceil((until - now) / 1000));
}

/** Shows `error`; `onRetry` adds a button (enabled once a 429's wait is over). */
export function ErrorNotice(props: {
  readonly error: unknown;
  readonly onRetry?: () => void;
}): ReactNode {
  const { endpoints, signOut, session } = useConsole();
  const shown = describeError(props.error, endpoints.apiUrl);
  const [until] = useState(() =>
    shown.retryAfterSeconds === null ? null : Date.now() + shown.retryAfterSeconds * 1000,
  );
  const left = useCountdown(until);
  useEffect(() => {
    if (shown.signedOut && session !== null) {
      signOut(shown.text);
    }
  }, [shown.signedOut, shown.text, session, signOut]);
  return (
    <div role="alert" className="notice notice-error">
      <p>
        {shown.text}
        {left > 0 ? ` (${left} s left)` : ""}
      </p>
      {shown.requestId !== null && (
        <p>
          <small>Request id: {shown.requestId}</small>
        </p>
      )}
      {props.onRetry !== undefined && (
        <button type="button" className="secondary" onClick={props.onRetry} disabled={left > 0}>
          Try again
        </button>
      )}
    </div>
  );
}
