// Loads each glTF file given with three.js's GLTFLoader (npm `three`, installed into target/tools
// by scripts/setup.sh) in Node, as a web page would, and prints one JSON array with a summary per
// file:
//   [{"file", "ok", "error" (the loader's message, or null), "warnings" (console.warn lines),
//     "meshes", "skinnedMeshes", "bones", "vertices", "clips", "tracks", "textures"}]
// Every vertex attribute of every mesh is read back element by element (interleaved views
// included: a view shorter than count × stride makes the loader throw `RangeError: Invalid typed
// array length`), every skinned mesh's skin must be complete (skinIndex/skinWeight as long as the
// positions, weights finite, every joint index inside its skeleton), and every animation track is
// built and its keyframes read (and sampled at the times THREE_SAMPLE_TIMES lists, if set).
// Node has no DOM: ProgressEvent is stubbed and images are not decoded. A loader plugin answers texture requests with an empty
// three.js Texture after loading the image's bytes (its buffer view, data URI or file), so
// materials, samplers' targets and the bytes are still exercised, only the pixels are not.
// External files (.bin, images) are read from beside each file.
// Exit status: 0 when every file was tried (whatever the outcome), 1 when three.js cannot be loaded.
// Usage: node scripts/three_load.mjs FILE.glb [FILE.gltf ...]
import { readFileSync } from 'node:fs';
import path from 'node:path';

import { loadThree } from './three_node.mjs';

const { THREE, GLTFLoader } = await loadThree('three_load');

// The loader's warnings go to the current file's report (and not to stdout, which holds the JSON).
let warnings = [];
console.warn = (...args) => warnings.push(args.map(String).join(' '));
console.log = console.warn;

/// A data URI holding the file `url` names (relative URIs were resolved against the file's folder).
function asDataUri(url) {
  if (url.startsWith('data:') || url.startsWith('blob:')) return url;
  const bytes = readFileSync(decodeURIComponent(url));
  return `data:application/octet-stream;base64,${bytes.toString('base64')}`;
}

/// Texture requests load the image's bytes and answer an empty texture (no image decoder in Node).
class BytesOnlyTextures {
  constructor(parser) {
    this.parser = parser;
    this.name = 'skinlab_bytes_only_textures';
  }

  loadTexture(index) {
    const parser = this.parser;
    const def = parser.json.textures[index];
    const source = def.source ?? Object.values(def.extensions ?? {}).find((e) => e.source !== undefined)?.source;
    const image = source === undefined ? undefined : parser.json.images?.[source];
    if (image === undefined) return Promise.reject(new Error(`texture ${index} has no image`));
    let bytes;
    if (image.bufferView !== undefined) {
      bytes = parser.getDependency('bufferView', image.bufferView);
    } else {
      const url = THREE.LoaderUtils.resolveURL(image.uri, parser.options.path);
      bytes = new Promise((resolve, reject) => parser.fileLoader.load(asDataUri(url), resolve, undefined, reject));
    }
    return bytes.then((data) => {
      if (!(data instanceof ArrayBuffer) || data.byteLength === 0) throw new Error(`image ${source} has no bytes`);
      const texture = new THREE.Texture();
      texture.name = def.name || image.name || '';
      return texture;
    });
  }
}

/// Reads every element of `attribute` (interleaved or not); returns false on a non-finite value.
function readAll(attribute) {
  for (let i = 0; i < attribute.count; i++) {
    for (let c = 0; c < attribute.itemSize; c++) {
      if (!Number.isFinite(attribute.getComponent(i, c))) return false;
    }
  }
  return true;
}

/// Checks what a renderer would rely on; throws with a message on the first problem.
function inspect(gltf, summary) {
  const bones = new Set();
  gltf.scene.traverse((o) => {
    if (!o.isMesh) return;
    summary.meshes += 1;
    const g = o.geometry;
    const n = g.attributes.position?.count ?? 0;
    summary.vertices += n;
    for (const [name, attribute] of Object.entries(g.attributes)) {
      if (attribute.count !== n) throw new Error(`${o.name}: ${name} has ${attribute.count} items for ${n} positions`);
      if (!readAll(attribute)) throw new Error(`${o.name}: ${name} holds a non-finite value`);
    }
    if (g.index && !readAll(g.index)) throw new Error(`${o.name}: bad index`);
    if (g.index) {
      for (let i = 0; i < g.index.count; i++) {
        if (g.index.getX(i) >= n) throw new Error(`${o.name}: index ${g.index.getX(i)} past ${n} vertices`);
      }
    }
    if (!o.isSkinnedMesh) return;
    summary.skinnedMeshes += 1;
    const { skinIndex, skinWeight } = g.attributes;
    if (!skinIndex || !skinWeight) throw new Error(`${o.name}: skinned mesh without skinIndex/skinWeight`);
    const joints = o.skeleton.bones.length;
    if (joints === 0) throw new Error(`${o.name}: empty skeleton`);
    for (const b of o.skeleton.bones) bones.add(b);
    for (let v = 0; v < n; v++) {
      for (let c = 0; c < 4; c++) {
        const w = skinWeight.getComponent(v, c);
        if (w !== 0 && skinIndex.getComponent(v, c) >= joints) {
          throw new Error(`${o.name}: vertex ${v} uses joint ${skinIndex.getComponent(v, c)} of ${joints}`);
        }
      }
    }
    if (o.skeleton.boneInverses.some((m) => m.elements.some((x) => !Number.isFinite(x)))) {
      throw new Error(`${o.name}: non-finite inverse bind matrix`);
    }
  });
  summary.bones = bones.size;
  for (const clip of gltf.animations) {
    summary.clips += 1;
    for (const track of clip.tracks) {
      summary.tracks += 1;
      if (track.times.length === 0 || !track.times.every(Number.isFinite) || !track.values.every(Number.isFinite)) {
        throw new Error(`clip ${clip.name}: track ${track.name} has no or non-finite keys`);
      }
      if (sampleTimes.length > 0) {
        // three.js's own interpolant (its cubic-spline quaternions normalised, as glTF asks).
        const interpolant = track.createInterpolant();
        summary.samples[`${clip.name}/${track.name}`] = sampleTimes.map((t) => Array.from(interpolant.evaluate(t)));
      }
    }
  }
}

// THREE_SAMPLE_TIMES="0,0.5,..." adds "samples": {"clip/track": [[values at each time], ...]}.
const sampleTimes = (process.env.THREE_SAMPLE_TIMES ?? '').split(',').filter((t) => t !== '').map(Number);

const results = [];
for (const file of process.argv.slice(2)) {
  warnings = [];
  const summary = {
    file, ok: false, error: null, warnings, meshes: 0, skinnedMeshes: 0, bones: 0, vertices: 0, clips: 0,
    tracks: 0, textures: 0, samples: {},
  };
  try {
    const bytes = readFileSync(file);
    const data = bytes.subarray(0, 4).toString('latin1') === 'glTF'
      ? bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength)
      : bytes.toString('utf8');
    const manager = new THREE.LoadingManager();
    manager.setURLModifier(asDataUri);
    const loader = new GLTFLoader(manager);
    loader.register((parser) => new BytesOnlyTextures(parser));
    const gltf = await loader.parseAsync(data, path.dirname(path.resolve(file)) + path.sep);
    summary.textures = gltf.parser.json.textures?.length ?? 0;
    inspect(gltf, summary);
    summary.ok = true;
  } catch (e) {
    summary.error = `${e?.name ?? 'Error'}: ${e?.message ?? e}`;
  }
  results.push(summary);
}
process.stdout.write(JSON.stringify(results, null, 1) + '\n');
