// The V8 flags that every way of starting Paylink hands to Node (D-255): the `paylink` command's
// first line, `npm start`, deploy/paylink.service and deploy/Containerfile (the architecture test
// node-flags.test.ts keeps them equal), and the benchmark.
//
// Capping the old generation at 1 GB makes V8 collect it long before the default limit (a quarter
// of the machine's memory) would: under heavy API load the peak resident size fell from about 240
// to about 150 MB, because the heap no longer grows room for garbage. Paylink's live heap is
// 35–40 MB and every read is paged, so 1 GB leaves room to spare. The cap would also shrink the
// young generation; keeping it at its usual 16 MB semi-spaces keeps the scavenges, and so the CPU
// per request, as they were.
export const NODE_HEAP_FLAGS = ["--max-old-space-size=1024", "--max-semi-space-size=16"] as const;
