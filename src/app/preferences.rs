//! Edit ▸ Preferences: the editor's settings that outlive a session (the mouse map), kept in the
//! user's config folder beside the recent-file list (`preferences.txt`, `key = value` lines;
//! unknown keys and values are ignored, so an older or newer file never stops the editor).

use std::path::{Path, PathBuf};

use eframe::egui;

use super::navigation::MousePreset;

/// The preferences and the file they are kept in.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Preferences {
    file: Option<PathBuf>,
    /// The viewport's mouse map.
    pub mouse: MousePreset,
    /// The digits 1, 3 and 7 turn the view (the keypad with NumLock on, as Blender's "Emulate
    /// Numpad"); the skinning methods are then Alt + digit.
    pub keypad_digits: bool,
}

impl Preferences {
    /// The preferences stored in `config_dir` (the defaults where there are none or they cannot
    /// be read; `None`: kept until the editor quits).
    #[must_use]
    pub fn load(config_dir: Option<&Path>) -> Self {
        let file = config_dir.map(|d| d.join("preferences.txt"));
        let mut prefs = Self { file: file.clone(), ..Self::default() };
        let text = file.and_then(|f| std::fs::read_to_string(f).ok()).unwrap_or_default();
        for line in text.lines() {
            match line.split_once('=').map(|(k, v)| (k.trim(), v.trim())) {
                Some(("mouse", value)) => prefs.mouse = MousePreset::from_key(value).unwrap_or(prefs.mouse),
                Some(("keypad_digits", value)) => prefs.keypad_digits = value == "true",
                _ => {}
            }
        }
        prefs
    }

    /// Stores the preferences; an error names the file.
    pub fn store(&self) -> Result<(), String> {
        let Some(file) = &self.file else { return Ok(()) };
        let text = format!("mouse = {}\nkeypad_digits = {}\n", self.mouse.key(), self.keypad_digits);
        file.parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|()| crate::io::atomic_write(file, |w| w.write_all(text.as_bytes())))
            .map_err(|e| format!("{}: cannot write the preferences: {e}", file.display()))
    }
}

/// Accessible label of the mouse-map menu (tests find it by this).
pub const MOUSE_LABEL: &str = "Mouse";
/// Accessible label of the keypad-digits checkbox.
pub const KEYPAD_LABEL: &str = "Digits turn the view (NumLock on)";

impl Preferences {
    /// The Preferences window while `open`; a change is stored at once (the error of a failed
    /// write is returned, the change kept until the editor quits).
    pub fn window_ui(&mut self, ctx: &egui::Context, open: &mut bool) -> Option<String> {
        let mut error = None;
        let before = (self.mouse, self.keypad_digits);
        egui::Window::new("Preferences").open(open).collapsible(false).resizable(false).show(ctx, |ui| {
            ui.horizontal(|ui| {
                let l = ui.label(MOUSE_LABEL);
                egui::ComboBox::from_id_salt("mouse_preset")
                    .selected_text(self.mouse.label())
                    .show_ui(ui, |ui| {
                        for p in MousePreset::ALL {
                            ui.selectable_value(&mut self.mouse, p, p.label());
                        }
                    })
                    .response
                    .labelled_by(l.id)
                    .on_hover_text("which buttons orbit, pan and dolly the view, the same in every mode");
            });
            ui.weak(self.mouse.help(super::state::Mode::Pose));
            ui.checkbox(&mut self.keypad_digits, KEYPAD_LABEL).on_hover_text(
                "for a keypad with NumLock on (or no keypad): 1 front, 3 right, 7 top, Ctrl for the opposite; the skinning methods become Alt+1 … Alt+4",
            );
        });
        if (self.mouse, self.keypad_digits) != before {
            error = self.store().err();
        }
        error
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mouse_map_is_kept_across_restarts() {
        let dir = tempfile::tempdir().unwrap();
        let cfg = dir.path().join("cfg");
        let mut p = Preferences::load(Some(&cfg));
        assert_eq!(p.mouse, MousePreset::Skinlab);
        p.mouse = MousePreset::Maya;
        p.keypad_digits = true;
        p.store().unwrap();
        assert_eq!(Preferences::load(Some(&cfg)).mouse, MousePreset::Maya);
        assert!(Preferences::load(Some(&cfg)).keypad_digits);
        std::fs::write(cfg.join("preferences.txt"), "colour = red\nmouse = nonsense\n").unwrap();
        assert_eq!(Preferences::load(Some(&cfg)).mouse, MousePreset::Skinlab);
    }
}
