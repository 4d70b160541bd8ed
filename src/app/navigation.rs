//! The viewport's mouse map (Edit ▸ Preferences ▸ Mouse): which buttons and modifiers orbit,
//! pan and dolly the camera, by preset.
//!
//! - **skinlab** (the default): in Pose and Rig mode left drag orbits (where no handle is
//!   grabbed), right or middle drag or Shift+left pans; in Paint mode left paints, right drag
//!   orbits, middle drag or Shift+right pans (Ctrl+right stays the lasso).
//! - **Blender**: middle drag orbits, Shift+middle pans, Ctrl+middle dollies, in every mode; left
//!   is the tool's (gizmo, brush, selection, joint placement).
//! - **Maya**: Alt+left orbits, Alt+middle pans, Alt+right dollies, in every mode; without Alt
//!   the buttons are the tool's.
//!
//! The wheel zooms toward the cursor under every preset. A camera drag is claimed when its button
//! goes down (and no tool gesture is in progress) and lasts until every button is up, so a tool
//! never sees the press of a camera drag.

use super::state::Mode;

/// A mouse map.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum MousePreset {
    /// skinlab's own: the buttons' meaning depends on the mode.
    #[default]
    Skinlab,
    /// Blender's: middle drag orbits, Shift+middle pans, Ctrl+middle dollies.
    Blender,
    /// Maya's: Alt+left orbits, Alt+middle pans, Alt+right dollies.
    Maya,
}

/// What a drag does to the camera.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CameraDrag {
    /// Turns about the target.
    Orbit,
    /// Moves the target across the view.
    Pan,
    /// Moves toward or away from the target.
    Dolly,
}

/// The buttons held and the modifiers of one frame.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Held {
    /// The left button.
    pub primary: bool,
    /// The right button.
    pub secondary: bool,
    /// The middle button.
    pub middle: bool,
    /// Shift.
    pub shift: bool,
    /// Ctrl (Cmd on macOS).
    pub ctrl: bool,
    /// Alt.
    pub alt: bool,
}

impl MousePreset {
    /// Every preset, in menu order.
    pub const ALL: [Self; 3] = [Self::Skinlab, Self::Blender, Self::Maya];

    /// The menu label.
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            Self::Skinlab => "skinlab",
            Self::Blender => "Blender",
            Self::Maya => "Maya",
        }
    }

    /// The name in the preferences file.
    #[must_use]
    pub fn key(self) -> &'static str {
        match self {
            Self::Skinlab => "skinlab",
            Self::Blender => "blender",
            Self::Maya => "maya",
        }
    }

    /// The preset named `key` in the preferences file.
    #[must_use]
    pub fn from_key(key: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|p| p.key() == key.trim())
    }

    /// The camera drag that buttons `held` make in `mode` before any tool sees them.
    #[must_use]
    pub fn camera_first(self, mode: Mode, held: Held) -> Option<CameraDrag> {
        match self {
            Self::Skinlab => match mode {
                Mode::Pose | Mode::Rig => (held.secondary || held.middle).then_some(CameraDrag::Pan),
                Mode::Paint if held.middle || (held.secondary && held.shift) => Some(CameraDrag::Pan),
                Mode::Paint => (held.secondary && !held.ctrl).then_some(CameraDrag::Orbit),
            },
            Self::Blender if held.middle && held.shift => Some(CameraDrag::Pan),
            Self::Blender if held.middle && held.ctrl => Some(CameraDrag::Dolly),
            Self::Blender => held.middle.then_some(CameraDrag::Orbit),
            Self::Maya if !held.alt => None,
            Self::Maya if held.primary => Some(CameraDrag::Orbit),
            Self::Maya if held.middle => Some(CameraDrag::Pan),
            Self::Maya => held.secondary.then_some(CameraDrag::Dolly),
        }
    }

    /// The camera drag of a left drag that no tool took (skinlab's Pose and Rig modes only).
    #[must_use]
    pub fn camera_fallback(self, mode: Mode, held: Held) -> Option<CameraDrag> {
        match (self, mode) {
            (Self::Skinlab, Mode::Pose | Mode::Rig) if held.primary => {
                Some(if held.shift { CameraDrag::Pan } else { CameraDrag::Orbit })
            }
            _ => None,
        }
    }

    /// One line on how the camera moves in `mode` (the status bar's help line).
    #[must_use]
    pub fn help(self, mode: Mode) -> &'static str {
        match (self, mode) {
            (Self::Skinlab, Mode::Paint) => {
                "Mouse (skinlab): left paints · right drag orbits · middle or Shift+right pans · wheel zooms to the cursor"
            }
            (Self::Skinlab, _) => {
                "Mouse (skinlab): left drag orbits · right, middle or Shift+left drag pans · wheel zooms to the cursor"
            }
            (Self::Blender, _) => {
                "Mouse (Blender): middle drag orbits · Shift+middle pans · Ctrl+middle dollies · wheel zooms to the cursor"
            }
            (Self::Maya, _) => {
                "Mouse (Maya): Alt+left orbits · Alt+middle pans · Alt+right dollies · wheel zooms to the cursor"
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_round_trip_and_blender_and_maya_keep_one_map_in_every_mode() {
        for p in MousePreset::ALL {
            assert_eq!(MousePreset::from_key(p.key()), Some(p));
        }
        let middle = Held { middle: true, ..Held::default() };
        let alt_left = Held { primary: true, alt: true, ..Held::default() };
        for mode in Mode::ALL {
            assert_eq!(MousePreset::Blender.camera_first(mode, middle), Some(CameraDrag::Orbit));
            assert_eq!(MousePreset::Maya.camera_first(mode, alt_left), Some(CameraDrag::Orbit));
            assert_eq!(MousePreset::Maya.camera_first(mode, Held { primary: true, ..Held::default() }), None);
        }
    }
}
