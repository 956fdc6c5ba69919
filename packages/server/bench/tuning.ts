// The memory tuning docs/operations.md#memory advises operators to start Paylink with. Paylink's
// own launchers set none of it; the bench starts Paylink with it, so the peak RSS it reports is
// that of the advised set-up. `GLIBC_TUNABLES= npm run bench` (or `NODE_OPTIONS=`) measures
// without that variable.
export const ADVISED_ENVIRONMENT = {
  GLIBC_TUNABLES: "glibc.malloc.mmap_threshold=65600",
  NODE_OPTIONS: "--max-semi-space-size=8",
} as const;

/** V8 flags node takes on its command line only (NODE_OPTIONS refuses them). */
export const ADVISED_NODE_FLAGS = ["--no-allocation-site-pretenuring", "--heap-growing-percent=100"];
