#!/usr/bin/env bash
# The automatic-weights quality table of BENCHMARKS.md: for every model in ../shared/models, the
# artist's weights against skinlab's automatic weights (`skinlab bind`, when this build has it) and
# against Blender 3.4's bone heat with both bone heuristics (scripts/blender_autoweights.py), each
# compared by `skinlab weights compare` (default poses: every clip at 10 times, or 10 seeded random
# poses without clips). A second table repeats the Blender rows with the shared note's pose recipe
# (`--poses note`) to check them against shared/notes/blender-autoweights.md.
#   bash scripts/autoweights_table.sh [MODEL ...]      (needs: blender, python3-numpy; a release build)
# Prints Markdown on stdout; the progress goes to stderr, the files to a temporary folder.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --locked --quiet
skinlab=target/release/skinlab
models=("$@")
if [[ ${#models[@]} -eq 0 ]]; then
    models=(../shared/models/*.glb ../shared/models/*.gltf)
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
have_bind=0
if "$skinlab" bind --help >/dev/null 2>&1; then have_bind=1; fi
now() { date +%s.%N; }

rows="$work/rows.jsonl"
: >"$rows"
for model in "${models[@]}"; do
    name=$(basename "${model%.*}")
    echo "== $name" >&2
    if [[ $have_bind == 1 ]]; then
        out="$work/$name-skinlab.glb"
        start=$(now)
        if "$skinlab" bind "$model" --out "$out" >"$work/$name-bind.log" 2>&1; then
            secs=$(/usr/bin/python3 -c "print(round($(now) - $start, 3))")
            for poses in auto note; do
                "$skinlab" weights compare "$model" "$out" --json --poses "$poses" >"$work/c.json"
                /usr/bin/python3 - "$work/c.json" "$name" "skinlab bind" "$secs" "[]" "$poses" >>"$rows" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
print(json.dumps({"model": sys.argv[2], "method": sys.argv[3], "seconds": float(sys.argv[4]),
                  "failed": json.loads(sys.argv[5]), "poses": sys.argv[6], "compare": c}))
PY
            done
        else
            echo "skinlab bind failed on $name: $(tail -1 "$work/$name-bind.log")" >&2
            echo "{\"model\": \"$name\", \"method\": \"skinlab bind\", \"error\": true}" >>"$rows"
        fi
    fi
    for heuristic in TEMPERANCE BLENDER; do
        out="$work/$name-$heuristic.glb"
        blender -b --factory-startup --python scripts/blender_autoweights.py -- "$model" "$out" \
            --heuristic "$heuristic" >"$work/$name-$heuristic.log" 2>&1
        summary=$(grep -o 'skinlab-blender: .*' "$work/$name-$heuristic.log" | cut -d' ' -f2-)
        for poses in auto note; do
            "$skinlab" weights compare "$model" "$out" --json --poses "$poses" >"$work/c.json"
            /usr/bin/python3 - "$work/c.json" "$name" "Blender $heuristic" "$summary" "$poses" >>"$rows" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
s = json.loads(sys.argv[4])
print(json.dumps({"model": sys.argv[2], "method": sys.argv[3], "seconds": s["seconds"],
                  "failed": s["failed_meshes"], "meshes": len(s["meshes"]), "poses": sys.argv[5], "compare": c}))
PY
        done
    done
done

/usr/bin/python3 - "$rows" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
def table(poses, title):
    print("### " + title + "\n")
    print("| model | vertices | weights | meshes where it failed | vertices left without weight | weight L1 mean | precision / recall | deformation mean | deformation max | seconds |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        if r.get("error"):
            if poses == "auto":
                print("| %s | | %s | **error** | | | | | | |" % (r["model"], r["method"]))
            continue
        if r["poses"] != poses:
            continue
        c = r["compare"]
        n = c["vertices"]
        u = c["unweighted_compared"]
        failed = "%d of %d" % (len(r["failed"]), r.get("meshes", c["skinned_meshes"]))
        print("| %s | %d | %s | %s | %d (%.1f %%) | %.3f | %.2f / %.2f | %.2f %% | %.1f %% | %.2f |" % (
            r["model"], n, r["method"], failed, u, 100.0 * u / max(n, 1), c["weights"]["l1_mean"],
            c["weights"]["precision"], c["weights"]["recall"], 100 * c["deformation"]["mean"],
            100 * c["deformation"]["max"], r["seconds"]))
    print()
table("auto", "Against the artist's weights (poses: every clip at 10 times; 10 random poses without clips)")
table("note", "The same, with the shared note's poses (10 random, seed 1, + 5 times of the first clip)")
PY
