//! `skinlab demo`: writes the built-in demo arm (see [`crate::demo`]) as GLB.

use std::path::PathBuf;

use clap::Args;

use super::CliError;

/// Arguments of `skinlab demo`.
#[derive(Debug, Args)]
pub struct DemoArgs {
    /// The GLB file to write (replaced atomically).
    #[arg(long, value_name = "OUT.glb", default_value = "assets/demo_arm.glb")]
    pub out: PathBuf,
}

/// Runs `skinlab demo`.
pub fn run(args: &DemoArgs) -> Result<(), CliError> {
    crate::demo::write_demo(&args.out).map_err(|e| format!("{}: cannot write: {e}", args.out.display()))?;
    Ok(())
}
