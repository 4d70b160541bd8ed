//! Architecture invariants (ARCHITECTURE.md), checked on the source text:
//! 1. the core (`model`, `rig`, `skinning`, `paint`, `io`, `maths`, `analysis`, `bind`, `plot`, `thumbnail`,
//!    `prefetch`, `cli` but its GUI entry points) never uses egui, egui_plot, eframe, three-d, glow or rfd;
//! 2. each crate with one home stays there: `gltf` in `io/`, `nalgebra` in `maths/`, `faer` in `bind/`,
//!    `plotters` in `plot/`, `directories` in `io/`, `indicatif` in `cli/`;
//! 3. `render` never uses egui, egui_plot, eframe or rfd (so `skinlab render` runs without a window);
//! 4. every arrow between top-level modules goes down the layers of ARCHITECTURE.md's `## Layers`
//!    section (read from there; every module of src/ must be in exactly one layer);
//! 5. no files import each other in a circle.
#![allow(clippy::unwrap_used, missing_docs)]

#[path = "common/import_graph.rs"]
mod import_graph;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use import_graph::{layers_of, source_files, top_module, without_test_modules, Graph};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Lines of code (comments dropped) that mention `crate_name` as a path or import.
fn mentions(text: &str, crate_name: &str) -> Vec<String> {
    text.lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .filter(|l| {
            l.contains(&format!("{crate_name}::"))
                && !l.contains(&format!("_{crate_name}::"))
                && !l.contains(&format!("crate::{crate_name}"))
                && !l.contains(&format!("super::{crate_name}"))
        })
        .map(str::to_owned)
        .collect()
}

fn module_of(path: &Path, src: &Path) -> String {
    let rel = path.strip_prefix(src).unwrap();
    let first = rel.components().next().unwrap().as_os_str().to_string_lossy().into_owned();
    first.trim_end_matches(".rs").to_owned()
}

#[test]
fn layering_invariants_hold() {
    let src = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/src"));
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    assert!(files.len() > 10, "found the sources");
    let gui_crates = ["egui", "egui_plot", "eframe", "three_d", "glow", "rfd", "glutin"];
    let homes = [
        ("gltf", "io"),
        ("nalgebra", "maths"),
        ("faer", "bind"),
        ("plotters", "plot"),
        ("directories", "io"),
        ("indicatif", "cli"),
    ];
    let mut problems = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        let module = module_of(file, &src);
        let name = file.strip_prefix(&src).unwrap().display().to_string();
        let core = matches!(
            module.as_str(),
            "model"
                | "rig"
                | "skinning"
                | "paint"
                | "io"
                | "maths"
                | "analysis"
                | "bind"
                | "plot"
                | "thumbnail"
                | "prefetch"
        );
        for krate in gui_crates {
            let hits = mentions(&text, krate);
            if core && !hits.is_empty() {
                problems.push(format!("{name}: core module uses {krate}: {}", hits[0].trim()));
            }
            if module == "render" && matches!(krate, "egui" | "egui_plot" | "eframe" | "rfd") && !hits.is_empty() {
                problems.push(format!("{name}: render uses {krate}: {}", hits[0].trim()));
            }
        }
        for (krate, home) in homes {
            if module != home {
                if let Some(hit) = mentions(&text, krate).first() {
                    problems.push(format!("{name}: {krate} outside {home}/: {}", hit.trim()));
                }
            }
        }
    }
    assert!(problems.is_empty(), "architecture invariants broken:\n{}", problems.join("\n"));
}

#[test]
fn the_checker_sees_a_violation() {
    assert_eq!(mentions("use nalgebra::Matrix3; // x", "nalgebra").len(), 1);
    assert!(mentions("// nalgebra::Matrix3 in a comment", "nalgebra").is_empty());
    assert!(mentions("use crate::io::gltf_import;", "gltf").is_empty());
    assert_eq!(mentions("    let d = gltf::Gltf::from_slice(b)?;", "gltf").len(), 1);
}

