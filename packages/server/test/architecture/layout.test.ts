// Rules of the code's shape that a reviewer would otherwise have to remember: no import cycles in
// the server, the checkout and the portal apart, and handlers that take their request types from
// the schemas.
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const serverRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const srcRoot = join(serverRoot, "src");

function filesUnder(dir: string, pattern: RegExp): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === "node_modules" || name.startsWith(".") ? [] : filesUnder(path, pattern);
    return pattern.test(name) ? [path] : [];
  });
}

const sourceFiles = filesUnder(srcRoot, /\.(ts|tsx)$/);

/** Relative imports of a module (static, type-only and dynamic), resolved to file paths. */
function importsOf(path: string): string[] {
  const text = readFileSync(path, "utf8");
  const specifiers = [...text.matchAll(/(?:from|import)\s*\(?\s*["'](\.{1,2}\/[^"']+)["']/g)].map((match) => match[1]!);
  return specifiers.map((specifier) => resolve(dirname(path), specifier));
}

/** Every import cycle, each as the list of files around it (found by depth-first search). */
function importCycles(files: string[], edges: (file: string) => string[] = importsOf): string[][] {
  const graph = new Map(files.map((file) => [file, edges(file).filter((target) => files.includes(target))]));
  const cycles: string[][] = [];
  const state = new Map<string, "visiting" | "done">();
  const stack: string[] = [];
  const visit = (file: string) => {
    state.set(file, "visiting");
    stack.push(file);
    for (const next of graph.get(file) ?? []) {
      if (state.get(next) === "visiting") cycles.push([...stack.slice(stack.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(file, "done");
  };
  for (const file of files) if (!state.has(file)) visit(file);
  return cycles;
}

test("the cycle finder sees a cycle when there is one (it is not blind)", () => {
  // admin/index.ts imports admin/deps.ts; add a made-up edge back and the pair must be reported.
  const index = join(srcRoot, "admin/index.ts");
  const deps = join(srcRoot, "admin/deps.ts");
  assert.ok(importsOf(index).includes(deps), "admin/index.ts imports admin/deps.ts");
  const withBackEdge = (file: string) => (file === deps ? [...importsOf(file), index] : importsOf(file));
  assert.deepEqual(importCycles([index, deps], withBackEdge), [[index, deps, index]]);
  assert.deepEqual(importCycles([index, deps]), []);
});

test("packages/server/src has no import cycle", () => {
  const cycles = importCycles(sourceFiles).map((cycle) => cycle.map((file) => relative(srcRoot, file)).join(" → "));
  assert.deepEqual(cycles, []);
});

test("the checkout and the portal share pages only through web/, never by importing each other", () => {
  const crossings = ["checkout", "portal"].flatMap((area) => {
    const other = join(srcRoot, area === "checkout" ? "portal" : "checkout");
    return sourceFiles
      .filter((file) => file.startsWith(join(srcRoot, area, "/")))
      .flatMap((file) =>
        importsOf(file)
          .filter((target) => target.startsWith(`${other}/`))
          .map((target) => `${relative(srcRoot, file)} → ${relative(srcRoot, target)}`),
      );
  });
  assert.deepEqual(crossings, []);
});

test("handlers take their request types from the route schemas, never from a cast", () => {
  const casts = sourceFiles.flatMap((file) =>
    readFileSync(file, "utf8")
      .split("\n")
      .map((line, index) => ({ line, index }))
      .filter(({ line }) => /\brequest\.(body|params|query|headers)\s+as\b|\(request\.(body|params|query)\s*\?\?[^)]*\)\s+as\b/.test(line))
      .map(({ index }) => `${relative(srcRoot, file)}:${index + 1}`),
  );
  assert.deepEqual(casts, []);
});

test("no source, test, README or doc line points at a file outside the repository", () => {
  const repoRoot = resolve(serverRoot, "../..");
  const files = [
    ...filesUnder(join(repoRoot, "packages"), /\.(ts|tsx|mjs|sql|md)$/).filter((file) => !file.includes(`${"/"}dist/`)),
    ...filesUnder(join(repoRoot, "docs"), /\.md$/),
    join(repoRoot, "README.md"),
  ];
  const outside = /\.\.\/shared\b|\bSPEC §|\b[Ss]eed §|\bthe seed\b/;
  const found = files.flatMap((file) =>
    readFileSync(file, "utf8")
      .split("\n")
      .flatMap((line, index) => (outside.test(line) ? [`${relative(repoRoot, file)}:${index + 1}: ${line.trim().slice(0, 80)}`] : [])),
  );
  assert.deepEqual(found, []);
});
