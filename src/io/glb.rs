//! The GLB container (glTF 2.0 binary): a 12-byte header, a JSON chunk padded with spaces and an
//! optional BIN chunk padded with zeros, every chunk 4-byte aligned.

/// Assembles a GLB file from its JSON text and binary buffer; fails when the file would exceed
/// the 4 GiB that GLB's 32-bit length fields can describe (never a truncated length).
pub fn glb_bytes(json: &[u8], bin: Option<&[u8]>) -> Result<Vec<u8>, String> {
    let pad = |n: u64| (4 - n % 4) % 4;
    let json_len = json.len() as u64 + pad(json.len() as u64);
    let bin_len = bin.map_or(0, |b| b.len() as u64 + pad(b.len() as u64));
    let total = 12 + 8 + json_len + if bin.is_some() { 8 + bin_len } else { 0 };
    let too_big = |what: &str, n: u64| format!("the GLB {what} would be {n} bytes, more than the format's 4 GiB limit");
    let total32 = u32::try_from(total).map_err(|_| too_big("file", total))?;
    let json32 = u32::try_from(json_len).map_err(|_| too_big("JSON chunk", json_len))?;
    let bin32 = u32::try_from(bin_len).map_err(|_| too_big("BIN chunk", bin_len))?;
    let mut out = Vec::with_capacity(total32 as usize);
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&total32.to_le_bytes());
    out.extend_from_slice(&json32.to_le_bytes());
    out.extend_from_slice(&0x4E4F_534Au32.to_le_bytes());
    out.extend_from_slice(json);
    out.resize(20 + json_len as usize, b' ');
    if let Some(bin) = bin {
        out.extend_from_slice(&bin32.to_le_bytes());
        out.extend_from_slice(&0x004E_4942u32.to_le_bytes());
        out.extend_from_slice(bin);
        out.resize(total32 as usize, 0);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_are_aligned_and_length_matches() {
        let glb = glb_bytes(b"{\"asset\":{\"version\":\"2.0\"}}", Some(&[1, 2, 3])).unwrap();
        assert_eq!(glb.len() % 4, 0);
        assert_eq!(u32::from_le_bytes(glb[8..12].try_into().unwrap()) as usize, glb.len());
        let json_len = u32::from_le_bytes(glb[12..16].try_into().unwrap()) as usize;
        assert_eq!(json_len % 4, 0);
        let bin_at = 20 + json_len;
        assert_eq!(u32::from_le_bytes(glb[bin_at..bin_at + 4].try_into().unwrap()), 4);
    }
}
