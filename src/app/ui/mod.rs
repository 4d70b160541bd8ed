//! The editor's panels: the joint tree, the inspector (method, comparison, joint rotation and its fields), the
//! morph-target sliders, the paint panel and its weight tools (selection, gradient, weight table, transfer), the rig panel, the Auto-rig window, the joint-sets window, the Export for LBS runtimes window, the sweep window and its plots, the timeline and its curve view, the status line, and side-panel contents that keep their panel's width. Each panel reads the state and returns commands.

pub mod autorig_window;
pub mod curve_view;
pub mod fixed_width;
pub mod ik_panel;
pub mod inspector;
pub mod joint_sets_panel;
pub mod lbs_export_window;
pub mod morph_panel;
pub mod outliner;
pub mod paint_panel;
pub mod pose_library_panel;
pub mod rig_panel;
pub mod rotation_fields;
pub mod status_bar;
pub mod sweep_panel;
pub mod sweep_plot;
pub mod time_axis;
pub mod timeline;
pub mod weight_tools_panel;
