//! View presets from the numeric keypad, as in Blender: 1 front, 3 right side, 7 top; with Ctrl
//! the opposite view (back, left side, bottom). The camera keeps its target and distance.
//!
//! The keypad with NumLock off sends End (1), Page Down (3) and Home (7) from the keypad's
//! physical keys, which are read as such. With NumLock on, egui reports a keypad digit and a
//! top-row digit as the same key (the windowing layer drops where the key sits), and the top-row
//! digits choose the skinning method (1 LBS, 2 DQS, 3 SBS, 4 SBS-C); so, as Blender's "Emulate
//! Numpad", the preference "Digits turn the view" reads the digits 1, 3 and 7 (top row, or keypad
//! with NumLock on) as the views, and the methods move to Alt + digit. The View section's
//! buttons do the same.

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

/// The keypad view asked for by this frame's key events (the last one wins), consuming them:
/// the keypad with NumLock off, and with `digits` (NumLock on) the digits 1, 3 and 7 without Alt.
pub fn keypad_view(input: &mut egui::InputState, digits: bool) -> Option<ViewAxis> {
    let mut view = None;
    input.events.retain(|e| {
        let egui::Event::Key { key, physical_key, pressed, modifiers, .. } = e else { return true };
        let keypad = match (key, physical_key) {
            (egui::Key::End, Some(egui::Key::Num1)) => (ViewAxis::Front, ViewAxis::Back),
            (egui::Key::PageDown, Some(egui::Key::Num3)) => (ViewAxis::Right, ViewAxis::Left),
            (egui::Key::Home, Some(egui::Key::Num7)) => (ViewAxis::Top, ViewAxis::Bottom),
            (egui::Key::Num1, _) if digits && !modifiers.alt => (ViewAxis::Front, ViewAxis::Back),
            (egui::Key::Num3, _) if digits && !modifiers.alt => (ViewAxis::Right, ViewAxis::Left),
            (egui::Key::Num7, _) if digits && !modifiers.alt => (ViewAxis::Top, ViewAxis::Bottom),
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
        assert_eq!(keypad_view(&mut input, false), Some(ViewAxis::Front));
        assert!(input.events.is_empty(), "consumed");
        input.events = vec![key(egui::Key::Home, egui::Key::Num7, egui::Modifiers::COMMAND)];
        assert_eq!(keypad_view(&mut input, false), Some(ViewAxis::Bottom));
        // The End key itself, and the top-row digit (the method keys), are left alone.
        input.events = vec![
            key(egui::Key::End, egui::Key::End, egui::Modifiers::NONE),
            key(egui::Key::Num1, egui::Key::Num1, egui::Modifiers::NONE),
        ];
        assert_eq!(keypad_view(&mut input, false), None);
        assert_eq!(input.events.len(), 2);
        let mut camera = OrbitCamera::default();
        ViewAxis::Right.apply(&mut camera);
        assert_eq!((camera.yaw_rad, camera.pitch_rad), (std::f32::consts::FRAC_PI_2, 0.0));
    }

    #[test]
    fn with_numlock_on_the_digits_turn_the_view_and_alt_digits_are_left_for_the_methods() {
        let mut input = egui::InputState::default();
        // NumLock on: the keypad's 3 arrives as the digit, as the top row's does.
        input.events = vec![key(egui::Key::Num3, egui::Key::Num3, egui::Modifiers::NONE)];
        assert_eq!(keypad_view(&mut input, false), None, "off: the digit stays a method key");
        assert_eq!(keypad_view(&mut input, true), Some(ViewAxis::Right));
        assert!(input.events.is_empty());
        input.events = vec![key(egui::Key::Num7, egui::Key::Num7, egui::Modifiers::COMMAND)];
        assert_eq!(keypad_view(&mut input, true), Some(ViewAxis::Bottom));
        input.events = vec![
            key(egui::Key::Num1, egui::Key::Num1, egui::Modifiers::ALT),
            key(egui::Key::Num2, egui::Key::Num2, egui::Modifiers::NONE),
        ];
        assert_eq!(keypad_view(&mut input, true), None);
        assert_eq!(input.events.len(), 2, "Alt+1 and 2 are left alone");
        // NumLock off still works with the preference on.
        input.events = vec![key(egui::Key::PageDown, egui::Key::Num3, egui::Modifiers::NONE)];
        assert_eq!(keypad_view(&mut input, true), Some(ViewAxis::Right));
    }
}
