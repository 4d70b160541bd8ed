//! The file-level import graph of src/ and the layers of ARCHITECTURE.md, for `tests/tidy.rs`.
//!
//! The graph is read from the source text: every `crate::`, `super::` and
//! `self::` path (in `use` declarations and in code), resolved to the deepest file it names
//! through the `mod` tree on disk (`foo.rs` or `foo/mod.rs`). Comments, string literals and
//! `#[cfg(test)]` modules are left out: tests may use fixtures from any layer. A path to an
//! item a module file re-exports (`pub use child::Item`) leads to the file that defines it.
//!
//! A module file's own children are not arrows: declaring them (`mod`), calling into them and
//! re-exporting them (`pub use child::…`) is how a parent is made of its children, so only the
//! children's arrows count (a child reading its parent's items through `super::` is one). Every
//! other path is an arrow, a `pub use` from a non-descendant included. `lib.rs` and `main.rs`
//! (the crate root, `crate::outln!`) are aside.
#![allow(clippy::unwrap_used)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A file's code without comments, string and character literals (newlines kept, so
/// positions still fall on their lines).
pub fn code_only(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let blank = |s: &str, out: &mut String| out.extend(s.chars().map(|c| if c == '\n' { '\n' } else { ' ' }));
    while i < b.len() {
        let rest = &text[i..];
        let prev_ident = i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_');
        let end = if rest.starts_with("//") {
            rest.find('\n').unwrap_or(rest.len())
        } else if rest.starts_with("/*") {
            let mut depth = 0;
            let mut j = 0;
            loop {
                if rest[j..].starts_with("/*") {
                    depth += 1;
                    j += 2;
                } else if rest[j..].starts_with("*/") {
                    depth -= 1;
                    j += 2;
                    if depth == 0 {
                        break j;
                    }
                } else if j >= rest.len() {
                    break rest.len();
                } else {
                    j += rest[j..].chars().next().unwrap().len_utf8();
                }
            }
        } else if !prev_ident && (rest.starts_with("r\"") || rest.starts_with("r#") || rest.starts_with("br")) {
            let start = rest.find('r').unwrap() + 1;
            let hashes = rest[start..].bytes().take_while(|&c| c == b'#').count();
            if rest.as_bytes().get(start + hashes) == Some(&b'"') {
                let close = format!("\"{}", "#".repeat(hashes));
                rest[start + hashes + 1..].find(&close).map_or(rest.len(), |k| start + hashes + 1 + k + close.len())
            } else {
                0
            }
        } else if rest.starts_with('"') || (!prev_ident && rest.starts_with("b\"")) {
            let open = rest.find('"').unwrap() + 1;
            let mut j = open;
            while j < rest.len() && rest.as_bytes()[j] != b'"' {
                j += if rest.as_bytes()[j] == b'\\' { 2 } else { 1 };
            }
            (j + 1).min(rest.len())
        } else if let Some(quoted) = rest.strip_prefix('\'') {
            // A character literal ('x', '\'', '\u{..}'), not a lifetime ('a).
            match quoted.chars().next() {
                Some('\\') => quoted.get(2..).and_then(|q| q.find('\'')).map_or(0, |k| k + 4),
                Some(c) if quoted[c.len_utf8()..].starts_with('\'') => c.len_utf8() + 2,
                _ => 0,
            }
        } else {
            0
        };
        if end == 0 {
            let c = rest.chars().next().unwrap();
            out.push(c);
            i += c.len_utf8();
        } else {
            blank(&rest[..end], &mut out);
            i += end;
        }
    }
    out
}

/// The index just past the block whose `{` is at `open`.
fn block_end(code: &str, open: usize) -> usize {
    let mut depth = 0;
    for (k, c) in code[open..].char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return open + k + 1;
                }
            }
            _ => {}
        }
    }
    code.len()
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Positions of the word `word` in `code` (not part of a longer identifier).
fn words<'a>(code: &'a str, word: &'a str) -> impl Iterator<Item = usize> + 'a {
    code.match_indices(word).map(|(i, _)| i).filter(move |&i| {
        let before = code[..i].chars().next_back();
        let after = code[i + word.len()..].chars().next();
        !before.is_some_and(is_ident) && !after.is_some_and(is_ident)
    })
}

