"""Blender's automatic weights (bone heat) on a glTF model, written back in the model's own vertex order.

Run headless by Blender 3.4 (Debian's `blender` package):

    blender -b --factory-startup --python scripts/blender_autoweights.py -- IN.glb OUT.glb [--heuristic TEMPERANCE|BLENDER]

For every skinned mesh of IN (each mesh once, at its first skinned node), the imported copy loses its
vertex groups and is parented to the same armature with *Parent > With Automatic Weights*
(bpy.ops.object.parent_set(type='ARMATURE_AUTO')), the armature in its rest (= bind) pose. The new
weights are then written into a copy of IN: only JOINTS_n/WEIGHTS_n of the skinned primitives change
(every influence Blender gave, up to 16, in JOINTS_0.. sets of four), so OUT has IN's nodes, vertices
and order and `skinlab weights compare IN OUT` compares the weights alone.

Vertex order: Blender's importer (merge_vertices off, the default) makes one Blender vertex per glTF
vertex that an index uses, primitive after primitive, in increasing index (numpy.unique of the
indices). The script rebuilds that map itself and checks it: equal vertex counts and every Blender
face equal to a glTF triangle under the map. Meshes, nodes and bones are found through extras
(`skinlab_node`, `skinlab_mesh`) added to a temporary copy of IN before import, never by name.

A vertex that Blender leaves without weight ("Bone Heat Weighting: failed to find solution for one or
more bones", or a part no bone sees) gets all-zero weights, which skinlab reads as "not moved". The
last stdout line is `skinlab-blender: {json}` with per-mesh results, the failed meshes and the seconds
spent in parent_set alone.
"""

import base64
import ctypes
import json
import os
import struct
import sys
import tempfile
import time

import bpy
import numpy as np

# Blender 3.4's glTF importer still uses np.bool, which Debian's numpy (1.24) no longer has.
if "bool" not in np.__dict__:
    np.bool = bool

COMPONENT = {5120: np.int8, 5121: np.uint8, 5122: np.int16, 5123: np.uint16, 5125: np.uint32, 5126: np.float32}
WIDTH = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4, "MAT4": 16}
MAX_INFLUENCES = 16
FAILED = "failed to find solution"


def fail(message):
    print("error: " + message, file=sys.stderr)
    sys.exit(2)


def read_gltf(path):
    """The glTF JSON and every buffer's bytes (GLB chunk, data URI or file beside it)."""
    with open(path, "rb") as f:
        data = f.read()
    bin_chunk = None
    if data[:4] == b"glTF":
        json_len = struct.unpack_from("<I", data, 12)[0]
        doc = json.loads(data[20:20 + json_len])
        at = 20 + json_len
        if at + 8 <= len(data):
            bin_len = struct.unpack_from("<I", data, at)[0]
            bin_chunk = data[at + 8:at + 8 + bin_len]
    else:
        doc = json.loads(data)
    buffers = []
    for i, b in enumerate(doc.get("buffers", [])):
        uri = b.get("uri")
        if uri is None:
            if bin_chunk is None:
                fail("%s: buffer %d has no uri and there is no BIN chunk" % (path, i))
            buffers.append(bytes(bin_chunk))
        elif uri.startswith("data:"):
            buffers.append(base64.b64decode(uri.split(",", 1)[1]))
        else:
            with open(os.path.join(os.path.dirname(path), uri), "rb") as f:
                buffers.append(f.read())
    return doc, buffers


def read_accessor(doc, buffers, index):
    acc = doc["accessors"][index]
    dtype = np.dtype(COMPONENT[acc["componentType"]])
    width = WIDTH[acc["type"]]
    count = acc["count"]
    if "bufferView" not in acc:
        return np.zeros((count, width), dtype=dtype)
    view = doc["bufferViews"][acc["bufferView"]]
    start = view.get("byteOffset", 0) + acc.get("byteOffset", 0)
    stride = view.get("byteStride", dtype.itemsize * width)
    raw = buffers[view["buffer"]]
    out = np.empty((count, width), dtype=dtype)
    for k in range(width):
        out[:, k] = np.ndarray((count,), dtype=dtype, buffer=raw, offset=start + k * dtype.itemsize, strides=(stride,))
    return out


