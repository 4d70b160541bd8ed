//! AFL harness: see `skinlab_fuzz::pose` and fuzz/README.md.

fn main() {
    afl::fuzz!(|data: &[u8]| {
        skinlab_fuzz::pose(data);
    });
}
