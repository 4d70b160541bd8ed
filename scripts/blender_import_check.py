"""Imports a glTF into Blender (headless) and prints what a rigger checks: per armature its bone
count and each bone's name, parent, head and tail; per mesh its vertex count, vertex groups and
modifiers; per action (each glTF clip), the frames it spans and how far the skinned meshes'
vertices move from its first frame to its middle and last frames (the armature modifier
evaluated), and the helper joints (`.sbs1`, `.dqs1`, `.sbsc1`: an emulated export) among the bones.
Exits with status 1 when the import fails, yields no armature, or a clip plays non-finite
positions.

Usage: blender -b --factory-startup --python scripts/blender_import_check.py -- FILE.glb
"""
import math
import re
import sys

import numpy as np

# Blender 3.4's glTF importer still uses np.bool, which Debian's numpy (1.24) no longer has.
if not hasattr(np, "bool"):
    np.bool = bool

import bpy  # noqa: E402

path = sys.argv[sys.argv.index("--") + 1]
bpy.ops.wm.read_factory_settings(use_empty=True)
bpy.ops.import_scene.gltf(filepath=path)
armatures = [o for o in bpy.data.objects if o.type == "ARMATURE"]
for a in armatures:
    print(f"ARMATURE {a.name}: {len(a.data.bones)} bones")
    for b in a.data.bones:
        head = ", ".join(f"{x:.4f}" for x in b.head_local)
        tail = ", ".join(f"{x:.4f}" for x in b.tail_local)
        parent = b.parent.name if b.parent else "-"
        print(f"  BONE {b.name} parent={parent} head=({head}) tail=({tail})")
for m in (o for o in bpy.data.objects if o.type == "MESH"):
    groups = ", ".join(g.name for g in m.vertex_groups)
    mods = ", ".join(md.type for md in m.modifiers)
    print(f"MESH {m.name}: {len(m.data.vertices)} vertices; groups: {groups}; modifiers: {mods}")
helpers = [b.name for a in armatures for b in a.data.bones if re.search(r"\.(sbs|dqs|sbsc)\d+$", b.name)]
print(f"HELPERS {len(helpers)}")


def skinned_positions():
    """Every skinned mesh's evaluated vertex positions (world), flattened."""
    depsgraph = bpy.context.evaluated_depsgraph_get()
    out = []
    for o in bpy.data.objects:
        if o.type != "MESH" or not any(md.type == "ARMATURE" for md in o.modifiers):
            continue
        evaluated = o.evaluated_get(depsgraph)
        mesh = evaluated.to_mesh()
        out.extend(evaluated.matrix_world @ v.co for v in mesh.vertices)
        evaluated.to_mesh_clear()
    return out


finite = True
scene = bpy.context.scene
for action in bpy.data.actions:
    owner = next((a for a in armatures if action.name.endswith(a.name) or a.animation_data), None)
    if owner is None:
        continue
    owner.animation_data_create()
    owner.animation_data.action = action
    first, last = (int(math.floor(f)) for f in action.frame_range)
    scene.frame_set(first)
    start = skinned_positions()
    moved = []
    for frame in (first + (last - first) // 2, last):
        scene.frame_set(frame)
        now = skinned_positions()
        finite &= all(math.isfinite(c) for p in now for c in p)
        moved.append(max(((p - q).length for p, q in zip(now, start)), default=0.0))
    print(f"ACTION {action.name}: frames {first}..{last}; largest vertex move to middle {moved[0]:.4f}, to end {moved[1]:.4f}")
sys.exit(0 if armatures and finite else 1)
