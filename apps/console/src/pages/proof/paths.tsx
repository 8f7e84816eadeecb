/**
 * The proof paths the proof page shows, one section each, in order. Today one: the root anchored
 * in the owner's commitment account on chain. Another path (e.g. a checkpoint log with signed
 * notes) is one more entry: a title and a component that receives the bundle and the content.
 * @module
 */
import type { ProofBundle } from "@verifiable-memory/client";
import type { ReactNode } from "react";
import { ChainAnchorPath } from "./chain-anchor-path.js";

/** One way of proving a memory's inclusion. */
export interface ProofPath {
  /** Stable id (React key, test hook). */
  readonly id: string;
  /** Renders its checks for `bundle` (and the memory's content, when readable). */
  readonly render: (props: { bundle: ProofBundle; content: string | null }) => ReactNode;
}

/** Every proof path, in the order shown. */
export const PROOF_PATHS: readonly ProofPath[] = [
  { id: "chain-anchor", render: (props) => <ChainAnchorPath {...props} /> },
];
