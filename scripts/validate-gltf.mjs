// Runs the Khronos glTF-Validator (npm `gltf-validator`, installed into target/tools by
// scripts/setup.sh) on each file given and prints one JSON array with a summary per file:
//   [{"file": ..., "errors": n, "warnings": n, "infos": n, "hints": n,
//     "messages": [{"code", "severity" (0 error .. 3 hint), "pointer", "message"}]}]
// External resources (.bin, images) are read relative to each file. Exit status: 0 when every file
// was validated (whatever it holds), 1 when the validator could not run.
// Usage: node scripts/validate-gltf.mjs FILE.glb [FILE.gltf ...]
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const moduleDir = process.env.GLTF_VALIDATOR_DIR
  || path.join(here, '..', 'target', 'tools', 'node_modules', 'gltf-validator');
let validator;
try {
  validator = createRequire(import.meta.url)(moduleDir);
} catch (e) {
  console.error(`validate-gltf: cannot load gltf-validator from ${moduleDir} (run scripts/setup.sh): ${e.message}`);
  process.exit(1);
}

const results = [];
for (const file of process.argv.slice(2)) {
  const bytes = new Uint8Array(await readFile(file));
  const report = await validator.validateBytes(bytes, {
    uri: path.basename(file),
    maxIssues: 1000,
    externalResourceFunction: (uri) =>
      readFile(path.resolve(path.dirname(file), decodeURIComponent(uri))).then((b) => new Uint8Array(b)),
  });
  const issues = report.issues;
  results.push({
    file,
    errors: issues.numErrors,
    warnings: issues.numWarnings,
    infos: issues.numInfos,
    hints: issues.numHints,
    messages: issues.messages.map((m) => ({ code: m.code, severity: m.severity, pointer: m.pointer ?? null, message: m.message })),
  });
}
console.log(JSON.stringify(results, null, 1));
