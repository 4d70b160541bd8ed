//! The `skinlab` binary: parses the command line and maps any error to one stderr line and exit 2.

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = skinlab::cli::Cli::parse();
    match skinlab::cli::run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}