def triangles_of(doc, buffers, prim):
    """The primitive's index list as Blender's importer reads it (triangles for modes 4-6)."""
    if "indices" in prim:
        idx = read_accessor(doc, buffers, prim["indices"]).reshape(-1).astype(np.int64)
    else:
        idx = np.arange(doc["accessors"][prim["attributes"]["POSITION"]]["count"], dtype=np.int64)
    mode = prim.get("mode", 4)
    if mode == 4:
        return idx.reshape(-1, 3)
    if mode == 5:
        tris = [(idx[i], idx[i + 1], idx[i + 2]) if i % 2 == 0 else (idx[i + 1], idx[i], idx[i + 2]) for i in range(len(idx) - 2)]
        return np.array(tris, dtype=np.int64).reshape(-1, 3)
    if mode == 6:
        tris = [(idx[i], idx[i + 1], idx[0]) for i in range(1, len(idx) - 1)]
        return np.array(tris, dtype=np.int64).reshape(-1, 3)
    return None  # points and lines: their indices are kept, without faces


def write_glb(path, doc, blob):
    body = json.dumps(doc, separators=(",", ":")).encode()
    body += b" " * (-len(body) % 4)
    blob = blob + b"\0" * (-len(blob) % 4)
    total = 12 + 8 + len(body) + 8 + len(blob)
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(struct.pack("<III", 0x46546C67, 2, total))
        f.write(struct.pack("<II", len(body), 0x4E4F534A) + body)
        f.write(struct.pack("<II", len(blob), 0x004E4942) + blob)
    os.replace(tmp, path)


def repack(doc, buffers):
    """One binary blob holding every buffer; bufferViews rewritten to buffer 0."""
    blob = bytearray()
    base = []
    for b in buffers:
        blob += b"\0" * (-len(blob) % 8)
        base.append(len(blob))
        blob += b
    for view in doc.get("bufferViews", []):
        view["byteOffset"] = view.get("byteOffset", 0) + base[view["buffer"]]
        view["buffer"] = 0
    doc["buffers"] = [{"byteLength": len(blob)}]
    return blob


def add_accessor(doc, blob, array, component, kind):
    blob += b"\0" * (-len(blob) % 8)
    doc["bufferViews"].append({"buffer": 0, "byteOffset": len(blob), "byteLength": array.nbytes})
    blob += array.tobytes()
    acc = {"bufferView": len(doc["bufferViews"]) - 1, "componentType": component, "count": int(array.shape[0]), "type": kind}
    doc["accessors"].append(acc)
    doc["buffers"][0]["byteLength"] = len(blob)
    return len(doc["accessors"]) - 1


class Captured:
    """Everything written to the process's stdout and stderr (C printf included) while inside."""

    def __enter__(self):
        self.libc = ctypes.CDLL(None)
        sys.stdout.flush()
        sys.stderr.flush()
        self.libc.fflush(None)
        self.file = tempfile.TemporaryFile()
        self.saved = (os.dup(1), os.dup(2))
        os.dup2(self.file.fileno(), 1)
        os.dup2(self.file.fileno(), 2)
        return self

    def __exit__(self, *exc):
        sys.stdout.flush()
        sys.stderr.flush()
        self.libc.fflush(None)
        os.dup2(self.saved[0], 1)
        os.dup2(self.saved[1], 2)
        os.close(self.saved[0])
        os.close(self.saved[1])
        self.file.seek(0)
        self.text = self.file.read().decode("utf-8", "replace")
        self.file.close()
        sys.stdout.write(self.text)
        return False


