//! The sweep report as CSV: one row per joint, motion, method and step.

use std::io::Write;

use super::SweepReport;

/// The CSV header line (without its newline).
/// Twist and bend rows leave `weight` and `jump` empty; `weight` rows leave the angle metrics empty.
pub const HEADER: &str = "joint,node,motion,method,step,angle_deg,collapse,volume_change,bulge,flip,weight,jump";

/// A CSV field: quoted (quotes doubled) when it holds a comma, a quote or a line break.
fn field(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_owned()
    }
}

/// Writes `report` as CSV.
///
/// # Errors
/// A failed write.
pub fn write_csv(w: &mut dyn Write, report: &SweepReport) -> std::io::Result<()> {
    writeln!(w, "{HEADER}")?;
    for sw in &report.sweeps {
        for c in &sw.curves {
            for (k, m) in c.steps.iter().enumerate() {
                writeln!(
                    w,
                    "{},{},{},{},{k},{},{},{},{},{},,",
                    field(&sw.joint),
                    sw.node,
                    sw.motion.name(),
                    c.method.name(),
                    m.angle_deg,
                    m.collapse,
                    m.volume_change,
                    m.bulge,
                    m.flip
                )?;
            }
            for (k, m) in c.weight_steps.iter().enumerate() {
                writeln!(
                    w,
                    "{},{},{},{},{k},,,,,,{},{}",
                    field(&sw.joint),
                    sw.node,
                    sw.motion.name(),
                    c.method.name(),
                    m.weight,
                    m.jump
                )?;
            }
        }
    }
    Ok(())
}
