//! View presets from the numeric keypad, as in Blender: 1 front, 3 right side, 7 top; with Ctrl
//! the opposite view (back, left side, bottom). The camera keeps its target and distance.
//!
//! egui reports a keypad digit and a top-row digit as the same key while NumLock is on, and the
//! top-row digits choose the skinning method (1 LBS, 2 DQS, 3 SBS); so the keypad is read with
//! NumLock off, where it sends End (1), Page Down (3) and Home (7) from the keypad's physical
//! keys. The View section's buttons do the same.

use eframe::egui;

use crate::render::OrbitCamera;

/// A view along one model axis.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ViewAxis {
    /// From +Z (keypad 1).
    Front,
    /// From −Z (Ctrl + keypad 1).
    Back,
    /// From +X (keypad 3).
    Right,
    /// From −X (Ctrl + keypad 3).
    Left,
    /// From +Y, looking down (keypad 7).
    Top,
    /// From −Y, looking up (Ctrl + keypad 7).
    Bottom,
}

impl ViewAxis {
    /// Every view, in the order of the View section's buttons.
    pub const ALL: [Self; 6] = [Self::Front, Self::Back, Self::Right, Self::Left, Self::Top, Self::Bottom];

    /// The button's label.
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            Self::Front => "Front",
            Self::Back => "Back",
            Self::Right => "Right",
            Self::Left => "Left",
            Self::Top => "Top",
            Self::Bottom => "Bottom",
        }
    }

    /// The camera's (yaw, pitch) in radians; the poles are kept just short of ±90°.
    #[must_use]
    pub fn angles_rad(self) -> (f32, f32) {
        use std::f32::consts::{FRAC_PI_2, PI};
        let pole = FRAC_PI_2 - 1e-3;
        match self {
            Self::Front => (0.0, 0.0),
            Self::Back => (PI, 0.0),
            Self::Right => (FRAC_PI_2, 0.0),
            Self::Left => (-FRAC_PI_2, 0.0),
            Self::Top => (0.0, pole),
            Self::Bottom => (0.0, -pole),
        }
    }

    /// Turns `camera` to look along this axis.
    pub fn apply(self, camera: &mut OrbitCamera) {
        (camera.yaw_rad, camera.pitch_rad) = self.angles_rad();
    }
}

/// The keypad view asked for by this frame's key events (the last one wins), consuming them.
pub fn keypad_view(input: &mut egui::InputState) -> Option<ViewAxis> {
    let mut view = None;
    input.events.retain(|e| {
        let egui::Event::Key { key, physical_key: Some(physical), pressed, modifiers, .. } = e else { return true };
        let keypad = match (key, physical) {
            (egui::Key::End, egui::Key::Num1) => (ViewAxis::Front, ViewAxis::Back),
            (egui::Key::PageDown, egui::Key::Num3) => (ViewAxis::Right, ViewAxis::Left),
            (egui::Key::Home, egui::Key::Num7) => (ViewAxis::Top, ViewAxis::Bottom),
            _ => return true,
        };
        if *pressed {
            view = Some(if modifiers.command { keypad.1 } else { keypad.0 });
        }
        false
    });
    view
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(key: egui::Key, physical: egui::Key, modifiers: egui::Modifiers) -> egui::Event {
        egui::Event::Key { key, physical_key: Some(physical), pressed: true, repeat: false, modifiers }
    }

    #[test]
    fn the_keypad_with_numlock_off_turns_the_view_and_the_top_row_does_not() {
        let mut input = egui::InputState::default();
        input.events = vec![key(egui::Key::End, egui::Key::Num1, egui::Modifiers::NONE)];
        assert_eq!(keypad_view(&mut input), Some(ViewAxis::Front));
        assert!(input.events.is_empty(), "consumed");
        input.events = vec![key(egui::Key::Home, egui::Key::Num7, egui::Modifiers::COMMAND)];
        assert_eq!(keypad_view(&mut input), Some(ViewAxis::Bottom));
        // The End key itself, and the top-row digit (the method keys), are left alone.
        input.events = vec![
            key(egui::Key::End, egui::Key::End, egui::Modifiers::NONE),
            key(egui::Key::Num1, egui::Key::Num1, egui::Modifiers::NONE),
        ];
        assert_eq!(keypad_view(&mut input), None);
        assert_eq!(input.events.len(), 2);
        let mut camera = OrbitCamera::default();
        ViewAxis::Right.apply(&mut camera);
        assert_eq!((camera.yaw_rad, camera.pitch_rad), (std::f32::consts::FRAC_PI_2, 0.0));
    }
}
