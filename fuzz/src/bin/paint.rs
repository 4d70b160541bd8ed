//! AFL harness: see `skinlab_fuzz::paint` and fuzz/README.md.

fn main() {
    afl::fuzz!(|data: &[u8]| {
        skinlab_fuzz::paint(data);
    });
}
