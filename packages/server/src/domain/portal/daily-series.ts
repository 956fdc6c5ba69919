// The overview's numbers (docs/portal.md#overview). Pure: per-day rows in, one point per day of the
// period out (days without a sale are zero) in the currency that sold most for the chart, and the
// period's gross, refunds and net per currency: amounts in different currencies are never added.

export interface DayTotal {
  day: string;
  currency: string;
  sales: number;
  revenue: number;
}

export interface DayRefunds {
  day: string;
  currency: string;
  refunded: number;
}

export interface CurrencyTotal {
  currency: string;
  sales: number;
  /** What the period's approved payments took. */
  revenue: number;
  /** What the period's confirmed refunds and reversals gave back (of payments of any day). */
  refunded: number;
  net: number;
}

export interface Series {
  /** The currency the revenue bars are in (null: no sales at all). */
  currency: string | null;
  points: Array<{ day: string; sales: number; revenue: number }>;
  /** The period per currency, the one with most sales first. */
  totals: CurrencyTotal[];
}

/** The `days` calendar days (UTC) ending with today's, oldest first. */
export function lastDays(now: Date, days: number): string[] {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return Array.from({ length: days }, (_, index) => new Date(today - (days - 1 - index) * 86_400_000).toISOString().slice(0, 10));
}

export function dailySeries(rows: DayTotal[], days: string[], refunds: DayRefunds[] = []): Series {
  const byCurrency = new Map<string, CurrencyTotal>();
  const totalOf = (currency: string) => {
    const total = byCurrency.get(currency) ?? { currency, sales: 0, revenue: 0, refunded: 0, net: 0 };
    byCurrency.set(currency, total);
    return total;
  };
  for (const row of rows) {
    const total = totalOf(row.currency);
    total.sales += row.sales;
    total.revenue += row.revenue;
  }
  for (const row of refunds) totalOf(row.currency).refunded += row.refunded;
  const totals = [...byCurrency.values()]
    .map((t) => ({ ...t, net: t.revenue - t.refunded }))
    .sort((a, b) => b.sales - a.sales || b.refunded - a.refunded);
  const currency = totals.find((t) => t.sales > 0)?.currency ?? null;
  const points = days.map((day) => {
    const sales = rows.filter((row) => row.day === day && row.currency === currency).reduce((sum, row) => sum + row.sales, 0);
    const revenue = rows.filter((row) => row.day === day && row.currency === currency).reduce((sum, row) => sum + row.revenue, 0);
    return { day, sales, revenue };
  });
  return { currency, points, totals };
}

/** Sales per visit as a percentage with one decimal, or null before the first visit. */
export function conversionPercent(visits: number, sales: number): number | null {
  if (visits <= 0) return null;
  return Math.round((sales / visits) * 1000) / 10;
}
