// Two of V8's heuristics set in every Paylink process, before the server's code loads.
//
// Allocation-site pretenuring, off. V8 watches how many objects of each allocation site
// survive a young-generation collection and, past a threshold, allocates that site's objects
// straight in the old generation. A request's objects live for milliseconds, but one unlucky
// collection can tenure a site on the driver's row path; from then on every row is born old, and
// the young values a dead row still points to are kept alive by it through each scavenge and
// promoted, so the old generation fills with garbage that only a full collection frees. Measured
// on a link read at 50 connections: 6.6 kB promoted per request with the heuristic, 0.05 kB
// without; the process's peak 235–243 MB → 144–149 MB (docs/performance.md, "Pretenuring").
//
// The old generation's growth factor, 2. After each full collection V8 lets the old
// generation grow to its live size times a factor it picks, up to 4 on a machine with a lot of
// memory. On the embedded database the payments promote more (about 20 kB each), and the heap
// then rose from about 100 MB to 190 MB around a live 30 MB before it was collected. With 2 the
// embedded peak fell from 319 and 336 MB to 300 and 266 MB (alternating runs), with CPU per
// request and the p99 of create, get and list on PostgreSQL within the noise. V8 reads the flag at
// every collection, so setting it here, after the heap exists, takes effect. No heap size is
// set: Node sizes it from the machine's or the container's memory.
import { setFlagsFromString } from "node:v8";

setFlagsFromString("--no-allocation-site-pretenuring");
setFlagsFromString("--heap-growing-percent=100");
