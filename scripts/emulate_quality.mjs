// How closely three.js plays an emulated export: for each model, the plain export, the emulated one
// (`skinlab export --emulate`) and the emulated one with `--exact` are played by three.js's
// AnimationMixer (scripts/three_pose.mjs) at midpoints between the exported keys (where a runtime
// interpolates) and, for --exact, at keys; each is compared with the target method of skinlab
// (`skinlab deform`) on the source. A model without clips gets a range-of-motion clip first
// (`skinlab rom`). Distances are shares of the rest pose's bounding-box diagonal; RMS over every
// vertex at every measured time, worst the largest single vertex distance. Prints one Markdown
// table row per model, and where the worst emulated vertex lies (its source joints and weights).
// Usage: node scripts/emulate_quality.mjs [--method sbs] [--helpers N] [--clips K] [--times T]
//          [--no-exact] [MODEL ...]        (default: every model in ../shared/models)
//   --clips K: fit and measure at most the first K clips of a model (default 6);
//   --times T: midpoints measured per clip, at low-discrepancy positions among its keys (default 6, and at least one per
//   second of the clip).
// Needs a release build (target/release/skinlab) and scripts/setup.sh's node tools.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.join(here, '..');
const skinlab = process.env.SKINLAB || path.join(root, 'target', 'release', 'skinlab');
const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const k = args.indexOf(name);
  if (k < 0) return fallback;
  const v = args[k + 1];
  args.splice(k, 2);
  return v;
};
const method = opt('--method', 'sbs');
const helpers = opt('--helpers', null);
const maxClips = Number(opt('--clips', '6'));
const perClip = Number(opt('--times', '6'));
const noExact = args.includes('--no-exact');
const models = args.filter((a) => a !== '--no-exact');
if (models.length === 0) {
  const dir = path.join(root, '..', 'shared', 'models');
  for (const f of readdirSync(dir).sort()) if (/\.(glb|gltf)$/.test(f)) models.push(path.join(dir, f));
}
const work = mkdtempSync(path.join(os.tmpdir(), 'emulate-quality-'));

const run = (cmd, argv) => execFileSync(cmd, argv, { maxBuffer: 1 << 30, stdio: ['ignore', 'pipe', 'pipe'] }).toString();

/// The glTF JSON and BIN chunk of a .glb (or the JSON of a .gltf with data URIs).
function readGltf(file) {
  const bytes = readFileSync(file);
  if (bytes.subarray(0, 4).toString('latin1') !== 'glTF') {
    const json = JSON.parse(bytes.toString('utf8'));
    const uri = json.buffers?.[0]?.uri ?? '';
    return { json, bin: Buffer.from(uri.slice(uri.indexOf(',') + 1), 'base64') };
  }
  const jsonLen = bytes.readUInt32LE(12);
  const json = JSON.parse(bytes.subarray(20, 20 + jsonLen).toString('utf8'));
  const binStart = 20 + jsonLen;
  const bin = binStart + 8 <= bytes.length ? bytes.subarray(binStart + 8, binStart + 8 + bytes.readUInt32LE(binStart)) : null;
  return { json, bin };
}

/// An accessor's numbers as a flat array (float32 or unsigned integers; no sparse accessors).
function accessor({ json, bin }, index) {
  const a = json.accessors[index];
  const view = json.bufferViews[a.bufferView];
  const comps = { SCALAR: 1, VEC2: 2, VEC3: 3, VEC4: 4, MAT4: 16 }[a.type];
  const size = { 5126: 4, 5125: 4, 5123: 2, 5121: 1 }[a.componentType];
  const stride = view.byteStride ?? comps * size;
  const base = (view.byteOffset ?? 0) + (a.byteOffset ?? 0);
  const read = { 5126: 'readFloatLE', 5125: 'readUInt32LE', 5123: 'readUInt16LE', 5121: 'readUInt8' }[a.componentType];
  const out = [];
  for (let i = 0; i < a.count; i++) for (let c = 0; c < comps; c++) out.push(bin[read](base + i * stride + c * size));
  return out;
}

/// The exported key times of a clip: the input of its first helper channel (of its first channel
/// when it has no helper).
function helperKeyTimes(gltf, clip) {
  const anim = gltf.json.animations[clip];
  const ch = anim.channels.find((c) => /\.(sbs|dqs|sbsc)\d+$/.test(gltf.json.nodes[c.target.node]?.name ?? ''))
    ?? anim.channels[0];
  return ch ? accessor(gltf, anim.samplers[ch.sampler].input) : [];
}

