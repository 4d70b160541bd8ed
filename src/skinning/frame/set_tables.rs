//! One pass over a skin's joint sets: per set that needs it, its flags and member tables (phase A)
//! and its SBS centre with each member's image of it (phase B). Sets whose joints kept their parts
//! since the last pose are skipped (only SBS's far-centre test, which reads the skin's extent, is
//! repeated for them). The pass runs on the calling thread, or, when the work is large enough to
//! pay for waking the pool, on rayon's threads over contiguous ranges of sets split off every
//! table ([`Tables::split`]): each set is computed by the same code either way, so the results do
//! not depend on the split.

use std::time::Instant;

use glam::{DMat3, DQuat, DVec3, DVec4, Mat3, Vec3A, Vec4};

use super::joint_parts::{part, quat_vec4, JointPart};
use super::{
    set_flags, SkinFrame, FAR_CENTRE_EXTENTS, SET_FAR_CENTRE, SET_LBS_FALLBACK, SET_ONE_JOINT, SET_STRETCH,
    SET_UNIFORM_STRETCH,
};
use crate::maths::{self, CentreSums};
use crate::model::influences::MAX_SLOTS;
use crate::model::{JointSetTable, EMPTY_SET};
use crate::skinning::SkinningMethod;

/// What one pass computed, and its CPU time (summed over threads).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct PassStats {
    /// Seconds of phase A (flags and member tables).
    pub tables_secs: f64,
    /// Seconds of phase B (centres and member images).
    pub centre_secs: f64,
    /// Sets whose tables were computed.
    pub sets: usize,
    /// Centres solved.
    pub solves: usize,
}

impl std::ops::Add for PassStats {
    type Output = Self;
    fn add(self, o: Self) -> Self {
        Self {
            tables_secs: self.tables_secs + o.tables_secs,
            centre_secs: self.centre_secs + o.centre_secs,
            sets: self.sets + o.sets,
            solves: self.solves + o.solves,
        }
    }
}

/// Everything the pass reads (shared by the threads).
pub(super) struct SetPass<'a> {
    /// The skin's joint parts in the current pose.
    pub joints: &'a [JointPart],
    /// The skin's joint sets.
    pub table: &'a JointSetTable,
    /// Per set: its tables must be computed (see [`set_dirty`]).
    pub set_dirty: &'a [bool],
    /// Slots per set.
    pub k: usize,
    /// The method the tables are for.
    pub method: SkinningMethod,
    /// The skin's extent (SBS's far-centre test).
    pub extent: f64,
    /// Whether the extent differs from the one the kept sets were tested against (only then can
    /// a kept set's far-centre flag change).
    pub extent_changed: bool,
    /// Few sets are to be computed ([`SPARSE_SETS`]): the pass visits only those, found eight
    /// flags at a time, instead of testing every set.
    pub sparse: bool,
}

/// At most one set in this many to compute makes a pass sparse ([`SetPass::sparse`]). With every
/// set to compute, visiting them through the eight-flag scan cost 3–15 µs more on 2,000 sets.
pub(super) const SPARSE_SETS: usize = 8;

/// The tables of a contiguous range of sets, split off the frame's vectors.
pub(super) struct Tables<'a> {
    first: usize,
    len: usize,
    flags: &'a mut [u8],
    centres: &'a mut [Vec3A],
    cols: &'a mut [[Vec3A; 4]],
    quats: &'a mut [Vec4],
    duals: &'a mut [Vec4],
    points: &'a mut [Vec3A],
    stretches: &'a mut [Mat3],
    scales: &'a mut [f32],
    far_centres: &'a mut [DVec3],
    far_quats: &'a mut [DVec4],
    far_points: &'a mut [DVec3],
    pairs: &'a mut [[f64; 9]],
    rigid: &'a mut [(DMat3, DVec3)],
    rigid_cols: &'a mut [[Vec3A; 4]],
    set_lens: &'a mut [u8],
}

/// Splits a table holding `sets` sets' entries (the same count each, possibly none) after `at` sets.
fn cut<T>(s: &mut [T], at: usize, sets: usize) -> (&mut [T], &mut [T]) {
    let per_set = s.len().checked_div(sets).unwrap_or(0);
    s.split_at_mut((at * per_set).min(s.len()))
}

