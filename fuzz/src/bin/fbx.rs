//! AFL harness: see `skinlab_fuzz::fbx` and fuzz/README.md.

fn main() {
    skinlab_fuzz::warm_up();
    afl::fuzz!(|data: &[u8]| {
        skinlab_fuzz::fbx(data);
    });
}
