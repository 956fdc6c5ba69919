// The bench's output: one table of scenarios (rate, p50, p99, ratio to the baseline, target),
// the webhook and growth figures, peak RSS, printed and written to bench/RESULTS.md.
import { writeFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import type { GrowthRow } from "./growth.ts";

export interface Row {
  database: string;
  scenario: string;
  rps: number;
  p50?: number;
  p99?: number;
  cpuMsPerRequest?: number;
  baseline?: string;
  baselineRps?: number;
  /** e.g. "≥ 0.8×" — the ratio this scenario must reach. */
  target?: string;
  note?: string;
}

export interface Report {
  quick: boolean;
  rows: Row[];
  growth: GrowthRow[];
  latency: { database: string; p50: number; p99: number; payments: number }[];
  rss: { process: string; mb: number | undefined }[];
  /** With --rounds=N > 1: each scenario's ratios, one per alternating round. */
  medians: MedianRatio[];
  seconds: number;
  settings: string;
}

export interface MedianRatio {
  database: string;
  scenario: string;
  ratios: number[];
  target: string;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

const times = (r: number) => `${r.toFixed(2)}×`;
const eachRound = (row: MedianRatio) => row.ratios.map(times).join(", ");

export function medianLine(row: MedianRatio): string {
  return `median ${times(median(row.ratios))} of ${row.ratios.length} rounds (${eachRound(row)})${row.target ? `, target ${row.target}` : ""}`;
}

const fixed = (value: number | undefined, digits = 0) => (value === undefined || Number.isNaN(value) ? "" : value.toFixed(digits));

export function ratio(row: Row): string {
  return row.baselineRps ? times(row.rps / row.baselineRps) : "";
}

export function render(report: Report): string {
  const cpu = cpus();
  const lines = [
    `# Paylink benchmark results${report.quick ? " (quick mode: short runs, for CI; not for comparison)" : ""}`,
    "",
    `- Date: ${new Date().toISOString()}`,
    `- Machine: ${cpu.length} × ${cpu[0]?.model ?? "unknown CPU"}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM (shared; figures are noisy — compare ratios)`,
    `- Node ${process.version}; ${report.settings}`,
    `- Whole run: ${report.seconds.toFixed(0)} s`,
    "",
    "| database | scenario | req/s | p50 ms | p99 ms | server CPU ms/req | baseline | baseline req/s | ratio | target |",
    "|---|---|---:|---:|---:|---:|---|---:|---:|---|",
    ...report.rows.map(
      (row) =>
        `| ${row.database} | ${row.scenario} | ${fixed(row.rps)} | ${fixed(row.p50, 1)} | ${fixed(row.p99, 1)} | ${fixed(row.cpuMsPerRequest, 2)} | ${row.baseline ?? ""} | ${fixed(row.baselineRps)} | ${ratio(row)} | ${row.target ?? ""}${row.note ? ` ${row.note}` : ""} |`,
    ),
    ...(report.medians.length > 0
      ? [
          "",
          "## Ratios, median of the alternating rounds",
          "",
          "| database | scenario | median ratio | each round | target |",
          "|---|---|---:|---|---|",
          ...report.medians.map((m) => `| ${m.database} | ${m.scenario} | ${times(median(m.ratios))} | ${eachRound(m)} | ${m.target} |`),
        ]
      : []),
    "",
    "## Payment → receipt (webhook) latency",
    "",
    "| database | payments | p50 ms | p99 ms | target |",
    "|---|---:|---:|---:|---|",
    ...report.latency.map((l) => `| ${l.database} | ${l.payments} | ${fixed(l.p50, 1)} | ${fixed(l.p99, 1)} | p50 < 10, p99 < 50 |`),
    "",
    "## Growth (PostgreSQL): median ms of one request, the merchant's links growing",
    "",
    "| links | list first page | search, 20 matches at every size | search, matches growing 10× a size | get (1,000 submissions) |",
    "|---:|---:|---:|---:|---:|",
    ...report.growth.map(
      (g) =>
        `| ${g.links.toLocaleString("en")} | ${fixed(g.list, 1)} | ${fixed(g.searchFew, 1)} | ${fixed(g.search, 1)} | ${fixed(g.get, 1)} |`,
    ),
    ...(report.growth.length > 1
      ? [
          `| largest ÷ smallest | ${fixed(report.growth.at(-1)!.list / report.growth[0]!.list, 2)}× | ${fixed(report.growth.at(-1)!.searchFew / report.growth[0]!.searchFew, 2)}× | ${fixed(report.growth.at(-1)!.search / report.growth[0]!.search, 2)}× | ${fixed(report.growth.at(-1)!.get / report.growth[0]!.get, 2)}× |`,
        ]
      : []),
    "",
    "## Peak RSS",
    "",
    "| process | peak RSS MB | target |",
    "|---|---:|---|",
    ...report.rss.map((r) => `| ${r.process} | ${fixed(r.mb)} | ${r.process.includes("embedded") ? "< 300" : "< 200"} |`),
    "",
  ];
  return lines.join("\n");
}

export function writeResults(path: string, report: Report): string {
  const text = render(report);
  writeFileSync(path, text);
  return text;
}