def main():
    argv = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else []
    heuristic = "TEMPERANCE"
    if "--heuristic" in argv:
        i = argv.index("--heuristic")
        if i + 1 >= len(argv) or argv[i + 1] not in ("TEMPERANCE", "BLENDER", "FORTUNE"):
            fail("--heuristic takes TEMPERANCE, BLENDER or FORTUNE")
        heuristic = argv[i + 1]
        del argv[i:i + 2]
    if len(argv) != 2:
        fail("usage: blender -b --factory-startup --python blender_autoweights.py -- IN.glb OUT.glb [--heuristic H]")
    src, out = argv
    if not os.path.isfile(src):
        fail("%s: no such file" % src)
    doc, buffers = read_gltf(src)

    # A tagged copy for import: every node and mesh carries its index in its extras.
    tagged = json.loads(json.dumps(doc))
    for key, tag in (("nodes", "skinlab_node"), ("meshes", "skinlab_mesh")):
        for i, item in enumerate(tagged.get(key, [])):
            extras = item.get("extras")
            item["extras"] = dict(extras) if isinstance(extras, dict) else {}
            item["extras"][tag] = i
    blob = repack(tagged, buffers)
    tmpdir = tempfile.mkdtemp(prefix="skinlab-blender-")
    tagged_path = os.path.join(tmpdir, "tagged.glb")
    write_glb(tagged_path, tagged, bytes(blob))

    bpy.ops.wm.read_factory_settings(use_empty=True)
    bpy.ops.import_scene.gltf(filepath=tagged_path, bone_heuristic=heuristic, merge_vertices=False)
    os.remove(tagged_path)
    os.rmdir(tmpdir)

    # The skinned mesh nodes of the default scene, first node of each mesh (skinlab's order).
    scene = doc.get("scenes", [{}])[doc.get("scene", 0)] if doc.get("scenes") else {"nodes": []}
    stack, in_scene = list(scene.get("nodes", [])), set()
    while stack:
        n = stack.pop()
        if n not in in_scene:
            in_scene.add(n)
            stack.extend(doc["nodes"][n].get("children", []))
    first_node_of_mesh = {}
    for n in sorted(in_scene):
        node = doc["nodes"][n]
        if "mesh" in node and "skin" in node and node["mesh"] not in first_node_of_mesh:
            first_node_of_mesh[node["mesh"]] = n
    objects = {}
    for ob in bpy.data.objects:
        if ob.type == "MESH" and "skinlab_node" in ob.keys():
            objects[int(ob["skinlab_node"])] = ob

    results, total_secs = [], 0.0
    new_attributes = {}  # (mesh, prim) -> (joints [n, k], weights [n, k])
    for mesh_idx, node_idx in sorted(first_node_of_mesh.items(), key=lambda kv: kv[1]):
        gmesh = doc["meshes"][mesh_idx]
        skin = doc["skins"][doc["nodes"][node_idx]["skin"]]
        ob = objects.get(node_idx)
        name = doc["nodes"][node_idx].get("name") or "#%d" % node_idx
        if ob is None:
            fail("%s: Blender's importer made no object for skinned mesh node %s" % (src, name))
        arms = [m.object for m in ob.modifiers if m.type == "ARMATURE" and m.object is not None]
        if not arms:
            fail("%s: the imported mesh of node %s has no armature" % (src, name))
        arm = arms[0]

        # Blender vertex k <- (primitive, glTF index); check it against the faces.
        vmap, tri_sets = [], []
        for p, prim in enumerate(gmesh["primitives"]):
            tris = triangles_of(doc, buffers, prim)
            if tris is None:
                if "indices" in prim:
                    used = np.unique(read_accessor(doc, buffers, prim["indices"]).reshape(-1))
                else:
                    used = np.arange(doc["accessors"][prim["attributes"]["POSITION"]]["count"])
            else:
                used = np.unique(tris.reshape(-1))
            base = len(vmap)
            vmap.extend((p, int(i)) for i in used)
            lookup = {int(g): base + k for k, g in enumerate(used)}
            if tris is not None:
                tri_sets.extend(tuple(sorted(lookup[int(g)] for g in t)) for t in tris)
        me = ob.data
        if len(me.vertices) != len(vmap):
            fail("%s: node %s: Blender made %d vertices from %d used glTF vertices (vertex order unknown)"
                 % (src, name, len(me.vertices), len(vmap)))
        known = set(tri_sets)
        bad = sum(1 for poly in me.polygons if tuple(sorted(poly.vertices)) not in known)
        if bad:
            fail("%s: node %s: %d Blender faces do not match the glTF triangles under the vertex map" % (src, name, bad))

        for m in [m for m in ob.modifiers if m.type == "ARMATURE"]:
            ob.modifiers.remove(m)
        ob.vertex_groups.clear()
        arm.data.pose_position = "REST"
        bpy.ops.object.mode_set(mode="OBJECT") if bpy.context.object and bpy.context.object.mode != "OBJECT" else None
        for o in bpy.context.view_layer.objects:
            o.select_set(False)
        ob.hide_set(False)
        arm.hide_set(False)
        ob.select_set(True)
        arm.select_set(True)
        bpy.context.view_layer.objects.active = arm
        with Captured() as cap:
            started = time.perf_counter()
            bpy.ops.object.parent_set(type="ARMATURE_AUTO")
            secs = time.perf_counter() - started
        total_secs += secs
        failed = FAILED in cap.text

        # Vertex groups -> joints of this node's skin.
        joint_of_node = {n: j for j, n in enumerate(skin["joints"])}
        group_joint = {}
        for g in ob.vertex_groups:
            bone = arm.data.bones.get(g.name)
            node = int(bone["skinlab_node"]) if bone is not None and "skinlab_node" in bone.keys() else None
            if node is None or node not in joint_of_node:
                fail("%s: node %s: Blender's group %r is no joint of the skin" % (src, name, g.name))
            group_joint[g.index] = joint_of_node[node]
        counts = {p: doc["accessors"][prim["attributes"]["POSITION"]]["count"] for p, prim in enumerate(gmesh["primitives"])}
        lists = {p: [[] for _ in range(c)] for p, c in counts.items()}
        for k, v in enumerate(me.vertices):
            p, g = vmap[k]
            pairs = [(group_joint[e.group], e.weight) for e in v.groups if e.weight > 0.0 and e.group in group_joint]
            pairs.sort(key=lambda jw: -jw[1])
            lists[p][g] = pairs[:MAX_INFLUENCES]
        unweighted = 0
        for p, verts in lists.items():
            width = max(4, -(-max((len(v) for v in verts), default=0) // 4) * 4)
            joints = np.zeros((len(verts), width), dtype=np.uint16)
            weights = np.zeros((len(verts), width), dtype=np.float32)
            for i, pairs in enumerate(verts):
                total = sum(w for _, w in pairs)
                if total <= 0.0:
                    unweighted += 1
                    continue
                for s, (j, w) in enumerate(pairs):
                    joints[i, s] = j
                    weights[i, s] = w / total
            new_attributes[(mesh_idx, p)] = (joints, weights)
        results.append({"node": name, "mesh": mesh_idx, "vertices": sum(counts.values()), "unweighted": unweighted,
                        "bone_heat_failed": failed, "seconds": round(secs, 4)})

    # OUT: IN with the skinned primitives' JOINTS_n/WEIGHTS_n replaced.
    blob = repack(doc, buffers)
    doc.setdefault("bufferViews", [])
    doc.setdefault("accessors", [])
    for (mesh_idx, p), (joints, weights) in sorted(new_attributes.items()):
        attrs = doc["meshes"][mesh_idx]["primitives"][p]["attributes"]
        for key in [k for k in attrs if k.startswith("JOINTS_") or k.startswith("WEIGHTS_")]:
            del attrs[key]
        for s in range(joints.shape[1] // 4):
            attrs["JOINTS_%d" % s] = add_accessor(doc, blob, np.ascontiguousarray(joints[:, 4 * s:4 * s + 4]), 5123, "VEC4")
            attrs["WEIGHTS_%d" % s] = add_accessor(doc, blob, np.ascontiguousarray(weights[:, 4 * s:4 * s + 4]), 5126, "VEC4")
    doc.setdefault("asset", {})["generator"] = "skinlab scripts/blender_autoweights.py (Blender %s bone heat, %s)" % (
        bpy.app.version_string, heuristic)
    write_glb(out, doc, bytes(blob))
    summary = {"model": src, "out": out, "heuristic": heuristic, "blender": bpy.app.version_string,
               "meshes": results, "failed_meshes": [r["node"] for r in results if r["bone_heat_failed"]],
               "unweighted": sum(r["unweighted"] for r in results), "vertices": sum(r["vertices"] for r in results),
               "seconds": round(total_secs, 4)}
    print("skinlab-blender: " + json.dumps(summary))


main()
