//! Forward kinematics in f64: local transforms → `model_from_node` (global) → `model_from_bind`
//! (the spec's C_j = global_j · IBM_j). The transform of the node carrying a skinned mesh is
//! ignored, as glTF requires. A driven helper the pose does not set follows its parent's rotation
//! (`Pose::driven`).

use glam::DMat4;

use super::Pose;
use crate::model::{NodeTree, Skin};

/// Computes every node's `model_from_node` matrix into `out` (resized to the node count).
pub fn model_from_node(tree: &NodeTree, pose: &Pose, out: &mut Vec<DMat4>) {
    out.clear();
    if tree.order.len() == tree.len() {
        // Every node is in `order` (the usual case): local matrices in node order, walking the
        // pose's overrides (sorted by node) alongside instead of looking each node up, then
        // parents first.
        let mut overrides = pose.overrides.iter().peekable();
        out.extend(tree.nodes.iter().enumerate().map(|(i, node)| {
            while overrides.next_if(|(&n, _)| n < i).is_some() {}
            match overrides.peek() {
                Some((&n, o)) if n == i && !o.is_empty() => o.apply(node.rest.to_trs()).to_matrix(),
                _ if node.driver.is_some() => pose.local_matrix(tree, i),
                _ => node.rest.to_matrix(),
            }
        }));
        for &i in &tree.order {
            if let Some(p) = tree.nodes[i].parent {
                out[i] = out[p] * out[i];
            }
        }
        return;
    }
    out.resize(tree.len(), DMat4::IDENTITY);
    for &i in &tree.order {
        let local = pose.local_matrix(tree, i);
        out[i] = match tree.nodes[i].parent {
            Some(p) => out[p] * local,
            None => local,
        };
    }
}

/// Computes each joint's `model_from_bind = model_from_node[joint] · joint_from_bind` into `out`.
pub fn model_from_bind(skin: &Skin, model_from_node: &[DMat4], out: &mut Vec<DMat4>) {
    out.clear();
    out.extend(skin.joints.iter().zip(&skin.joint_from_bind).map(|(&node, ibm)| model_from_node[node] * *ibm));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Node, NodeTransform, Trs};
    use glam::{DQuat, DVec3};

    fn node(parent: Option<usize>, children: Vec<usize>, t: DVec3) -> Node {
        Node {
            name: None,
            parent,
            children,
            rest: NodeTransform::Trs(Trs { translation: t, ..Trs::default() }),
            mesh: None,
            skin: None,
            ..Node::default()
        }
    }

    #[test]
    fn chain_composes_parent_first() {
        let tree = NodeTree::new(vec![node(None, vec![1], DVec3::X), node(Some(0), vec![], DVec3::X)], vec![0]);
        let mut pose = Pose::rest();
        pose.set_rotation(0, DQuat::from_rotation_z(std::f64::consts::FRAC_PI_2));
        let mut g = Vec::new();
        model_from_node(&tree, &pose, &mut g);
        let tip = g[1].transform_point3(DVec3::ZERO);
        assert!((tip - DVec3::new(1.0, 1.0, 0.0)).length() < 1e-12, "{tip}");
    }
}