/// skinlab's positions (OBJ order) of `file` at `clip`/`time` by `how`, by node name and primitive.
function skinlabPositions(file, how, clip, time) {
  const obj = path.join(work, 'target.obj');
  const extra = clip === null ? [] : ['--animation', clip, '--time', String(time)];
  run(skinlab, ['deform', file, '--method', how, '--out', obj, ...extra]);
  const groups = new Map();
  let current = null;
  for (const line of readFileSync(obj, 'utf8').split('\n')) {
    if (line.startsWith('o ')) {
      current = [];
      groups.set(line.slice(2), current);
    } else if (line.startsWith('v ')) {
      current.push(...line.slice(2).split(' ').map(Number));
    }
  }
  return groups;
}

/// three.js's positions of `file` playing `clip` at `times`, keyed like skinlab's groups.
function threePositions(file, clip, times, gltf) {
  const report = JSON.parse(run('node', [path.join(here, 'three_pose.mjs'), file, clip, ...times.map(String)]));
  if (report.warnings.length) throw new Error(`${file}: three.js warned: ${report.warnings.join('; ')}`);
  const perTime = times.map(() => new Map());
  for (const m of report.meshes) {
    const nodeIndex = gltf.json.nodes.findIndex((n) => n.mesh === m.mesh && n.skin !== undefined);
    const key = `${gltf.json.nodes[nodeIndex].name || `#${nodeIndex}`}/${m.primitive}`;
    m.positions.forEach((flat, k) => {
      const e = m.world[k];
      const world = new Array(flat.length);
      for (let i = 0; i < flat.length; i += 3) {
        const [x, y, z] = [flat[i], flat[i + 1], flat[i + 2]];
        for (let r = 0; r < 3; r++) world[i + r] = e[r] * x + e[4 + r] * y + e[8 + r] * z + e[12 + r];
      }
      perTime[k].set(key, world);
    });
  }
  return perTime;
}

function diagonalOf(groups) {
  const lo = [Infinity, Infinity, Infinity];
  const hi = [-Infinity, -Infinity, -Infinity];
  for (const flat of groups.values()) {
    for (let i = 0; i < flat.length; i++) {
      lo[i % 3] = Math.min(lo[i % 3], flat[i]);
      hi[i % 3] = Math.max(hi[i % 3], flat[i]);
    }
  }
  return Math.hypot(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]);
}

class Stats {
  constructor() { Object.assign(this, { n: 0, sq: 0, worst: 0, where: null }); }
  add(target, got, time) {
    for (const [key, y] of target) {
      const p = got.get(key);
      if (!p) throw new Error(`three.js has no ${key}`);
      for (let i = 0; i < y.length; i += 3) {
        const d = Math.hypot(y[i] - p[i], y[i + 1] - p[i + 1], y[i + 2] - p[i + 2]);
        this.n += 1;
        this.sq += d * d;
        if (d > this.worst) Object.assign(this, { worst: d, where: { key, vertex: i / 3, time } });
      }
    }
  }
  rms() { return Math.sqrt(this.sq / Math.max(this.n, 1)); }
}

/// The source joints and weights of the worst vertex (`key` = node name/primitive).
function weightsAt(gltf, where) {
  const [nodeName, prim] = where.key.split('/');
  const node = gltf.json.nodes.find((n, i) => (n.name || `#${i}`) === nodeName && n.skin !== undefined);
  const attrs = gltf.json.meshes[node.mesh].primitives[Number(prim)].attributes;
  const joints = accessor(gltf, attrs.JOINTS_0).slice(4 * where.vertex, 4 * where.vertex + 4);
  const weights = accessor(gltf, attrs.WEIGHTS_0).slice(4 * where.vertex, 4 * where.vertex + 4);
  const names = gltf.json.skins[node.skin].joints.map((j) => gltf.json.nodes[j].name);
  return joints.map((j, k) => [names[j], weights[k]]).filter((p) => p[1] > 0)
    .map(([n, w]) => `${n} ${w.toFixed(2)}`).join(' / ');
}

