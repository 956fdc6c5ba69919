// The overview chart's numbers (docs/portal.md#overview). Pure: per-day rows in, one point per day
// of the period out (days without a sale are zero), in the currency that sold most.

export interface DayTotal {
  day: string;
  currency: string;
  sales: number;
  revenue: number;
}

export interface Series {
  /** The currency the revenue bars are in (null: no sales at all). */
  currency: string | null;
  points: Array<{ day: string; sales: number; revenue: number }>;
  /** Revenue of the period per currency, largest first. */
  totals: Array<{ currency: string; sales: number; revenue: number }>;
}

/** The `days` calendar days (UTC) ending with today's, oldest first. */
export function lastDays(now: Date, days: number): string[] {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return Array.from({ length: days }, (_, index) => new Date(today - (days - 1 - index) * 86_400_000).toISOString().slice(0, 10));
}

export function dailySeries(rows: DayTotal[], days: string[]): Series {
  const byCurrency = new Map<string, { sales: number; revenue: number }>();
  for (const row of rows) {
    const total = byCurrency.get(row.currency) ?? { sales: 0, revenue: 0 };
    total.sales += row.sales;
    total.revenue += row.revenue;
    byCurrency.set(row.currency, total);
  }
  const totals = [...byCurrency.entries()].map(([currency, t]) => ({ currency, ...t })).sort((a, b) => b.sales - a.sales);
  const currency = totals[0]?.currency ?? null;
  const points = days.map((day) => {
    const sales = rows.filter((row) => row.day === day).reduce((sum, row) => sum + row.sales, 0);
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
