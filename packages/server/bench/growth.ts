// Growth: the same merchant's list (first page), two searches and a get as its links grow to 10 k,
// 100 k and 1 M. Rows are inserted in bulk with SQL (generate_series), not through the API, then
// analysed and the search index's pending list merged; the link that is read has 1,000
// submissions. Each reading is the median of sequential requests, the four kinds taken in turns.
// The two searches differ in what grows: "gift card" matches the same 20 links at every size (what
// the index costs as the links around them grow), "order 77" matches 111, 1,111 and 11,111 links
// (each size adds ten times the matches, and the exact totalCount counts every one).
import { withClient } from "./databases.ts";
import type { Paylink } from "./processes.ts";
import { percentile } from "./webhooks.ts";

export interface GrowthRow {
  links: number;
  list: number;
  search: number;
  /** The search whose matches stay at 20 links. */
  searchFew: number;
  get: number;
}

const GROWTH_LINK = "Bgrowth000000001";

async function growTo(paylink: Paylink, databaseUrl: string, from: number, to: number): Promise<void> {
  await withClient(databaseUrl, async (client) => {
    for (let start = from + 1; start <= to; start += 100_000) {
      const end = Math.min(to, start + 99_999);
      await client.query(
        `INSERT INTO payment_links (reference, merchant_id, terminal_identifier, type, amount, currency, items, shopper_info,
                                    culture, description, created_at)
         SELECT 'G' || lpad(g::text, 15, '0'), $1, $2, 'PayByLink', 12900, 'ISK',
                '[{"name":"Lopapeysa","quantity":1,"unitPrice":12900,"amountWithoutDiscount":12900,"amount":12900}]'::jsonb,
                '[]'::jsonb, 'is', 'Growth order ' || g, now() - interval '1 second' * g
         FROM generate_series($3::int, $4::int) g`,
        [paylink.merchantId, paylink.terminalIdentifier, start, end],
      );
    }
    // What autovacuum would do after such a load: statistics, and the search index's pending list
    // merged. A search reads that list whole, whatever the number of links (up to 4 MB, 8-17 ms
    // when full), so without the merge each size's reading would depend on where the list stood,
    // not on the size (docs/performance.md, "Search and the trigram index's pending list").
    await client.query("SELECT gin_clean_pending_list('payment_links_search')");
    await client.query("ANALYZE payment_links");
  });
}

async function addSubmissions(paylink: Paylink, databaseUrl: string): Promise<void> {
  await withClient(databaseUrl, async (client) => {
    await client.query(
      `INSERT INTO payment_links (reference, merchant_id, terminal_identifier, type, amount, currency, items, shopper_info, culture, description)
       VALUES ($1, $2, $3, 'PayByLink', 12900, 'ISK', '[]'::jsonb, '[]'::jsonb, 'is', 'Growth link with submissions')`,
      [GROWTH_LINK, paylink.merchantId, paylink.terminalIdentifier],
    );
    await client.query(
      `INSERT INTO submissions (id, link_reference, answers, amount, currency, state, completed, card_brand, card_masked, card_last4,
                                card_expiry, completed_at, created_at)
       SELECT 'growth' || lpad(g::text, 14, '0'), $1, '[]'::jsonb, 12900, 'ISK', 'approved', true, 'Visa', '411111******1111', '1111',
              '08/28', now() - interval '1 minute' * g, now() - interval '1 minute' * g
       FROM generate_series(1, 1000) g`,
      [GROWTH_LINK],
    );
    await client.query("UPDATE payment_links SET sales_count = 1000 WHERE reference = $1", [GROWTH_LINK]);
    // The few that "gift card" finds, spread over the oldest 10 k links' times.
    await client.query(
      `INSERT INTO payment_links (reference, merchant_id, terminal_identifier, type, amount, currency, items, shopper_info,
                                  culture, description, created_at)
       SELECT 'Bgiftcard' || lpad(g::text, 7, '0'), $1, $2, 'PayByLink', 12900, 'ISK', '[]'::jsonb, '[]'::jsonb, 'is',
              'Growth gift card ' || g, now() - interval '1 second' * (g * 450)
       FROM generate_series(1, 20) g`,
      [paylink.merchantId, paylink.terminalIdentifier],
    );
  });
}

/** One request's time in ms: the whole exchange as a client sees it. */
async function timeRequest(url: string, apiKey: string): Promise<number> {
  const started = performance.now();
  const response = await fetch(url, { headers: { "x-api-key": apiKey } });
  await response.arrayBuffer();
  if (response.status !== 200) throw new Error(`growth ${url}: ${response.status}`);
  return performance.now() - started;
}

/**
 * The median ms of each request, taken in turns (one of each, `times` over, after two warm-up
 * turns) so that a moment of load on the shared machine lands on all of them alike, not on
 * whichever request's series it fell in: the 20-match search takes 2-3 ms, and a series of 20
 * taken alone moved by a millisecond from one reading to the next at the same size.
 */
async function medianMsInTurns(urls: Record<keyof Omit<GrowthRow, "links">, string>, apiKey: string, times: number) {
  const names = Object.keys(urls) as (keyof typeof urls)[];
  const durations = Object.fromEntries(names.map((name) => [name, [] as number[]])) as Record<keyof typeof urls, number[]>;
  for (let turn = 0; turn < times + 2; turn++) {
    for (const name of names) {
      const ms = await timeRequest(urls[name], apiKey);
      if (turn >= 2) durations[name].push(ms);
    }
  }
  const median = (values: number[]) =>
    percentile(
      values.sort((a, b) => a - b),
      0.5,
    );
  return Object.fromEntries(names.map((name) => [name, median(durations[name])])) as Record<keyof typeof urls, number>;
}

export async function growth(paylink: Paylink, databaseUrl: string, sizes: number[], times: number): Promise<GrowthRow[]> {
  await addSubmissions(paylink, databaseUrl);
  const rows: GrowthRow[] = [];
  let current = 0;
  for (const size of sizes) {
    await growTo(paylink, databaseUrl, current, size);
    current = size;
    const api = `${paylink.baseUrl}/api/v1/paymentlinks`;
    const medians = await medianMsInTurns(
      {
        list: `${api}?pageSize=20`,
        search: `${api}?pageSize=20&search=order%2077`,
        searchFew: `${api}?pageSize=20&search=gift%20card`,
        get: `${api}/${GROWTH_LINK}`,
      },
      paylink.apiKey,
      times,
    );
    rows.push({ links: size, ...medians });
  }
  return rows;
}
