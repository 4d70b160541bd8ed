//! The `skinlab` binary: parses the command line and maps any error to one stderr line and exit 2.

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = match skinlab::cli::Cli::try_parse() {
        Ok(cli) => cli,
        // --help and --version are "errors" printed to stdout with status 0.
        Err(e) if !e.use_stderr() => {
            let _ = e.print();
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("error: {}", skinlab::cli::usage_error_line(&e));
            return ExitCode::from(2);
        }
    };
    match skinlab::cli::run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {}", skinlab::cli::one_line(&e.to_string()));
            ExitCode::from(2)
        }
    }
}
