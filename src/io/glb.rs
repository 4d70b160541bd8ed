//! The GLB container (glTF 2.0 binary): a 12-byte header, a JSON chunk padded with spaces and an
//! optional BIN chunk padded with zeros, every chunk 4-byte aligned.

/// Assembles a GLB file from its JSON text and binary buffer.
#[must_use]
pub fn glb_bytes(json: &[u8], bin: Option<&[u8]>) -> Vec<u8> {
    let pad = |n: usize| (4 - n % 4) % 4;
    let json_len = json.len() + pad(json.len());
    let bin_len = bin.map_or(0, |b| b.len() + pad(b.len()));
    let total = 12 + 8 + json_len + if bin.is_some() { 8 + bin_len } else { 0 };
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&(total as u32).to_le_bytes());
    out.extend_from_slice(&(json_len as u32).to_le_bytes());
    out.extend_from_slice(&0x4E4F_534Au32.to_le_bytes());
    out.extend_from_slice(json);
    out.resize(out.len() + pad(json.len()), b' ');
    if let Some(bin) = bin {
        out.extend_from_slice(&(bin_len as u32).to_le_bytes());
        out.extend_from_slice(&0x004E_4942u32.to_le_bytes());
        out.extend_from_slice(bin);
        out.resize(out.len() + pad(bin.len()), 0);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_are_aligned_and_length_matches() {
        let glb = glb_bytes(b"{\"asset\":{\"version\":\"2.0\"}}", Some(&[1, 2, 3]));
        assert_eq!(glb.len() % 4, 0);
        assert_eq!(u32::from_le_bytes(glb[8..12].try_into().unwrap()) as usize, glb.len());
        let json_len = u32::from_le_bytes(glb[12..16].try_into().unwrap()) as usize;
        assert_eq!(json_len % 4, 0);
        let bin_at = 20 + json_len;
        assert_eq!(u32::from_le_bytes(glb[bin_at..bin_at + 4].try_into().unwrap()), 4);
    }
}
