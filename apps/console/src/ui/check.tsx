/**
 * One verdict line: passed (green, ✓) or failed (red, ✗) with its reason in words, never by
 * colour alone.
 * @module
 */
import type { ReactNode } from "react";

/** A passed or failed check named `title`, with `detail` under it. */
export function Check(props: {
  readonly passed: boolean | null;
  readonly title: string;
  readonly children?: ReactNode;
}): ReactNode {
  const state = props.passed === null ? "pending" : props.passed ? "passed" : "failed";
  const mark = props.passed === null ? "…" : props.passed ? "✓" : "✗";
  const word = props.passed === null ? "checking" : props.passed ? "passed" : "failed";
  return (
    <li className={`check check-${state}`}>
      <span className="check-mark" aria-hidden="true">
        {mark}
      </span>
      <div>
        <strong>
          {props.title} <span className="visually-hidden">({word})</span>
        </strong>
        {props.children !== undefined && <div className="check-detail">{props.children}</div>}
      </div>
    </li>
  );
}
