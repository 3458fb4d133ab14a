import { BarChart, LineChart } from "echarts/charts";
import {
  DataZoomComponent,
  GridComponent,
  LegendComponent,
  TitleComponent,
  TooltipComponent,
} from "echarts/components";
import type { EChartsCoreOption } from "echarts/core";
import * as echarts from "echarts/core";
import { SVGRenderer } from "echarts/renderers";
import { useEffect, useRef } from "react";

echarts.use([
  BarChart,
  LineChart,
  GridComponent,
  TooltipComponent,
  LegendComponent,
  TitleComponent,
  DataZoomComponent,
  SVGRenderer,
]);

/**
 * An Apache ECharts chart (SVG renderer: crisp, and its labels are in the page). The chart is
 * created once, updated when `option` changes, resized with its box and disposed on unmount.
 */
export function EChart({
  option,
  height,
  label,
  onClick,
}: {
  option: EChartsCoreOption;
  height: number;
  label: string;
  onClick?: (params: { dataIndex: number; seriesName?: string }) => void;
}) {
  const box = useRef<HTMLDivElement>(null);
  const chart = useRef<echarts.ECharts | null>(null);
  useEffect(() => {
    const instance = echarts.init(box.current!, null, { renderer: "svg" });
    chart.current = instance;
    const observer = new ResizeObserver(() => instance.resize());
    observer.observe(box.current!);
    return () => {
      observer.disconnect();
      instance.dispose();
      chart.current = null;
    };
  }, []);
  useEffect(() => {
    chart.current?.setOption(option, { notMerge: true });
  }, [option]);
  useEffect(() => {
    const instance = chart.current;
    if (!instance || !onClick) return;
    instance.on("click", onClick as never);
    return () => {
      instance.off("click", onClick as never);
    };
  }, [onClick]);
  return <div ref={box} className="chart" style={{ height }} role="img" aria-label={label} />;
}
