//! The one error a model load can end with: the file and what is wrong in it, on one line.

use std::path::Path;

/// A model that could not be loaded.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {problem}")]
pub struct LoadError {
    /// The file as given.
    pub path: String,
    /// What is wrong, naming the glTF object (accessor, mesh, node, ...) where there is one.
    pub problem: String,
}

impl LoadError {
    /// An error about `path`.
    pub fn new(path: &Path, problem: impl Into<String>) -> Self {
        Self { path: path.display().to_string(), problem: problem.into() }
    }
}
