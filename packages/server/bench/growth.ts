// Growth: the same merchant's list (first page), two searches and a get as its links grow to 10 k,
// 100 k and 1 M. Rows are inserted in bulk with SQL (generate_series), not through the API, then
// analysed and the search index's pending list merged; the link that is read has 1,000
// submissions. Each reading is the median of sequential requests.
// The two searches differ in what grows: "gift card" matches the same 20 links at every size (what
// the index costs as the links around them grow), "order 77" matches 111, 1,111 and 11,111 links
// (each size adds ten times the matches, and the exact totalCount counts every one).
import { withClient } from "./databases.ts";
import type { Paylink } from "./processes.ts";

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

async function medianMs(url: string, apiKey: string, times: number): Promise<number> {
  const durations: number[] = [];
  for (let i = 0; i < times + 2; i++) {
    const started = performance.now();
    const response = await fetch(url, { headers: { "x-api-key": apiKey } });
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`growth ${url}: ${response.status}`);
    if (i >= 2) durations.push(performance.now() - started);
  }
  durations.sort((a, b) => a - b);
  return durations[Math.floor(durations.length / 2)]!;
}

export async function growth(paylink: Paylink, databaseUrl: string, sizes: number[], times: number): Promise<GrowthRow[]> {
  await addSubmissions(paylink, databaseUrl);
  const rows: GrowthRow[] = [];
  let current = 0;
  for (const size of sizes) {
    await growTo(paylink, databaseUrl, current, size);
    current = size;
    const api = `${paylink.baseUrl}/api/v1/paymentlinks`;
    rows.push({
      links: size,
      list: await medianMs(`${api}?pageSize=20`, paylink.apiKey, times),
      search: await medianMs(`${api}?pageSize=20&search=order%2077`, paylink.apiKey, times),
      searchFew: await medianMs(`${api}?pageSize=20&search=gift%20card`, paylink.apiKey, times),
      get: await medianMs(`${api}/${GROWTH_LINK}`, paylink.apiKey, times),
    });
  }
  return rows;
}
