//! A free chain of N joints between two points (a tail, a tentacle, a wing): the mesh's
//! centreline traced from the first point toward the second through cross-sections, cut into N
//! bones of equal length along it.

use glam::DVec3;

use super::section::{trace, TraceSpec};
use super::solid::Solid;
use super::{AutorigError, Plan};
use crate::rig::joint_frame::Flex;

/// Fits a chain of `count` joints named `name.01` ... from `from` to `to` (bind space) along the
/// inside of the triangles; `parent` is the plan index the first joint hangs under.
pub fn fit_chain(
    positions: &[DVec3],
    triangles: &[[u32; 3]],
    from: DVec3,
    to: DVec3,
    count: usize,
    name: &str,
) -> Result<Plan, AutorigError> {
    let solid = Solid::build(positions, triangles).ok_or(AutorigError::NoMesh)?;
    let span = (to - from).length();
    if count == 0 || !span.is_finite() || span <= 0.0 {
        return Err(AutorigError::LimbNotFound {
            limb: format!("the chain {name}"),
            why: "it needs at least one joint between two distinct points".into(),
        });
    }
    let spec = TraceSpec {
        start: from,
        direction: to - from,
        step: span / 60.0,
        radius: 0.3 * span,
        max_length: 2.0 * span,
        growth: f64::INFINITY,
        settle: usize::MAX,
    };
    let mut t = trace(&solid, &spec);
    // Keep the trace up to its point nearest `to`, then end exactly there.
    if let Some(k) =
        (0..t.centres.len()).min_by(|&a, &b| (t.centres[a] - to).length().total_cmp(&(t.centres[b] - to).length()))
    {
        t.centres.truncate(k + 1);
        t.areas.truncate(k + 1);
    }
    if t.centres.is_empty() {
        return Err(AutorigError::LimbNotFound {
            limb: format!("the chain {name}"),
            why: format!("({:.3}, {:.3}, {:.3}) is not inside the mesh", from.x, from.y, from.z),
        });
    }
    t.centres.insert(0, from);
    t.areas.insert(0, 0.0);
    t.centres.push(to);
    t.areas.push(0.0);
    let length = t.length();
    let mut plan = Plan::default();
    let mut parent = None;
    for k in 0..count {
        let head = t.at_length(length * k as f64 / count as f64);
        let tail = t.at_length(length * (k + 1) as f64 / count as f64);
        let flex = Flex::Down.direction();
        parent = Some(plan.add(&format!("{name}.{:02}", k + 1), parent, head, tail, flex));
    }
    Ok(plan)
}
