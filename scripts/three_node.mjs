// three.js in Node for the test scripts (three_load.mjs, three_pose.mjs): the DOM's ProgressEvent,
// which FileLoader reports progress with, stubbed; three.js and its GLTFLoader loaded from
// target/tools (installed by scripts/setup.sh) or from $THREE_DIR.
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

globalThis.ProgressEvent ??= class ProgressEvent extends Event {
  constructor(type, init = {}) {
    super(type);
    Object.assign(this, init);
  }
};

/// `{ THREE, GLTFLoader }`; on failure one line naming `who` on stderr and exit status 1.
export async function loadThree(who) {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const threeDir = process.env.THREE_DIR || path.join(here, '..', 'target', 'tools', 'node_modules', 'three');
  try {
    const THREE = await import(pathToFileURL(path.join(threeDir, 'build', 'three.module.js')).href);
    const { GLTFLoader } = await import(
      pathToFileURL(path.join(threeDir, 'examples', 'jsm', 'loaders', 'GLTFLoader.js')).href);
    return { THREE, GLTFLoader };
  } catch (e) {
    console.error(`${who}: cannot load three.js from ${threeDir} (run scripts/setup.sh): ${e.message}`);
    process.exit(1);
  }
}