/// `code` with the bodies of `#[cfg(test)]` modules blanked; an error names any other inline
/// module (their `super::` would be resolved from the file, not from them).
pub fn without_test_modules(code: &str) -> Result<String, String> {
    let mut out = code.to_owned();
    let mut blanked = 0;
    for at in words(code, "mod") {
        if at < blanked {
            continue;
        }
        let after = code[at + 3..].trim_start();
        let name_len = after.find(|c: char| !is_ident(c)).unwrap_or(after.len());
        if !after[name_len..].trim_start().starts_with('{') {
            continue;
        }
        let before = code[..at].trim_end();
        let before = before.strip_suffix("pub").unwrap_or(before).trim_end();
        if !before.ends_with("#[cfg(test)]") {
            return Err(format!("inline module `{}`: give it a file of its own", &after[..name_len]));
        }
        let open = at + code[at..].find('{').unwrap();
        let end = block_end(code, open);
        out.replace_range(open..end, &" ".repeat(end - open));
        blanked = end;
    }
    Ok(out)
}

/// The paths of a use tree (`a::{b, c::{d as e, self}}`), each with the name it binds.
fn use_paths(tree: &str) -> Vec<(Vec<String>, String)> {
    fn walk(prefix: &[String], tree: &str, out: &mut Vec<(Vec<String>, String)>) {
        let mut depth = 0;
        let mut start = 0;
        let mut items = Vec::new();
        for (i, c) in tree.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    items.push(&tree[start..i]);
                    start = i + 1;
                }
                _ => {}
            }
        }
        items.push(&tree[start..]);
        for item in items.into_iter().map(str::trim).filter(|s| !s.is_empty()) {
            if let Some(open) = item.find('{') {
                let mut p = prefix.to_vec();
                p.extend(item[..open].split("::").map(str::trim).filter(|s| !s.is_empty()).map(str::to_owned));
                walk(&p, &item[open + 1..item.rfind('}').unwrap_or(item.len())], out);
                continue;
            }
            let (path, alias) = match item.split_once(" as ") {
                Some((p, a)) => (p, Some(a.trim())),
                None => (item, None),
            };
            let mut p = prefix.to_vec();
            p.extend(path.split("::").map(str::trim).map(str::to_owned));
            if p.last().is_some_and(|s| s == "self") {
                p.pop();
            }
            if p.last().is_some_and(|s| s == "*") || p.is_empty() {
                continue;
            }
            let name = alias.map_or_else(|| p.last().unwrap().clone(), str::to_owned);
            out.push((p, name));
        }
    }
    let tree: String = tree.split_whitespace().collect::<Vec<_>>().join(" ");
    let tree = tree.replace(" ::", "::").replace(":: ", "::");
    let mut out = Vec::new();
    walk(&[], &tree, &mut out);
    out
}

/// One path of a file: its segments, and for a `use` with a visibility, the name it re-exports.
struct PathUse {
    segments: Vec<String>,
    reexport: Option<String>,
}

/// Every path of a file's `use` declarations, and every `crate::`/`super::`/`self::` path of
/// its other code (a bare path there can only name one of its own children).
fn paths_of(code: &str) -> Vec<PathUse> {
    let mut out = Vec::new();
    let mut in_use = Vec::new();
    for at in words(code, "use") {
        let Some(semi) = code[at..].find(';') else { continue };
        let before = code[..at].trim_end();
        let visible = before.ends_with("pub")
            || (before.ends_with(')') && before.rfind('(').is_some_and(|open| before[..open].ends_with("pub")));
        for (segments, name) in use_paths(&code[at + 3..at + semi]) {
            out.push(PathUse { segments, reexport: visible.then_some(name) });
        }
        in_use.push(at..at + semi);
    }
    for head in ["crate", "super", "self"] {
        for at in words(code, head) {
            if in_use.iter().any(|r| r.contains(&at)) || !code[at + head.len()..].starts_with("::") {
                continue;
            }
            let before = code[..at].trim_end();
            if code[..at].ends_with('$') || before.ends_with(" in") || before.ends_with("(in") {
                continue;
            }
            let mut segments = vec![head.to_owned()];
            let mut rest = &code[at + head.len()..];
            while let Some(r) = rest.strip_prefix("::") {
                let len = r.find(|c: char| !is_ident(c)).unwrap_or(r.len());
                if len == 0 {
                    break;
                }
                segments.push(r[..len].to_owned());
                rest = &r[len..];
            }
            out.push(PathUse { segments, reexport: None });
        }
    }
    out
}

/// The module path of a file (`paint/dab.rs` → `paint::dab`, `paint/mod.rs` → `paint`).
pub fn module_path(file: &str) -> Vec<String> {
    if file == "lib.rs" || file == "main.rs" {
        return Vec::new();
    }
    let stem = file.trim_end_matches(".rs");
    let mut parts: Vec<String> = stem.split('/').map(str::to_owned).collect();
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    parts
}

/// The folder of a file's child modules.
fn children_dir(file: &str) -> String {
    module_path(file).join("/")
}