const pct = (x, d) => `${(100 * x / d).toPrecision(2)} %`;
console.log('| model (clips measured) | helpers | plain LBS RMS / worst | helpers RMS / worst (RMS share) | --exact between keys RMS / worst (share of LBS) | --exact at keys worst (of the diagonal) | fit s |');
console.log('|---|---|---|---|---|---|---|');
const notes = [];
for (const model of models) {
  const name = path.basename(model).replace(/\.(glb|gltf)$/, '');
  let source = model;
  let sourceGltf = readGltf(source);
  if (!(sourceGltf.json.animations?.length)) {
    source = path.join(work, `${name}.rom.glb`);
    run(skinlab, ['rom', model, '--out', source]);
    sourceGltf = readGltf(source);
  }
  // skinlab names a clip by its name or #N; three.js calls an unnamed clip animation_N.
  const clips = sourceGltf.json.animations.slice(0, maxClips)
    .map((a, k) => ({ index: k, key: a.name || `#${k}`, three: a.name || `animation_${k}` }));
  if (clips.some((c) => c.key.includes(','))) {
    notes.push(`${name}: skipped (a clip name with a comma)`);
    continue;
  }
  const plain = path.join(work, `${name}.plain.glb`);
  const emulated = path.join(work, `${name}.emulated.glb`);
  const exact = path.join(work, `${name}.exact.glb`);
  const report = path.join(work, `${name}.json`);
  run(skinlab, ['export', source, '--out', plain]);
  const common = ['--emulate', method, '--clips', clips.map((c) => c.key).join(','), ...(helpers ? ['--helpers', helpers] : [])];
  run(skinlab, ['export', source, '--out', emulated, ...common, '--report', report]);
  if (!noExact) run(skinlab, ['export', source, '--out', exact, ...common, '--exact']);
  const r = JSON.parse(readFileSync(report, 'utf8'));
  const emulatedGltf = readGltf(emulated);
  const diagonal = diagonalOf(skinlabPositions(source, 'lbs', null, 0));
  const s = { plain: new Stats(), emulated: new Stats(), exact: new Stats(), exactKeys: new Stats() };
  for (const clip of clips) {
    const keys = helperKeyTimes(emulatedGltf, clip.index);
    if (keys.length < 2) continue;
    const mids = [];
    const count = Math.max(perClip, Math.ceil(keys[keys.length - 1] - keys[0]));
    // Golden-ratio (low-discrepancy) positions: an even grid would fall at one phase of a
    // periodic clip (a range-of-motion clip rests at every half second).
    for (let k = 0; k < count; k++) {
      const u = ((k + 1) * 0.6180339887498949) % 1;
      const i = Math.min(keys.length - 2, Math.floor(u * (keys.length - 1)));
      mids.push(0.5 * (keys[i] + keys[i + 1]));
    }
    const atKeys = [keys[1], keys[Math.floor(keys.length / 2)]];
    const targets = mids.map((t) => skinlabPositions(source, method, clip.key, t));
    const files = [['plain', plain, mids], ['emulated', emulated, mids]];
    if (!noExact) files.push(['exact', exact, mids], ['exactKeys', exact, atKeys]);
    for (const [which, file, times] of files) {
      const got = threePositions(file, clip.three, times, readGltf(file));
      const want = which === 'exactKeys' ? times.map((t) => skinlabPositions(source, method, clip.key, t)) : targets;
      times.forEach((t, k) => s[which].add(want[k], got[k], `${clip.key} @ ${t.toFixed(3)} s`));
    }
  }
  const share = (a, b) => (b > 0 ? `${(100 * a / b).toFixed(1)} %` : '—');
  const exactCells = noExact ? ['—', '—'] : [
    `${pct(s.exact.rms(), diagonal)} / ${pct(s.exact.worst, diagonal)} (${share(s.exact.rms(), s.plain.rms())} / ${share(s.exact.worst, s.plain.worst)})`,
    (s.exactKeys.worst / diagonal).toExponential(1),
  ];
  console.log(`| ${name} (${clips.length}) | ${r.helpers_added} | ${pct(s.plain.rms(), diagonal)} / ${pct(s.plain.worst, diagonal)} | ${pct(s.emulated.rms(), diagonal)} / ${pct(s.emulated.worst, diagonal)} (${share(s.emulated.rms(), s.plain.rms())}) | ${exactCells[0]} | ${exactCells[1]} | ${r.fit_seconds.toFixed(1)} |`);
  if (s.emulated.where) {
    notes.push(`${name}: worst with helpers ${pct(s.emulated.worst, diagonal)} at ${s.emulated.where.key} vertex ${s.emulated.where.vertex} (${s.emulated.where.time}); source weights ${weightsAt(readGltf(plain), s.emulated.where)}`);
  }
}
for (const n of notes) console.log(`\n- ${n}`);
rmSync(work, { recursive: true, force: true });
