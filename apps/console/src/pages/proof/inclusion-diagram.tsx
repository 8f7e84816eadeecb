/**
 * The inclusion path drawn: from the leaf at the bottom to the root at the top, each level
 * showing the proof node on its side and the hash it yields, the root compared with the one
 * read from the chain. An SVG with a text alternative (the same steps as a list).
 * @module
 */
import type { ReactNode } from "react";
import { short } from "../../ui/format.js";
import type { RecomputedPath } from "./inclusion-path.js";

const BOX_W = 150;
const BOX_H = 30;
const ROW_H = 56;
const WIDTH = 520;

/** One labelled hash box at (x, y). */
function Box(props: {
  readonly x: number;
  readonly y: number;
  readonly label: string;
  readonly hash: string;
  readonly tone: "node" | "path" | "ok" | "bad";
}): ReactNode {
  return (
    <g className={`diagram-box diagram-${props.tone}`}>
      <rect x={props.x} y={props.y} width={BOX_W} height={BOX_H} rx={4} />
      <text x={props.x + 6} y={props.y + 12}>
        {props.label}
      </text>
      <text x={props.x + 6} y={props.y + 25} className="diagram-hash">
        {short(props.hash, 8)}
      </text>
    </g>
  );
}

/** The diagram of `path` for leaf `leafHash`, compared with `expectedRoot` when known. */
export function InclusionDiagram(props: {
  readonly leafIndex: number;
  readonly leafHash: string;
  readonly path: RecomputedPath;
  readonly expectedRoot: string | null;
}): ReactNode {
  const { path } = props;
  const levels = path.steps.length;
  const height = (levels + 2) * ROW_H;
  const centre = (WIDTH - BOX_W) / 2;
  const rowY = (level: number) => height - (level + 1) * ROW_H;
  const rootOk = path.root !== null && path.root === props.expectedRoot;
  return (
    <figure className="diagram">
      <svg
        viewBox={`0 0 ${WIDTH} ${height}`}
        width="100%"
        role="img"
        aria-labelledby="diagram-title"
      >
        <title id="diagram-title">
          The inclusion path of leaf {props.leafIndex}, from the leaf up to the root
        </title>
        <Box
          x={centre}
          y={rowY(0)}
          label={`leaf ${props.leafIndex}`}
          hash={props.leafHash}
          tone="path"
        />
        {path.steps.map((step, i) => {
          const y = rowY(i + 1);
          const siblingX = step.side === "left" ? 10 : WIDTH - BOX_W - 10;
          const isRoot = i === levels - 1;
          return (
            <g key={`${i}-${step.sibling}`}>
              <Box x={siblingX} y={rowY(i)} label="proof node" hash={step.sibling} tone="node" />
              <line x1={centre + BOX_W / 2} y1={rowY(i)} x2={centre + BOX_W / 2} y2={y + BOX_H} />
              <line x1={siblingX + BOX_W / 2} y1={rowY(i)} x2={centre + BOX_W / 2} y2={y + BOX_H} />
              <Box
                x={centre}
                y={y}
                label={isRoot ? "root reached" : `level ${i + 1}`}
                hash={step.result}
                tone={isRoot ? (rootOk ? "ok" : "bad") : "path"}
              />
            </g>
          );
        })}
      </svg>
      <figcaption id="diagram-caption">
        <ol className="path-steps">
          <li>
            Leaf {props.leafIndex}: <code>{props.leafHash}</code>
          </li>
          {path.steps.map((step, i) => (
            <li key={`${i}-${step.result}`}>
              Hash with proof node <code>{short(step.sibling, 8)}</code> on the {step.side}:{" "}
              <code>{step.result}</code>
            </li>
          ))}
          <li>
            {path.root === null
              ? `No root reached: ${path.problem ?? "malformed proof"}.`
              : props.expectedRoot === null
                ? `Root reached: ${path.root}.`
                : rootOk
                  ? `Root reached equals the root read from the chain (${short(path.root, 8)}).`
                  : `Root reached ${short(path.root, 8)} differs from the root read from the chain ${short(props.expectedRoot, 8)}.`}
          </li>
        </ol>
      </figcaption>
    </figure>
  );
}