/// The file-level import graph of the sources `files` (path relative to `src/` → text).
pub struct Graph {
    /// Every file's arrows (files it uses), sorted.
    pub arrows: BTreeMap<String, BTreeSet<String>>,
}

impl Graph {
    /// Reads the graph of `files`; an error names an inline module other than a test module.
    pub fn new(files: &BTreeMap<String, String>) -> Result<Self, String> {
        let file_of = |m: &[String]| -> Option<String> {
            if m.is_empty() {
                return Some("lib.rs".to_owned());
            }
            let base = m.join("/");
            [format!("{base}.rs"), format!("{base}/mod.rs")].into_iter().find(|f| files.contains_key(f))
        };
        // Each path resolved to (the deepest module file it names, the segments after it).
        let resolve = |file: &str, segments: &[String]| -> Option<(String, Vec<String>)> {
            let mut module = module_path(file);
            let mut rest = segments;
            match rest.first().map(String::as_str) {
                Some("crate") => module.clear(),
                Some("self") => {}
                Some("super") => {
                    while rest.first().is_some_and(|s| s == "super") {
                        module.pop()?;
                        rest = &rest[1..];
                    }
                    return Some(Self::descend(&file_of, module, rest));
                }
                // A `use` of a child module without `self::` (or of another crate).
                Some(child) => {
                    module.push(child.to_owned());
                    file_of(&module)?;
                    module.pop();
                    return Some(Self::descend(&file_of, module, rest));
                }
                None => return None,
            }
            Some(Self::descend(&file_of, module, &rest[1..]))
        };
        let mut paths = BTreeMap::new();
        for (file, text) in files {
            let code = without_test_modules(&code_only(text)).map_err(|e| format!("{file}: {e}"))?;
            paths.insert(file.clone(), paths_of(&code));
        }
        // What each file re-exports: name → defining file.
        let mut reexports: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
        for (file, uses) in &paths {
            for u in uses {
                let (Some(name), Some((target, _))) = (&u.reexport, resolve(file, &u.segments)) else { continue };
                if &target != file {
                    reexports.entry(file.clone()).or_default().insert(name.clone(), target);
                }
            }
        }
        let through = |mut target: String, rest: &[String]| {
            if let Some(name) = rest.first() {
                for _ in 0..8 {
                    match reexports.get(&target).and_then(|r| r.get(name)) {
                        Some(next) => target = next.clone(),
                        None => break,
                    }
                }
            }
            target
        };
        let mut arrows: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (file, uses) in &paths {
            let entry = arrows.entry(file.clone()).or_default();
            if file == "lib.rs" || file == "main.rs" {
                continue;
            }
            let own = format!("{}/", children_dir(file));
            for u in uses {
                let Some((target, rest)) = resolve(file, &u.segments) else { continue };
                let target = through(target, &rest);
                if &target != file && target != "lib.rs" && target != "main.rs" && !target.starts_with(&own) {
                    entry.insert(target);
                }
            }
        }
        Ok(Self { arrows })
    }

    fn descend(
        file_of: &dyn Fn(&[String]) -> Option<String>,
        mut module: Vec<String>,
        rest: &[String],
    ) -> (String, Vec<String>) {
        let mut file = file_of(&module).unwrap_or_else(|| "lib.rs".to_owned());
        let mut i = 0;
        while i < rest.len() {
            module.push(rest[i].clone());
            match file_of(&module) {
                Some(f) => file = f,
                None => break,
            }
            i += 1;
        }
        (file, rest[i..].to_vec())
    }

