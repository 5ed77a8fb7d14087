//! The title a `.ppt` keeps in its `\u{5}SummaryInformation` stream (an OLE
//! property set, [MS-OLEPS]): the first property set's `PIDSI_TITLE`, a
//! string in the set's code page (`PIDSI_CODEPAGE`) or UTF-16. What
//! PowerPoint shows as the file's title, as a pptx's `docProps/core.xml`.

use crate::text::utf16le;

/// The property ids of the code page and the title.
const CODE_PAGE: u32 = 1;
const TITLE: u32 = 2;
/// Property types: a 16-bit integer, a code-page string, a UTF-16 string.
const I2: u32 = 0x0002;
const LPSTR: u32 = 0x001E;
const LPWSTR: u32 = 0x001F;
/// The code page that says a code-page string is UTF-16.
const UTF16: i32 = 1200;
/// Properties looked through at most (a summary holds about twenty).
const MAX_PROPERTIES: usize = 1024;

/// The title the property set `set` names, if any (one line).
pub(super) fn title(set: &[u8]) -> Option<String> {
    let u32_at = |at: usize| Some(u32::from_le_bytes(set.get(at..at.checked_add(4)?)?.try_into().ok()?));
    // The stream header is 28 bytes, then FMTID (16) and offset of the first set.
    let base = u32_at(44)? as usize;
    let count = (u32_at(base.checked_add(4)?)? as usize).min(MAX_PROPERTIES);
    let value = |id: u32| {
        (0..count).find_map(|i| {
            let at = base + 8 + 8 * i;
            (u32_at(at)? == id).then(|| u32_at(at + 4).and_then(|o| base.checked_add(o as usize)))?
        })
    };
    let code_page = value(CODE_PAGE)
        .filter(|&at| u32_at(at).is_some_and(|t| t & 0xFFFF == I2))
        .and_then(|at| set.get(at + 4..at + 6))
        .map_or(1252, |b| i32::from(u16::from_le_bytes([b[0], b[1]])));
    let at = value(TITLE)?;
    let len = u32_at(at + 4)? as usize;
    let text = match u32_at(at)? & 0xFFFF {
        LPSTR if code_page == UTF16 => utf16le(set.get(at + 8..(at + 8).checked_add(len)?)?),
        LPSTR => crate::text::code_page(code_page).decode(set.get(at + 8..(at + 8).checked_add(len)?)?).0.into_owned(),
        LPWSTR => utf16le(set.get(at + 8..(at + 8).checked_add(len.checked_mul(2)?)?)?),
        _ => return None,
    };
    let title = text.trim_end_matches('\0').split_whitespace().collect::<Vec<_>>().join(" ");
    (!title.is_empty()).then_some(title)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A summary stream of one property set holding `properties`
    /// (id, type, value bytes).
    fn summary(properties: &[(u32, u32, Vec<u8>)]) -> Vec<u8> {
        let mut out = vec![0xFE, 0xFF, 0, 0, 0, 0, 0, 0];
        out.extend([0; 16]); // CLSID
        out.extend(1u32.to_le_bytes());
        out.extend([0x11; 16]); // FMTID
        out.extend(48u32.to_le_bytes());
        let mut values = Vec::new();
        let mut table = Vec::new();
        for (id, kind, bytes) in properties {
            table.extend(id.to_le_bytes());
            table.extend((8 + 8 * properties.len() as u32 + values.len() as u32).to_le_bytes());
            values.extend(kind.to_le_bytes());
            values.extend(bytes);
        }
        out.extend((8 + table.len() as u32 + values.len() as u32).to_le_bytes());
        out.extend((properties.len() as u32).to_le_bytes());
        out.extend(table);
        out.extend(values);
        out
    }

    fn string(bytes: &[u8], count: u32) -> Vec<u8> {
        let mut out = count.to_le_bytes().to_vec();
        out.extend(bytes);
        out
    }

    #[test]
    fn the_title_is_read_in_its_code_page() {
        // "Café  plan" in Windows-1252, its spaces collapsed.
        let cp1252 =
            summary(&[(CODE_PAGE, I2, vec![0xE4, 0x04, 0, 0]), (TITLE, LPSTR, string(b"Caf\xE9  plan\0", 11))]);
        assert_eq!(title(&cp1252).as_deref(), Some("Café plan"));
        let wide: Vec<u8> = "Plan für 2027\0".encode_utf16().flat_map(u16::to_le_bytes).collect();
        assert_eq!(title(&summary(&[(TITLE, LPWSTR, string(&wide, 14))])).as_deref(), Some("Plan für 2027"));
        // No title, an empty one, a length past the stream: none.
        assert_eq!(title(&summary(&[(CODE_PAGE, I2, vec![0xE4, 0x04, 0, 0])])), None);
        assert_eq!(title(&summary(&[(TITLE, LPSTR, string(b"\0", 1))])), None);
        assert_eq!(title(&summary(&[(TITLE, LPSTR, string(b"cut", 4000))])), None);
        assert_eq!(title(&[0; 20]), None);
    }
}
