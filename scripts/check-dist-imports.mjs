// After a production install (`npm ci --omit=dev` on a built tree): proves the compiled code needs
// nothing from devDependencies. Two checks per workspace package with a dist/:
//  1. every bare import in dist/ names a Node built-in or one of the package's own `dependencies`
//     (hoisting could otherwise hide a package that only another workspace or a dev tool brings);
//  2. every module in dist/ is imported, so each import resolves in the node_modules as installed,
//     including the modules a command only loads on demand (worker, migrate).
import { readdirSync, readFileSync, statSync } from "node:fs";
import { builtinModules } from "node:module";
import { join, relative } from "node:path";
import { pathToFileURL } from "node:url";

const root = new URL("..", import.meta.url).pathname;
const builtins = new Set(builtinModules);
const problems = [];

function jsFiles(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return jsFiles(path);
    return name.endsWith(".js") ? [path] : [];
  });
}

const packageName = (specifier) =>
  specifier
    .split("/")
    .slice(0, specifier.startsWith("@") ? 2 : 1)
    .join("/");
// Import and export statements start a line in tsc's output; a quoted "from" inside page text (a
// form field named `from`) must not count, so each form is matched as a statement, not as a word.
const IMPORT_FORMS = [
  /^\s*(?:import|export)\s[^'"]*?\bfrom\s*["']([^"']+)["']/gm,
  /^\s*import\s*["']([^"']+)["']/gm,
  /\bimport\s*\(\s*["']([^"']+)["']\s*\)/g,
];
const specifiers = (code) => IMPORT_FORMS.flatMap((form) => [...code.matchAll(form)].map((match) => match[1]));

let modules = 0;
for (const pkg of readdirSync(join(root, "packages"))) {
  const dir = join(root, "packages", pkg);
  let dist;
  try {
    dist = jsFiles(join(dir, "dist"));
  } catch {
    continue;
  }
  const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
  const allowed = new Set(Object.keys(manifest.dependencies ?? {}));
  // A command's entry runs when imported: its imports are still checked, it is not loaded.
  const entries = new Set(
    Object.values(typeof manifest.bin === "string" ? { bin: manifest.bin } : (manifest.bin ?? {})).map((path) => join(dir, path)),
  );
  for (const file of dist) {
    for (const specifier of specifiers(readFileSync(file, "utf8"))) {
      if (specifier.startsWith(".") || specifier.startsWith("node:")) continue;
      const name = packageName(specifier);
      if (!builtins.has(name) && !allowed.has(name))
        problems.push(`${relative(root, file)} imports "${specifier}", not in ${manifest.name}'s dependencies`);
    }
    if (entries.has(file)) continue;
    try {
      await import(pathToFileURL(file).href);
      modules++;
    } catch (error) {
      problems.push(`${relative(root, file)} does not load: ${error.message}`);
    }
  }
}

if (problems.length > 0) {
  console.error(problems.join("\n"));
  process.exit(1);
}
if (modules === 0) {
  console.error("no dist/ to check: run `npm run build` first");
  process.exit(1);
}
console.log(`${modules} compiled modules load, and import only dependencies`);
