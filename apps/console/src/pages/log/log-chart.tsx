/**
 * The log's growth over time: anchored tree size at each anchored checkpoint, drawn with uPlot
 * (a canvas chart; its stylesheet is a file of the build, nothing is injected). Each point is an
 * anchor; the step line is the anchored size between them.
 * @module
 */
import "uplot/dist/uPlot.min.css";
import { type ReactNode, useEffect, useRef } from "react";
import uPlot from "uplot";

/** A chart of anchored sizes `sizes` at `times` (seconds since the epoch), oldest first. */
export function LogChart(props: {
  readonly times: readonly number[];
  readonly sizes: readonly number[];
}): ReactNode {
  const host = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = host.current;
    if (element === null || props.times.length === 0) {
      return;
    }
    const chart = new uPlot(
      {
        width: Math.max(320, element.clientWidth),
        height: 280,
        scales: { x: { time: true } },
        axes: [{}, { label: "anchored size (leaves)" }],
        series: [
          {},
          {
            label: "anchored size",
            stroke: "#1d4ed8",
            width: 2,
            paths: uPlot.paths.stepped?.({ align: 1 }),
            points: { show: true, size: 7, fill: "#1d4ed8" },
          },
        ],
      },
      [props.times as number[], props.sizes as number[]],
      element,
    );
    const resize = () => chart.setSize({ width: Math.max(320, element.clientWidth), height: 280 });
    window.addEventListener("resize", resize);
    return () => {
      window.removeEventListener("resize", resize);
      chart.destroy();
    };
  }, [props.times, props.sizes]);
  return <div ref={host} className="log-chart" aria-hidden="true" />;
}
