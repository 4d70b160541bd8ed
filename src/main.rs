//! The `skinlab` binary: parses the command line and maps any error to one stderr line and exit 2.

use std::io::Write as _;
use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = match skinlab::cli::Cli::try_parse() {
        Ok(cli) => cli,
        // --help and --version are "errors" printed to stdout with status 0.
        Err(e) if !e.use_stderr() => {
            return match skinlab::cli::print_out(&e.render().to_string()) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    let _ = writeln!(std::io::stderr(), "error: {e}");
                    ExitCode::from(2)
                }
            };
        }
        Err(e) => {
            // A failed write to stderr has nowhere to be reported: the status still says it.
            let _ = writeln!(std::io::stderr(), "error: {}", skinlab::cli::usage_error_line(&e));
            return ExitCode::from(2);
        }
    };
    match skinlab::cli::run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            let _ = writeln!(std::io::stderr(), "error: {}", skinlab::error_line::one_line(&e.to_string()));
            ExitCode::from(2)
        }
    }
}
