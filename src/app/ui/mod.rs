//! The editor's panels: the joint tree, the inspector (method, comparison, joint rotation), the
//! timeline and the status line. Each panel reads the state and returns commands.

pub mod inspector;
pub mod outliner;
pub mod status_bar;
pub mod timeline;
