"""Imports a glTF into Blender (headless) and prints what a rigger checks: per armature its bone
count and each bone's name, parent, head and tail; per mesh its vertex count, vertex groups and
modifiers. Exits with status 1 when the import fails or yields no armature.

Usage: blender -b --factory-startup --python scripts/blender_import_check.py -- FILE.glb
"""
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
sys.exit(0 if armatures else 1)