    /// Every circle (strongly connected component of two or more files), each as one closed path
    /// through it and the files of the component that path leaves out.
    pub fn circles(&self) -> Vec<(Vec<String>, Vec<String>)> {
        let names: Vec<&String> = self.arrows.keys().collect();
        let index: BTreeMap<&String, usize> = names.iter().enumerate().map(|(i, n)| (*n, i)).collect();
        let next: Vec<Vec<usize>> =
            names.iter().map(|n| self.arrows[*n].iter().filter_map(|t| index.get(t).copied()).collect()).collect();
        // Tarjan's algorithm.
        struct Walk<'a> {
            next: &'a [Vec<usize>],
            order: Vec<Option<usize>>,
            low: Vec<usize>,
            stack: Vec<usize>,
            on_stack: Vec<bool>,
            count: usize,
            components: Vec<Vec<usize>>,
        }
        fn visit(w: &mut Walk<'_>, v: usize) {
            w.order[v] = Some(w.count);
            w.low[v] = w.count;
            w.count += 1;
            w.stack.push(v);
            w.on_stack[v] = true;
            for &t in &w.next[v] {
                match w.order[t] {
                    None => {
                        visit(w, t);
                        w.low[v] = w.low[v].min(w.low[t]);
                    }
                    Some(o) if w.on_stack[t] => w.low[v] = w.low[v].min(o),
                    Some(_) => {}
                }
            }
            if Some(w.low[v]) == w.order[v] {
                let mut component = Vec::new();
                while let Some(t) = w.stack.pop() {
                    w.on_stack[t] = false;
                    component.push(t);
                    if t == v {
                        break;
                    }
                }
                w.components.push(component);
            }
        }
        let n = names.len();
        let mut w = Walk {
            next: &next,
            order: vec![None; n],
            low: vec![0; n],
            stack: Vec::new(),
            on_stack: vec![false; n],
            count: 0,
            components: Vec::new(),
        };
        for v in 0..n {
            if w.order[v].is_none() {
                visit(&mut w, v);
            }
        }
        let mut circles = Vec::new();
        for component in w.components.into_iter().filter(|c| c.len() > 1) {
            // A closed path from the component's first file: breadth first back to it.
            let inside: BTreeSet<usize> = component.iter().copied().collect();
            let start = *inside.first().unwrap();
            let mut came_from = BTreeMap::new();
            let mut queue = std::collections::VecDeque::from([start]);
            'search: while let Some(v) = queue.pop_front() {
                for &t in next[v].iter().filter(|t| inside.contains(t)) {
                    if t == start {
                        came_from.insert(usize::MAX, v);
                        break 'search;
                    }
                    if let std::collections::btree_map::Entry::Vacant(e) = came_from.entry(t) {
                        e.insert(v);
                        queue.push_back(t);
                    }
                }
            }
            let mut path = vec![start];
            let mut at = came_from[&usize::MAX];
            while at != start {
                path.push(at);
                at = came_from[&at];
            }
            path.push(start);
            path.reverse();
            let others = inside.iter().filter(|i| !path.contains(i)).map(|&i| names[i].clone()).collect();
            circles.push((path.into_iter().map(|i| names[i].clone()).collect(), others));
        }
        circles
    }

    /// Arrows that do not go down: to a module of the same or a higher layer (`layers`: lowest
    /// first).
    pub fn upward(&self, layers: &[Vec<String>]) -> Vec<String> {
        let layer_of = |file: &str| layers.iter().position(|l| l.iter().any(|m| *m == top_module(file)));
        let mut found = Vec::new();
        for (file, targets) in &self.arrows {
            for target in targets.iter().filter(|t| top_module(t) != top_module(file)) {
                if let (Some(from), Some(to)) = (layer_of(file), layer_of(target)) {
                    if to >= from {
                        found.push(format!(
                            "{file} (layer {}) uses {target} (`{}`, layer {})",
                            from + 1,
                            top_module(target),
                            to + 1
                        ));
                    }
                }
            }
        }
        found
    }
}

/// The top-level module of a file (`paint/dab.rs` → `paint`, `canvas.rs` → `canvas`).
pub fn top_module(file: &str) -> String {
    file.split('/').next().unwrap().trim_end_matches(".rs").to_owned()
}

/// The layers listed in ARCHITECTURE.md's `## Layers` section, lowest first: one numbered line
/// per layer naming its modules in backticks before a colon.
pub fn layers_of(architecture: &str) -> Result<Vec<Vec<String>>, String> {
    let start = architecture.find("\n## Layers\n").ok_or("ARCHITECTURE.md has no `## Layers` section")?;
    let section = &architecture[start + "\n## Layers\n".len()..];
    let section = &section[..section.find("\n## ").unwrap_or(section.len())];
    let layers: Vec<Vec<String>> = section
        .lines()
        .filter(|l| l.trim_start().starts_with(|c: char| c.is_ascii_digit()))
        .map(|l| {
            // The modules stand before the colon, their summary after it.
            l.split(':')
                .next()
                .unwrap_or("")
                .split('`')
                .skip(1)
                .step_by(2)
                .map(|m| m.trim_end_matches('/').trim_end_matches(".rs").to_owned())
                .collect()
        })
        .collect();
    if layers.is_empty() {
        return Err("ARCHITECTURE.md's `## Layers` section lists no layer".into());
    }
    Ok(layers)
}

/// The texts of `files`, keyed by their path relative to `src` (with `/`).
pub fn source_files(src: &Path, files: Vec<PathBuf>) -> BTreeMap<String, String> {
    files
        .into_iter()
        .map(|f| {
            let rel = f.strip_prefix(src).unwrap().to_string_lossy().replace('\\', "/");
            (rel, std::fs::read_to_string(&f).unwrap())
        })
        .collect()
}