#[test]
fn layers_are_kept_and_no_files_import_each_other_in_a_circle() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut paths = Vec::new();
    rust_files(&root.join("src"), &mut paths);
    let files = source_files(&root.join("src"), paths);
    let layers = layers_of(&std::fs::read_to_string(root.join("ARCHITECTURE.md")).unwrap()).unwrap();
    let mut problems = Vec::new();
    let tops: BTreeSet<String> =
        files.keys().filter(|f| *f != "lib.rs" && *f != "main.rs").map(|f| top_module(f)).collect();
    let listed: Vec<&String> = layers.iter().flatten().collect();
    for top in &tops {
        match listed.iter().filter(|m| **m == top).count() {
            0 => problems.push(format!("`{top}` is in no layer of ARCHITECTURE.md")),
            1 => {}
            _ => problems.push(format!("`{top}` is in more than one layer of ARCHITECTURE.md")),
        }
    }
    for m in listed.iter().filter(|m| !tops.contains(**m)) {
        problems.push(format!("ARCHITECTURE.md's layers list `{m}`, which is not a module of src/"));
    }
    let graph = Graph::new(&files).unwrap_or_else(|e| panic!("{e}"));
    problems.extend(graph.upward(&layers).into_iter().map(|u| format!("arrow not down the layers: {u}")));
    problems.extend(graph.circles().into_iter().map(|(path, others)| {
        let also = if others.is_empty() { String::new() } else { format!(" (also in it: {})", others.join(", ")) };
        format!("import circle: {}{also}", path.join(" → "))
    }));
    assert!(problems.is_empty(), "layering broken:\n{}", problems.join("\n"));
}

#[test]
fn the_graph_check_sees_a_circle_and_an_upward_arrow() {
    let files: BTreeMap<String, String> = [
        ("lib.rs", "pub mod low;\npub mod high;\n"),
        // An upward arrow (low uses high) that closes a circle through high's re-export.
        ("low.rs", "//! Low.\nuse crate::high::Thing; // crate::nothing\nconst S: &str = \"super::x\";\nconst C: char = '\\'';\nfn f<'a>(_: &'a str) {}\n/* crate::high */\n"),
        ("high/mod.rs", "mod part;\npub use part::Thing;\nuse part::helper;\n"),
        ("high/part.rs", "use super::super::low;\npub struct Thing;\nfn helper() { crate::low::f(); }\n"),
        // A parent and a child that use each other are not a circle; neither are test modules.
        ("high/other.rs", "use super::Thing;\n#[cfg(test)]\nmod tests {\n    use crate::low::*;\n}\n"),
    ]
    .into_iter()
    .map(|(f, t)| (f.to_owned(), t.to_owned()))
    .collect();
    let graph = Graph::new(&files).unwrap();
    assert_eq!(graph.arrows["low.rs"], BTreeSet::from(["high/part.rs".to_owned()]));
    assert_eq!(graph.arrows["high/mod.rs"], BTreeSet::new());
    assert_eq!(graph.arrows["high/other.rs"], BTreeSet::from(["high/part.rs".to_owned()]));
    let circle = (vec!["high/part.rs".to_owned(), "low.rs".to_owned(), "high/part.rs".to_owned()], Vec::new());
    assert_eq!(graph.circles(), vec![circle]);
    let layers = layers_of("# x\n\n## Layers\n1. `low`: below `y`\n2. `high/`: above\n\n## Next\n3. `x`\n").unwrap();
    assert_eq!(layers, vec![vec!["low".to_owned()], vec!["high".to_owned()]]);
    let upward = graph.upward(&layers);
    assert_eq!(upward.len(), 1, "{upward:?}");
    assert!(upward[0].starts_with("low.rs (layer 1) uses high/part.rs"), "{upward:?}");
    assert!(layers_of("# x\n## Other\n").is_err());
    assert!(without_test_modules("mod inline { }").is_err());
}
