/** @jsxRuntime automatic @jsxImportSource preact */
// The overview's chart, drawn on the server as SVG: one bar per day for the revenue, the number of
// sales above each bar that has any, and a y-axis with the amounts of three gridlines. No script,
// no library; a table with the same numbers follows for screen readers and for exact figures.
import type { Series } from "../../domain/portal/daily-series.ts";
import { formatMoney, type Lang } from "../../web/i18n.ts";
import { PORTAL_MESSAGES } from "../i18n.ts";
import { TableHead, TableWrap } from "./table.tsx";

const WIDTH = 720;
const HEIGHT = 220;
const BASE = 190;
const TOP = 24;
/** Room on the left for the axis's amounts. */
const AXIS = 100;

/** The smallest 1, 2 or 5 × 10ⁿ at or above `value`: the axis's top, a round amount. */
export function roundAxisTop(value: number): number {
  if (value <= 0) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  return [1, 2, 5, 10].map((step) => step * power).find((top) => top >= value) ?? 10 * power;
}

export function SalesChart(props: { series: Series; lang: Lang }) {
  const m = PORTAL_MESSAGES[props.lang].overview;
  const { points, currency } = props.series;
  const max = roundAxisTop(Math.max(0, ...points.map((p) => p.revenue)));
  const slot = (WIDTH - AXIS) / points.length;
  const barWidth = Math.max(4, slot * 0.7);
  const money = (amount: number) => (currency ? formatMoney(amount, currency, props.lang) : "0");
  const label = m.chartLabel(
    points.reduce((sum, p) => sum + p.sales, 0),
    currency ? money(points.reduce((s, p) => s + p.revenue, 0)) : "0",
  );
  return (
    <figure class="chart">
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-label={label} data-chart>
        {currency ? (
          [0, Math.round(max / 2), max].map((amount) => {
            const y = BASE - Math.round(((BASE - TOP) * amount) / max);
            return (
              <g key={amount} data-axis>
                <line x1={AXIS} y1={y} x2={WIDTH} y2={y} stroke={amount === 0 ? "#8d97a3" : "#e3e7ec"} stroke-width="1" />
                <text x={AXIS - 8} y={y + 4} text-anchor="end" font-size="12" fill="#4f5966">
                  {money(amount)}
                </text>
              </g>
            );
          })
        ) : (
          <line x1={AXIS} y1={BASE} x2={WIDTH} y2={BASE} stroke="#8d97a3" stroke-width="1" />
        )}
        {points.map((p, index) => {
          const height = Math.round(((BASE - TOP) * p.revenue) / max);
          const x = AXIS + index * slot + (slot - barWidth) / 2;
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
