//! The editor's window loop run so that a panic on its thread becomes one line of error and exit
//! status 2 instead of a backtrace and status 101: winit's X11 start-up unwraps the keyboard
//! setup, which fails where the X keyboard data (xkb-data) is missing, as on a bare container
//! with a carried X server (seen on the lent GPU machine). Panics on other threads still go to
//! the hook that was there; with `RUST_BACKTRACE` set, so do this thread's, and the error line is
//! returned as well.

use std::panic::{self, AssertUnwindSafe, PanicHookInfo};
use std::sync::{Arc, Mutex};

/// A panic hook, as `std::panic::take_hook` returns it.
type Hook = Box<dyn Fn(&PanicHookInfo<'_>) + Send + Sync>;

/// Runs `f` on this thread; a panic in it is returned as `Err` with its message and place.
pub fn run_guarded<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    let this = std::thread::current().id();
    let verbose = std::env::var_os("RUST_BACKTRACE").is_some_and(|v| v != "0");
    let caught: Arc<Mutex<Option<String>>> = Arc::new(Mutex::new(None));
    let previous: Arc<Hook> = Arc::new(panic::take_hook());
    {
        let (caught, previous) = (Arc::clone(&caught), Arc::clone(&previous));
        panic::set_hook(Box::new(move |info| {
            if std::thread::current().id() != this {
                previous(info);
                return;
            }
            if let Ok(mut slot) = caught.lock() {
                *slot = Some(describe(info));
            }
            if verbose {
                previous(info);
            }
        }));
    }
    let result = panic::catch_unwind(AssertUnwindSafe(f));
    panic::set_hook(Box::new(move |info| previous(info)));
    result.map_err(|_| {
        let text = caught.lock().ok().and_then(|mut s| s.take()).unwrap_or_else(|| "a panic".to_owned());
        explain(&text)
    })
}

/// The panic's message and where it happened.
fn describe(info: &PanicHookInfo<'_>) -> String {
    let payload = info.payload();
    let message = payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".to_owned());
    match info.location() {
        Some(at) => format!("{message} ({}:{})", at.file(), at.line()),
        None => message,
    }
}

/// The error line for a caught panic: what to do about the known causes, the panic's own words
/// for the others.
fn explain(text: &str) -> String {
    let text = text.replace('\n', " ");
    if text.contains("XKBNotFound") {
        format!(
            "the window system found no X keyboard data (xkb): install the xkb-data package (xkeyboard-config), or \
             set XKB_CONFIG_ROOT to its folder [{text}]"
        )
    } else {
        format!("the window stopped on an internal error: {text}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_becomes_its_message_and_the_value_passes_through() {
        assert_eq!(run_guarded(|| 7), Ok(7));
        let e = run_guarded(|| -> u8 { panic!("boom {}", 3) }).unwrap_err();
        assert!(e.contains("internal error: boom 3 (") && e.contains("panic_guard.rs:"), "{e}");
        let e =
            run_guarded(|| -> u8 { panic!("called `Result::unwrap()` on an `Err` value: XKBNotFound") }).unwrap_err();
        assert!(e.starts_with("the window system found no X keyboard data (xkb): install the xkb-data"), "{e}");
        // The hook that was there is back: a later panic elsewhere is reported as before.
        assert_eq!(run_guarded(|| "after"), Ok("after"));
    }
}