impl<'a> Tables<'a> {
    /// Sets `range` of `frame`'s tables, which must already be sized for every set.
    pub(super) fn of(frame: &'a mut SkinFrame, range: std::ops::Range<usize>) -> Self {
        let n = frame.flags.len();
        let (first, len) = (range.start.min(n), range.end.min(n).saturating_sub(range.start.min(n)));
        let mut all = Tables {
            first: 0,
            len: n,
            flags: &mut frame.flags,
            centres: &mut frame.centres,
            cols: &mut frame.cols,
            quats: &mut frame.quats,
            duals: &mut frame.duals,
            points: &mut frame.points,
            stretches: &mut frame.stretches,
            scales: &mut frame.scales,
            far_centres: &mut frame.far_centres,
            far_quats: &mut frame.far_quats,
            far_points: &mut frame.far_points,
            pairs: &mut frame.pairs,
            rigid: &mut frame.rigid,
            rigid_cols: &mut frame.rigid_cols,
            set_lens: &mut frame.set_lens,
        };
        all = all.split(first).1;
        all.split(len).0
    }

    /// The first `at` sets and the rest.
    fn split(self, at: usize) -> (Self, Self) {
        let (n, at) = (self.len, at.min(self.len));
        let (flags, flags_b) = cut(self.flags, at, n);
        let (centres, centres_b) = cut(self.centres, at, n);
        let (cols, cols_b) = cut(self.cols, at, n);
        let (quats, quats_b) = cut(self.quats, at, n);
        let (duals, duals_b) = cut(self.duals, at, n);
        let (points, points_b) = cut(self.points, at, n);
        let (stretches, stretches_b) = cut(self.stretches, at, n);
        let (scales, scales_b) = cut(self.scales, at, n);
        let (far_centres, far_centres_b) = cut(self.far_centres, at, n);
        let (far_quats, far_quats_b) = cut(self.far_quats, at, n);
        let (far_points, far_points_b) = cut(self.far_points, at, n);
        let (pairs, pairs_b) = cut(self.pairs, at, n);
        let (rigid, rigid_b) = cut(self.rigid, at, n);
        let (rigid_cols, rigid_cols_b) = cut(self.rigid_cols, at, n);
        let (set_lens, set_lens_b) = cut(self.set_lens, at, n);
        (
            Tables {
                first: self.first,
                len: at,
                flags,
                centres,
                cols,
                quats,
                duals,
                points,
                stretches,
                scales,
                far_centres,
                far_quats,
                far_points,
                pairs,
                rigid,
                rigid_cols,
                set_lens,
            },
            Tables {
                first: self.first + at,
                len: n - at,
                flags: flags_b,
                centres: centres_b,
                cols: cols_b,
                quats: quats_b,
                duals: duals_b,
                points: points_b,
                stretches: stretches_b,
                scales: scales_b,
                far_centres: far_centres_b,
                far_quats: far_quats_b,
                far_points: far_points_b,
                pairs: pairs_b,
                rigid: rigid_b,
                rigid_cols: rigid_cols_b,
                set_lens: set_lens_b,
            },
        )
    }
}

