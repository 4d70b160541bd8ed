//! Reading an input file with a size cap: only regular files are read (a FIFO would block for
//! ever, a device such as `/dev/zero` would never end), and never more than what the file may
//! legitimately hold, so a wrong path fails at once with one line instead of hanging or filling
//! memory.

use std::io::Read as _;
use std::path::Path;

/// The most a model file (`.glb` or `.gltf`) may hold: GLB's 32-bit length field.
pub const MODEL_CAP: u64 = u32::MAX as u64;
/// The most an image embedded on export may hold.
pub const IMAGE_CAP: u64 = 1 << 30;

/// Reads all of `path`, a regular file of at most `cap` bytes. The error is the problem without
/// the path ("is not a regular file (a FIFO)", "no such file", "is 1073741824 bytes, more than
/// ...").
pub fn read_input(path: &Path, cap: u64) -> Result<Vec<u8>, String> {
    let meta = std::fs::metadata(path).map_err(|e| problem(&e))?;
    check_kind(&meta)?;
    if meta.len() > cap {
        return Err(too_large(meta.len(), cap));
    }
    let file = std::fs::File::open(path).map_err(|e| problem(&e))?;
    // The path may have been replaced since: check what was opened.
    check_kind(&file.metadata().map_err(|e| problem(&e))?)?;
    // Sized from the metadata so that a large file is read without growing the vector (one more
    // byte to see that the file grew past the cap).
    let mut data = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0).saturating_add(1));
    file.take(cap.saturating_add(1)).read_to_end(&mut data).map_err(|e| problem(&e))?;
    if data.len() as u64 > cap {
        return Err(too_large(data.len() as u64, cap));
    }
    Ok(data)
}

/// [`read_input`] as UTF-8 text.
pub fn read_input_text(path: &Path, cap: u64) -> Result<String, String> {
    String::from_utf8(read_input(path, cap)?)
        .map_err(|e| format!("is not UTF-8 text (byte {})", e.utf8_error().valid_up_to()))
}

fn check_kind(meta: &std::fs::Metadata) -> Result<(), String> {
    if meta.is_file() {
        return Ok(());
    }
    Err(format!("is not a regular file ({})", kind_of(meta)))
}

/// What a file that is not a regular file is, for messages: "a directory", "a FIFO", "a device"...
pub(crate) fn kind_of(meta: &std::fs::Metadata) -> &'static str {
    if meta.is_dir() {
        "a directory"
    } else {
        special_kind(&meta.file_type())
    }
}

#[cfg(unix)]
fn special_kind(t: &std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt as _;
    if t.is_fifo() {
        "a FIFO"
    } else if t.is_char_device() || t.is_block_device() {
        "a device"
    } else if t.is_socket() {
        "a socket"
    } else {
        "a special file"
    }
}

#[cfg(not(unix))]
fn special_kind(_: &std::fs::FileType) -> &'static str {
    "a special file"
}

fn problem(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such file".to_owned(),
        _ => format!("cannot be read: {e}"),
    }
}

fn too_large(len: u64, cap: u64) -> String {
    format!("is {len} bytes, more than the {cap} bytes such a file may hold")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn special_files_and_oversized_files_are_refused() {
        assert_eq!(read_input(Path::new("/dev/zero"), 10).unwrap_err(), "is not a regular file (a device)");
        assert_eq!(read_input(Path::new("/"), 10).unwrap_err(), "is not a regular file (a directory)");
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("f");
        std::fs::write(&f, b"0123456789").unwrap();
        assert_eq!(read_input(&f, 10).unwrap(), b"0123456789");
        assert!(read_input(&f, 9).unwrap_err().contains("more than the 9 bytes"));
        assert_eq!(read_input(&dir.path().join("none"), 9).unwrap_err(), "no such file");
    }
}
