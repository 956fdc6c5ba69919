/** @jsxRuntime automatic @jsxImportSource preact */
// The overview's chart, drawn on the server as SVG: one bar per day for the revenue, the number of
// sales above each bar that has any. No script, no library; a table with the same numbers follows
// for screen readers and for anyone who wants exact figures.
import type { Series } from "../../domain/portal/daily-series.ts";
import { formatMoney, type Lang } from "../../web/i18n.ts";
import { PORTAL_MESSAGES } from "../i18n.ts";
import { TableHead, TableWrap } from "./table.tsx";

const WIDTH = 720;
const HEIGHT = 220;
const BASE = 190;
const TOP = 24;

export function SalesChart(props: { series: Series; lang: Lang }) {
  const m = PORTAL_MESSAGES[props.lang].overview;
  const { points, currency } = props.series;
  const max = Math.max(1, ...points.map((p) => p.revenue));
  const slot = WIDTH / points.length;
  const barWidth = Math.max(4, slot * 0.7);
  const money = (amount: number) => (currency ? formatMoney(amount, currency, props.lang) : "0");
  const label = m.chartLabel(
    points.reduce((sum, p) => sum + p.sales, 0),
    currency ? money(points.reduce((s, p) => s + p.revenue, 0)) : "0",
  );
  return (
    <figure class="chart">
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-label={label} data-chart>
        <line x1="0" y1={BASE} x2={WIDTH} y2={BASE} stroke="#8d97a3" stroke-width="1" />
        {points.map((p, index) => {
          const height = Math.round(((BASE - TOP) * p.revenue) / max);
          const x = index * slot + (slot - barWidth) / 2;
          return (
            <g key={p.day}>
              {p.revenue > 0 ? (
                <rect x={x.toFixed(1)} y={BASE - height} width={barWidth.toFixed(1)} height={height} rx="2" fill="#2f6fc6" data-day={p.day}>
                  <title>{`${p.day}: ${money(p.revenue)}, ${m.salesCount(p.sales)}`}</title>
                </rect>
              ) : null}
              {p.sales > 0 ? (
                <text x={(x + barWidth / 2).toFixed(1)} y={BASE - height - 6} text-anchor="middle" font-size="12" fill="#1a1d21">
                  {p.sales}
                </text>
              ) : null}
              {index % 5 === 0 || index === points.length - 1 ? (
                <text {...dayLabelPosition(index, points.length, x, barWidth)} y={HEIGHT - 8} font-size="12" fill="#4f5966">
                  {p.day.slice(8, 10)}.{p.day.slice(5, 7)}.
                </text>
              ) : null}
            </g>
          );
        })}
      </svg>
      <figcaption class="muted">{currency ? m.chartCaption(currency) : m.noSales}</figcaption>
      <details>
        <summary>{m.chartTable}</summary>
        <TableWrap label={m.chartTable}>
          <table>
            <TableHead columns={[m.day, { num: m.sales }, { num: m.revenue }]} />
            <tbody>
              {points
                .filter((p) => p.sales > 0)
                .map((p) => (
                  <tr key={p.day}>
                    <td>{p.day}</td>
                    <td class="num">{p.sales}</td>
                    <td class="num">{money(p.revenue)}</td>
                  </tr>
                ))}
            </tbody>
          </table>
        </TableWrap>
      </details>
    </figure>
  );
}

/** The first and last day labels are anchored inside the chart, so neither is cut at its edge. */
function dayLabelPosition(index: number, count: number, x: number, barWidth: number) {
  if (index === 0) return { x: x.toFixed(1), "text-anchor": "start" };
  if (index === count - 1) return { x: (x + barWidth).toFixed(1), "text-anchor": "end" };
  return { x: (x + barWidth / 2).toFixed(1), "text-anchor": "middle" };
}
