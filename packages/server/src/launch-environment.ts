// The environment Paylink's own launchers give the server process: `npm start`, the systemd unit
// (deploy/paylink.service) and the container image (deploy/Containerfile) each set it, the bench
// starts Paylink with it, and test/process/launch-environment.test.ts keeps all of them equal to
// this. It can only take effect at process start, so it cannot be set from inside the server.
//
// GLIBC_TUNABLES, glibc.malloc.mmap_threshold: glibc's allocator serves a request of at
// least this many bytes with a mapping of its own, handed back to the kernel when freed, instead
// of from an arena. On the embedded database V8 compiles PGlite's WebAssembly on its helper
// threads, and blocks of 64 KiB to 128 KiB (under glibc's own starting threshold of 128 KiB)
// stayed in those threads' arenas once freed: the setting took 40–80 MB off the embedded
// process's peak in alternating runs. Just above 64 KiB, so the 64 KiB buffers Node reads every socket into
// stay in the arenas: at 32 KiB each read mapped and unmapped memory (1.2 mmap and 1.2 munmap per
// API request on PostgreSQL). The setting also fixes the threshold, where glibc would raise it
// after the first such block is freed. Other C libraries (musl, macOS) ignore the variable.
//
// NODE_OPTIONS, --max-semi-space-size=8: V8's young generation is two semi-spaces that grow
// under load to 16 MB each on a 64-bit machine; a request's objects die young, so 8 MB each still
// collects nearly all of them there, and the process's resident set is 15-40 MB smaller (the
// embedded database's peak and PostgreSQL's). The price is about twice as many young collections:
// 3-6 µs more pause per API request, about 45 µs per checkout payment. V8 sizes the young
// generation when the process starts, so unlike src/v8-flags.ts this cannot be set from inside.
export const LAUNCH_ENVIRONMENT = {
  GLIBC_TUNABLES: "glibc.malloc.mmap_threshold=65600",
  NODE_OPTIONS: "--max-semi-space-size=8",
} as const;
