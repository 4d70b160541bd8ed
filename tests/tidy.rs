//! Architecture invariants (ARCHITECTURE.md), checked on the source text:
//! 1. the core (`model`, `rig`, `skinning`, `paint`, `io`, `maths`, `analysis`, `bind`, `canvas`, `thumbnail`, `prefetch`, `cli` but its
//!    GUI entry points) never uses egui, eframe, three-d, glow or rfd;
//! 2. the `gltf` crate appears only in `io/`;
//! 3. `nalgebra` appears only in `maths/`, `faer` only in `bind/`;
//! 4. `render` never uses egui, eframe or rfd (so `skinlab render` runs without a window).
#![allow(clippy::unwrap_used, missing_docs)]

use std::path::{Path, PathBuf};

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
    let gui_crates = ["egui", "eframe", "three_d", "glow", "rfd", "glutin"];
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
                | "canvas"
                | "thumbnail"
                | "prefetch"
        );
        for krate in gui_crates {
            let hits = mentions(&text, krate);
            if core && !hits.is_empty() {
                problems.push(format!("{name}: core module uses {krate}: {}", hits[0].trim()));
            }
            if module == "render" && matches!(krate, "egui" | "eframe" | "rfd") && !hits.is_empty() {
                problems.push(format!("{name}: render uses {krate}: {}", hits[0].trim()));
            }
        }
        if module != "io" {
            if let Some(hit) = mentions(&text, "gltf").first() {
                problems.push(format!("{name}: gltf outside io/: {}", hit.trim()));
            }
        }
        if module != "bind" {
            if let Some(hit) = mentions(&text, "faer").first() {
                problems.push(format!("{name}: faer outside bind/: {}", hit.trim()));
            }
        }
        if module != "maths" {
            if let Some(hit) = mentions(&text, "nalgebra").first() {
                problems.push(format!("{name}: nalgebra outside maths/: {}", hit.trim()));
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