impl SetPass<'_> {
    /// Whether set `set`'s tables must be computed.
    #[inline]
    fn is_dirty(&self, set: usize) -> bool {
        self.set_dirty.get(set).copied().unwrap_or(true)
    }

    /// Calls `f` with the local index of each set of `first..first + len` to compute, in order.
    #[inline]
    fn each_dirty(&self, first: usize, len: usize, f: impl FnMut(usize)) {
        each_set(self.set_dirty.get(first..).unwrap_or(&[]), len, f);
    }

    /// Runs the pass over `tables`, splitting it into ranges of at most `grain` sets on rayon's
    /// threads (`usize::MAX`: on the calling thread).
    pub(super) fn run(&self, tables: Tables<'_>, grain: usize) -> PassStats {
        if tables.len <= grain.max(1) {
            let mut tables = tables;
            return self.leaf(&mut tables);
        }
        let half = tables.len / 2;
        let (a, b) = tables.split(half);
        let (x, y) = rayon::join(|| self.run(a, grain), || self.run(b, grain));
        x + y
    }

    /// Both phases over one range of sets.
    fn leaf(&self, t: &mut Tables<'_>) -> PassStats {
        let started = Instant::now();
        let mut sets = 0;
        if self.sparse {
            self.each_dirty(t.first, t.len, |i| {
                self.fill_set(t, i);
                sets += 1;
            });
        } else {
            for i in 0..t.len {
                if self.is_dirty(t.first + i) {
                    self.fill_set(t, i);
                    sets += 1;
                }
            }
        }
        let tables_done = Instant::now();
        let mut solves = 0;
        if self.method == SkinningMethod::Sbs {
            if self.sparse && !self.extent_changed {
                // A kept set's centre stays, and so does its far-centre test.
                self.each_dirty(t.first, t.len, |i| solves += self.centre(t, i));
            } else {
                for i in 0..t.len {
                    solves += self.centre(t, i);
                }
            }
        }
        PassStats {
            tables_secs: (tables_done - started).as_secs_f64(),
            centre_secs: tables_done.elapsed().as_secs_f64(),
            sets,
            solves,
        }
    }

    /// Phase A of local set `i`: flags and member tables (everything but its SBS centre).
    fn fill_set(&self, t: &mut Tables<'_>, i: usize) {
        let set = t.first + i;
        let (k, table) = (self.k, self.table);
        let joints = table.joints(set as u32);
        let flag = set_flags(self.joints, joints, set);
        t.flags[i] = flag;
        let members = table.padded(set as u32);
        let base = i * k;
        // DQS and SBS read the columns only for the sets they deform by LBS's columns.
        let by_columns = self.method == SkinningMethod::Lbs || flag & (SET_ONE_JOINT | SET_LBS_FALLBACK) != 0;
        if by_columns {
            for (m, &j) in members.iter().enumerate() {
                t.cols[base + m] = part(self.joints, j).cols;
            }
        }
        if self.method == SkinningMethod::Lbs || flag & SET_ONE_JOINT != 0 {
            // One-joint sets are deformed with the columns alone, in every method.
            return;
        }
        if flag & SET_UNIFORM_STRETCH != 0 {
            // A uniformly stretched set is read for its members' scales alone.
            for (m, &j) in members.iter().enumerate() {
                t.scales[base + m] = part(self.joints, j).uniform_scale;
            }
        } else if flag & SET_STRETCH != 0 {
            // Other stretched sets for their matrices.
            for (m, &j) in members.iter().enumerate() {
                t.stretches[base + m] = part(self.joints, j).stretch;
            }
        }
        // A vertex's pivot is its largest weight, never a zero-weight padding slot: only the
        // rows of real members are read.
        let pivots = joints.len().clamp(1, k);
        let dqs = self.method == SkinningMethod::Dqs;
        match k {
            0..=4 => self.signed_rows::<4>(t, base, members, pivots, dqs),
            5..=8 => self.signed_rows::<8>(t, base, members, pivots, dqs),
            _ => self.signed_rows::<MAX_SLOTS>(t, base, members, pivots, dqs),
        }
        if self.method == SkinningMethod::SbsC {
            t.set_lens[i] = joints.len().min(k) as u8;
            self.fill_pairs(t, i, members);
        }
    }

    /// The signed quaternion (and, for DQS, dual) rows of one set's first `pivots` pivot slots:
    /// each member's quaternion gathered once in f64 (sign tests) and f32, at most `N` members.
    fn signed_rows<const N: usize>(&self, t: &mut Tables<'_>, base: usize, members: &[u16], pivots: usize, dqs: bool) {
        let k = members.len().min(N);
        let mut q64 = [DQuat::IDENTITY; N];
        let mut q32 = [Vec4::W; N];
        let mut d32 = [Vec4::ZERO; N];
        for (m, &j) in members.iter().take(k).enumerate() {
            let part = part(self.joints, j);
            q64[m] = part.rotation;
            q32[m] = quat_vec4(part.rotation);
            d32[m] = part.dual;
        }
        for pivot in 0..pivots.min(k) {
            let qp = q64[pivot];
            let row = (base + pivot) * self.k;
            for m in 0..k {
                let negate = qp.dot(q64[m]) < 0.0;
                t.quats[row + m] = if negate { -q32[m] } else { q32[m] };
                if dqs {
                    t.duals[row + m] = if negate { -d32[m] } else { d32[m] };
                }
            }
        }
    }

    /// Continuous SBS's per-set tables: each member's rigid part and each slot pair's normal
    /// equations (padding slots carry weight 0, so their pairs never count).
    fn fill_pairs(&self, t: &mut Tables<'_>, i: usize, members: &[u16]) {
        let k = self.k;
        for (m, &j) in members.iter().enumerate() {
            let part = part(self.joints, j);
            let r = part.rotation_matrix;
            t.rigid[i * k + m] = (r, part.translation);
            t.rigid_cols[i * k + m] = [
                r.x_axis.as_vec3().into(),
                r.y_axis.as_vec3().into(),
                r.z_axis.as_vec3().into(),
                part.translation.as_vec3().into(),
            ];
        }
        let mut pair = i * k * k.saturating_sub(1) / 2;
        for a in 0..k {
            for b in a + 1..k {
                let (ra, ta) = t.rigid[i * k + a];
                let (rb, tb) = t.rigid[i * k + b];
                let d = ra - rb;
                let m = d.transpose() * d;
                let e = d.transpose() * (tb - ta);
                t.pairs[pair] = [m.x_axis.x, m.y_axis.x, m.z_axis.x, m.y_axis.y, m.z_axis.y, m.z_axis.z, e.x, e.y, e.z];
                pair += 1;
            }
        }
    }

    /// Phase B of local set `i` (SBS step 2): for a set to compute, its least-squares centre
    /// (closed form for two joints) and each member's image D_j r_c of it (for far centres the
    /// cancellation-free f64 parts); for a kept set, only the far-centre test again (the extent
    /// may have changed). Returns the solves done (0 or 1).
    fn centre(&self, t: &mut Tables<'_>, i: usize) -> usize {
        let set = t.first + i;
        let far_of = |c: DVec3| c.length() > FAR_CENTRE_EXTENTS * self.extent;
        if !self.is_dirty(set) {
            if !self.extent_changed {
                return 0;
            }
            let centre = t.far_centres[i];
            if far_of(centre) != (t.flags[i] & SET_FAR_CENTRE != 0) {
                self.images(t, i, centre, far_of(centre));
            }
            return 0;
        }
        let joints = self.table.joints(set as u32);
        let solve = set as u32 != EMPTY_SET && joints.len() >= 2 && t.flags[i] & SET_LBS_FALLBACK == 0;
        let centre = if solve { set_centre(self.joints, joints) } else { DVec3::ZERO };
        t.far_centres[i] = centre;
        t.centres[i] = centre.as_vec3().into();
        self.images(t, i, centre, far_of(centre));
        usize::from(solve)
    }

    /// Each member's image of the centre of local set `i`, in f32 (or, for a far centre, f64 with
    /// the members' quaternions), and the set's far flag.
    fn images(&self, t: &mut Tables<'_>, i: usize, centre: DVec3, far: bool) {
        let k = self.k;
        let padded = self.table.padded((t.first + i) as u32);
        if far {
            t.flags[i] |= SET_FAR_CENTRE;
            for (slot, &j) in padded.iter().enumerate() {
                let part = part(self.joints, j);
                let q = part.rotation;
                t.far_quats[i * k + slot] = DVec4::new(q.x, q.y, q.z, q.w);
                t.far_points[i * k + slot] = part.rotation_matrix * centre + part.translation;
            }
        } else {
            t.flags[i] &= !SET_FAR_CENTRE;
            for (slot, &j) in padded.iter().enumerate() {
                t.points[i * k + slot] = if slot > 0 && j == padded[0] {
                    // Padding repeats the first joint: the same image, bit for bit.
                    t.points[i * k]
                } else {
                    let part = part(self.joints, j);
                    (part.rotation_matrix * centre + part.translation).as_vec3().into()
                };
            }
        }
    }
}

