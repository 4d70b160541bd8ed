// Plays one clip of a glTF file with three.js (GLTFLoader + AnimationMixer, as a web page would) at
// the given times and prints, as one JSON object, the skinned position of every vertex of every
// skinned mesh at each time (`SkinnedMesh.getVertexPosition`: morph targets and skinning applied,
// in the mesh's own frame; `world` is the mesh's matrixWorld, column-major, that takes them to the
// scene's frame), with the loader's warnings:
//   {"file", "warnings", "times": [t...], "meshes": [{"name", "primitive", "mesh", "positions": [[x, y, z, ...] per time],
//    "world": [[16 numbers] per time]}]}
// `mesh` and `primitive` are the glTF indices (from the loader's associations). Textures are not
// decoded (Node has no image decoder): each is answered with an empty texture.
// Exit status: 0 on success, 1 when three.js cannot be loaded or the file or clip cannot be read.
// Usage: node scripts/three_pose.mjs FILE.glb CLIP_NAME TIME [TIME ...]
import { readFileSync } from 'node:fs';
import path from 'node:path';

import { loadThree } from './three_node.mjs';

const { THREE, GLTFLoader } = await loadThree('three_pose');

const warnings = [];
console.warn = (...args) => warnings.push(args.map(String).join(' '));
console.log = console.warn;

const [file, clipName, ...timeArgs] = process.argv.slice(2);
const times = timeArgs.map(Number);
try {
  const bytes = readFileSync(file);
  const data = bytes.subarray(0, 4).toString('latin1') === 'glTF'
    ? bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength)
    : bytes.toString('utf8');
  const loader = new GLTFLoader().register(() => ({
    name: 'skinlab_no_textures',
    loadTexture: () => Promise.resolve(new THREE.Texture()),
  }));
  const gltf = await loader.parseAsync(data, path.dirname(path.resolve(file)) + path.sep);
  const clip = gltf.animations.find((c) => c.name === clipName);
  if (!clip) throw new Error(`no clip ${clipName}`);
  const mixer = new THREE.AnimationMixer(gltf.scene);
  const action = mixer.clipAction(clip);
  action.setLoop(THREE.LoopOnce, 1);
  action.clampWhenFinished = true;
  action.play();
  const meshes = [];
  gltf.scene.traverse((o) => {
    if (!o.isSkinnedMesh) return;
    const assoc = gltf.parser.associations.get(o) ?? {};
    meshes.push({ object: o, out: { name: o.name, mesh: assoc.meshes ?? null, primitive: assoc.primitives ?? null, positions: [], world: [] } });
  });
  const v = new THREE.Vector3();
  for (const t of times) {
    mixer.setTime(t);
    gltf.scene.updateMatrixWorld(true);
    for (const { object, out } of meshes) {
      const n = object.geometry.attributes.position.count;
      const flat = new Array(3 * n);
      for (let i = 0; i < n; i++) {
        object.getVertexPosition(i, v);
        flat[3 * i] = v.x;
        flat[3 * i + 1] = v.y;
        flat[3 * i + 2] = v.z;
      }
      out.positions.push(flat);
      out.world.push(object.matrixWorld.elements.slice());
    }
  }
  process.stdout.write(JSON.stringify({ file, warnings, times, meshes: meshes.map((m) => m.out) }) + '\n');
} catch (e) {
  console.error(`three_pose: ${file}: ${e?.message ?? e}`);
  process.exit(1);
}
