//! `skinlab info MODEL --sets [--pose P | --animation A --time T] [--json]`: the SBS joint-set
//! table of one pose (`analysis::joint_sets`), as aligned text or JSON.

use std::fmt::Write as _;

use serde::Serialize;

use std::path::Path;

use super::{CliError, PoseArgs};
use crate::analysis::joint_sets::{far_centre_extents, joint_set_table, SkinSets};
use crate::model::Model;

/// The JSON document of `info --sets --json`.
#[derive(Serialize)]
struct SetsReport<'a> {
    model: String,
    pose: String,
    far_centre_extents: f64,
    skins: &'a [SkinSets],
}

/// Prints the set table of `model`, read from `path`, in the pose `choice` names, as JSON when
/// `json` is set.
pub fn run(path: &Path, choice: &PoseArgs, json: bool, model: &Model) -> Result<(), CliError> {
    let pose = choice.resolve_for_file(model, path)?;
    let pose_text = match (&choice.pose, &choice.animation) {
        (Some(p), _) => format!("pose file {}", p.display()),
        (None, Some(a)) => format!("animation {a:?} at {} s", choice.time.unwrap_or(0.0)),
        (None, None) => "rest".to_owned(),
    };
    let skins = joint_set_table(model, &pose);
    let title = path.display().to_string();
    if json {
        let report =
            SetsReport { model: title, pose: pose_text, far_centre_extents: far_centre_extents(), skins: &skins };
        crate::outln!("{}", serde_json::to_string_pretty(&report)?);
        return Ok(());
    }
    super::print_out(&table_text(&title, &pose_text, &skins))
}

fn number(v: Option<f64>) -> String {
    match v {
        None => "inf".to_owned(),
        Some(v) if v >= 1e4 || (v != 0.0 && v < 1e-2) => format!("{v:.2e}"),
        Some(v) => format!("{v:.2}"),
    }
}

/// The text table: one block per skin, one line per set.
#[must_use]
pub fn table_text(title: &str, pose: &str, skins: &[SkinSets]) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "model: {title}");
    let _ = writeln!(s, "pose: {pose}");
    let _ = writeln!(
        s,
        "condition = sigma_max / sigma_min of the centre system (two joints: of its rank-2 part); \
         distance = |r_c| in skin extents (f64 path beyond {}); ! = warning",
        far_centre_extents()
    );
    for skin in skins {
        let vertices: usize = skin.rows.iter().map(|r| r.vertices).sum();
        let warnings = skin.rows.iter().filter(|r| r.warning.is_some()).count();
        let _ = writeln!(
            s,
            "\nskin {} {:?}: {} sets of two or more joints ({vertices} vertices, {warnings} with warnings), \
             {} vertices on one joint, extent {:.4}",
            skin.skin,
            skin.name.as_deref().unwrap_or(""),
            skin.rows.len(),
            skin.single_joint_vertices,
            skin.extent
        );
        let _ = writeln!(
            s,
            "  {:>5} {:>8} {:>10} {:>10} {:>10} {:>4}  {:<22} members",
            "set", "vertices", "condition", "sigma_min", "distance", "path", "warning"
        );
        for row in &skin.rows {
            let rank = if row.members.len() == 2 { 1 } else { 2 };
            let path = if row.lbs_fallback {
                "lbs"
            } else if row.far_path {
                "f64"
            } else {
                "f32"
            };
            let warning = if row.no_centre_needed {
                "no centre needed".to_owned()
            } else {
                row.warning.map_or(String::new(), |w| format!("! {}", w.text()))
            };
            let _ = writeln!(
                s,
                "  {:>5} {:>8} {:>10} {:>10} {:>10} {:>4}  {:<22} {}",
                row.set,
                row.vertices,
                number(row.condition),
                number(Some(row.singular_values[rank])),
                number(Some(row.centre_distance)),
                path,
                warning,
                row.members.join(", ")
            );
        }
    }
    s
}