/// The sets each joint of a skin belongs to (built once per joint set table), so that a pose
/// which moved a few joints finds their sets without reading every set's members.
#[derive(Clone, Debug, Default)]
pub(super) struct SetsOfJoints {
    /// Per joint `j`: its sets are `sets[starts[j]..starts[j + 1]]`.
    starts: Vec<u32>,
    /// Set ids, grouped by joint, each set once per joint.
    sets: Vec<u32>,
    /// Some set has a member at or beyond the skin's joint count (the index does not hold it).
    beyond: bool,
}

impl SetsOfJoints {
    /// The index of `table` for a skin of `joints` joints.
    pub(super) fn of(table: &JointSetTable, joints: usize) -> Self {
        let k = table.slots().max(1);
        let mut starts = vec![0u32; joints + 1];
        let mut beyond = false;
        // A set's padding repeats a member: each (joint, set) pair counts once.
        let distinct = |members: &[u16], m: usize| !members[..m].contains(&members[m]);
        for members in table.all_padded().chunks_exact(k) {
            for (m, &j) in members.iter().enumerate() {
                match starts.get_mut(usize::from(j) + 1) {
                    Some(count) if distinct(members, m) => *count += 1,
                    Some(_) => {}
                    None => beyond = true,
                }
            }
        }
        for j in 0..joints {
            starts[j + 1] += starts[j];
        }
        let mut next = starts.clone();
        let mut sets = vec![0u32; starts[joints] as usize];
        for (set, members) in table.all_padded().chunks_exact(k).enumerate() {
            for (m, &j) in members.iter().enumerate() {
                if usize::from(j) < joints && distinct(members, m) {
                    sets[next[usize::from(j)] as usize] = set as u32;
                    next[usize::from(j)] += 1;
                }
            }
        }
        Self { starts, sets, beyond }
    }

