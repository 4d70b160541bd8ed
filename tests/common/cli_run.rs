//! Running the `skinlab` binary from an integration test and checking its one-line failures.
#![allow(dead_code, clippy::unwrap_used)]

use std::ffi::OsStr;
use std::process::{Command, Output};

/// Runs the binary built for this test with `args`.
pub fn skinlab<I, S>(args: I) -> Output
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    Command::new(env!("CARGO_BIN_EXE_skinlab")).args(args).output().unwrap()
}

/// Asserts a failed run: status 2, one non-empty stderr line `error: ...` containing every needle
/// (case-insensitive), no panic text, nothing on stdout. Returns the line.
pub fn assert_one_error_line(out: &Output, needles: &[&str]) -> String {
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "status; stderr: {stderr}");
    assert!(!stderr.contains("panicked"), "panic: {stderr}");
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 1, "exactly one stderr line, got {stderr:?}");
    let line = lines[0];
    if std::env::var_os("SHOW_ERRORS").is_some() {
        println!("{line}");
    }
    assert!(line.starts_with("error: ") && line.len() > "error: ".len(), "{line:?}");
    let lower = line.to_lowercase();
    for needle in needles {
        assert!(lower.contains(&needle.to_lowercase()), "{line:?} should mention {needle:?}");
    }
    assert!(out.stdout.is_empty(), "nothing on stdout: {:?}", String::from_utf8_lossy(&out.stdout));
    line.to_owned()
}
