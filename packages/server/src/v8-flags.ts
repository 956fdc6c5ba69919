// One V8 heuristic turned off in every Paylink process, before the server's code loads (D-260):
// allocation-site pretenuring. V8 watches how many objects of each allocation site survive a
// young-generation collection and, past a threshold, allocates that site's objects straight in
// the old generation. A request's objects live for milliseconds, but one unlucky collection can
// tenure a site on the driver's row path; from then on every row is born old, and the young
// values a dead row still points to are kept alive by it through each scavenge and promoted, so
// the old generation fills with garbage that only a full collection frees. Measured on a link
// read at 50 connections: 6.6 kB promoted per request with the heuristic, 0.05 kB without; the
// process's peak 235–243 MB → 144–149 MB (docs/performance.md, "Pretenuring").
import { setFlagsFromString } from "node:v8";

setFlagsFromString("--no-allocation-site-pretenuring");