    /// Whether the index can answer for `dirty` (one flag per joint of the skin it was built for).
    pub(super) fn covers(&self, dirty: &[bool]) -> bool {
        !self.beyond && self.starts.len() == dirty.len() + 1
    }

    /// [`set_dirty`] for a table whose sets are all valid, from the dirty joints' sets alone.
    pub(super) fn set_dirty(&self, sets: usize, dirty: &[bool], out: &mut Vec<bool>) -> usize {
        out.clear();
        out.resize(sets, false);
        let mut count = 0;
        for (j, _) in dirty.iter().enumerate().filter(|(_, &d)| d) {
            for &set in &self.sets[self.starts[j] as usize..self.starts[j + 1] as usize] {
                if let Some(d) = out.get_mut(set as usize) {
                    count += usize::from(!*d);
                    *d = true;
                }
            }
        }
        count
    }
}

/// Calls `f` with each `i < len` whose flag is set, in order (an `i` beyond `flags` counts as
/// set). The flags are read eight at a time: a pose that moved a few joints computes few of
/// thousands of sets.
#[inline]
fn each_set(flags: &[bool], len: usize, mut f: impl FnMut(usize)) {
    let known = &flags[..len.min(flags.len())];
    let mut eights = known.chunks_exact(8);
    for (c, eight) in eights.by_ref().enumerate() {
        if u64::from_ne_bytes(std::array::from_fn(|b| u8::from(eight[b]))) != 0 {
            for (b, _) in eight.iter().enumerate().filter(|(_, &d)| d) {
                f(c * 8 + b);
            }
        }
    }
    let rest = known.len() - eights.remainder().len();
    for (b, _) in eights.remainder().iter().enumerate().filter(|(_, &d)| d) {
        f(rest + b);
    }
    for i in known.len()..len {
        f(i);
    }
}

/// Per set of `table` (`out`, resized): whether its tables must be computed, i.e. it is at or
/// beyond `valid` (the sets computed for the parts they read) or one of its joints is `dirty`
/// (its part changed; joints beyond `dirty` count as changed). Returns how many must.
pub(super) fn set_dirty(table: &JointSetTable, dirty: &[bool], valid: usize, out: &mut Vec<bool>) -> usize {
    let k = table.slots().max(1);
    out.clear();
    out.extend(table.all_padded().chunks_exact(k).enumerate().map(|(set, members)| {
        set >= valid || members.iter().any(|&j| dirty.get(usize::from(j)).copied().unwrap_or(true))
    }));
    out.resize(table.len(), true);
    out.iter().filter(|&&d| d).count()
}

/// The centre of one set's joints: none for one joint, the closed form for two, otherwise the
/// normal equations from per-joint sums where they are well conditioned, else the truncated
/// pseudo-inverse (spec "sbs" step 2). Allocation-free.
pub(super) fn set_centre(joints: &[JointPart], members: &[u16]) -> DVec3 {
    match members {
        [] | [_] => DVec3::ZERO,
        [a, b] => {
            let (a, b) = (part(joints, *a), part(joints, *b));
            maths::two_joint_centre(a.rotation, a.translation, b.rotation, b.translation)
        }
        _ => {
            let n = members.len().min(MAX_SLOTS);
            let mut sums = CentreSums::new();
            for &j in &members[..n] {
                let p = part(joints, j);
                sums.add(&p.rotation_matrix, p.translation, p.turned);
            }
            sums.solve().unwrap_or_else(|| {
                let mut rotations = [DMat3::IDENTITY; MAX_SLOTS];
                let mut translations = [DVec3::ZERO; MAX_SLOTS];
                for (i, &j) in members.iter().take(n).enumerate() {
                    rotations[i] = part(joints, j).rotation_matrix;
                    translations[i] = part(joints, j).translation;
                }
                maths::truncated_centre(&rotations[..n], &translations[..n])
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::each_set;

    /// The eight-at-a-time scan visits exactly the set flags, in order, whatever the length and
    /// wherever the range starts; indices beyond the flags count as set.
    #[test]
    fn the_scan_visits_exactly_the_set_flags() {
        let flags: Vec<bool> = (0..45).map(|i| i % 7 == 3 || i == 8 || i == 44).collect();
        for first in [0, 1, 5, 8, 13] {
            for len in [0, 1, 7, 8, 9, 16, 31, 40, 50] {
                let part = &flags[first.min(flags.len())..];
                let mut seen = Vec::new();
                each_set(part, len, |i| seen.push(i));
                let expected: Vec<usize> = (0..len).filter(|&i| part.get(i).copied().unwrap_or(true)).collect();
                assert_eq!(seen, expected, "first {first}, len {len}");
            }
        }
    }
}
