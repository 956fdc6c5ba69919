// autocannon ships no types; the benchmarks use a few of its fields.
declare module "autocannon" {
  interface Result {
    requests: { average: number };
    latency: { p50: number; p99: number };
    non2xx: number;
  }
  export default function autocannon(options: Record<string, unknown>): Promise<Result>;
}
