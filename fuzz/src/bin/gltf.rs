//! AFL harness: see `skinlab_fuzz::gltf` and fuzz/README.md.

fn main() {
    afl::fuzz!(|data: &[u8]| {
        skinlab_fuzz::gltf(data);
    });
}
