//! WebVTT and SubRip transcripts: timed cues with their spoken text.
//!
//! Both are read the way players read them: blocks separated by blank
//! lines, a `start --> end` timing line, then the cue's text lines. WebVTT's
//! header, `NOTE`, `STYLE` and `REGION` blocks, cue identifiers and cue
//! settings (`align:start` …) are skipped; markup (`<i>`, inline
//! timestamps, SubRip's `<font>`) is removed and character references are
//! decoded, so only the words spoken reach the index, with who spoke them:
//! a voice tag (`<v Ann>`, as Teams writes every cue) becomes `Ann: `, as
//! Zoom writes it in plain text. A malformed timing line is an error naming
//! its line, not a silently lost cue.

/// One cue: spoken from `start` to `end` seconds, its lines joined by spaces.
#[derive(Debug, Clone, PartialEq)]
pub struct Cue {
    pub start: f64,
    pub end: f64,
    pub text: String,
}

/// Parses a sidecar. WebVTT is recognised by its `WEBVTT` signature, SubRip
/// by elimination; `text` has `\n` line endings and no BOM.
pub(crate) fn parse(text: &str) -> Result<Vec<Cue>, String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let vtt = text.starts_with("WEBVTT") && text[6..].chars().next().is_none_or(|c| matches!(c, ' ' | '\t' | '\n'));
    let mut cues = Vec::new();
    let mut lines = text.lines().enumerate().peekable();
    if vtt {
        // The header block: the signature line and optional header lines.
        for (_, line) in lines.by_ref() {
            if line.trim().is_empty() {
                break;
            }
        }
    }
    while let Some((n, line)) = lines.next() {
        if line.trim().is_empty() {
            continue;
        }
        let mut block = vec![(n, line)];
        while let Some((m, l)) = lines.next_if(|(_, l)| !l.trim().is_empty()) {
            block.push((m, l));
        }
        let first = block[0].1.trim();
        if vtt && (first.starts_with("NOTE") || first == "STYLE" || first == "REGION") {
            continue;
        }
        // The timing line is the first or (after an identifier or SubRip's
        // counter) the second line of the block.
        let Some(at) = block.iter().take(2).position(|(_, l)| l.contains("-->")) else {
            return Err(format!("line {}: expected a cue timing line (start --> end)", n + 1));
        };
        let (tn, timing) = block[at];
        let (start, end) = timing_line(timing).ok_or_else(|| format!("line {}: bad cue timing {timing:?}", tn + 1))?;
        if end < start {
            return Err(format!("line {}: cue ends before it starts", tn + 1));
        }
        let words: Vec<String> = block[at + 1..].iter().map(|(_, l)| plain(l)).collect();
        let text = words.join(" ").split_whitespace().collect::<Vec<_>>().join(" ");
        if !text.is_empty() {
            cues.push(Cue { start, end, text });
        }
    }
    Ok(cues)
}

/// `00:01:02.500 --> 00:01:04.000 align:start` → (62.5, 64.0).
fn timing_line(line: &str) -> Option<(f64, f64)> {
    let (a, rest) = line.split_once("-->")?;
    let b = rest.split_whitespace().next()?;
    Some((timestamp(a.trim())?, timestamp(b)?))
}

/// `hh:mm:ss.ttt`, `mm:ss.ttt` (WebVTT) or `hh:mm:ss,ttt` (SubRip), in seconds.
fn timestamp(s: &str) -> Option<f64> {
    let (clock, frac) = s.split_once(['.', ',']).unwrap_or((s, "0"));
    if frac.is_empty() || frac.len() > 3 || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let parts: Vec<&str> = clock.split(':').collect();
    if !(2..=3).contains(&parts.len()) || parts.iter().any(|p| p.is_empty() || !p.bytes().all(|b| b.is_ascii_digit())) {
        return None;
    }
    let nums: Vec<u64> = parts.iter().map(|p| p.parse().ok()).collect::<Option<_>>()?;
    let (h, m, s) = match nums[..] {
        [m, s] => (0, m, s),
        [h, m, s] => (h, m, s),
        _ => return None,
    };
    if m > 59 || s > 59 {
        return None;
    }
    let millis: f64 = format!("0.{frac}").parse().ok()?;
    Some((h * 3600 + m * 60 + s) as f64 + millis)
}

/// A cue text line without markup, with character references decoded.
fn plain(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(i) = rest.find(['<', '&']) {
        out.push_str(&rest[..i]);
        rest = &rest[i..];
        if rest.starts_with('<') {
            match rest.find('>') {
                Some(j) => {
                    if let Some(who) = voice(&rest[1..j]) {
                        out.push_str(who);
                        out.push_str(": ");
                    }
                    rest = &rest[j + 1..];
                }
                None => {
                    out.push('<');
                    rest = &rest[1..];
                }
            }
            continue;
        }
        let entity = rest.find(';').filter(|&j| j <= 8).map(|j| (&rest[1..j], j));
        let decoded = entity.and_then(|(name, j)| {
            let c = match name {
                "amp" => '&',
                "lt" => '<',
                "gt" => '>',
                "quot" => '"',
                "apos" => '\'',
                "nbsp" => ' ',
                "lrm" | "rlm" => '\u{200b}',
                n if n.starts_with("#x") => char::from_u32(u32::from_str_radix(&n[2..], 16).ok()?)?,
                n if n.starts_with('#') => char::from_u32(n[1..].parse().ok()?)?,
                _ => return None,
            };
            Some((c, j))
        });
        match decoded {
            Some(('\u{200b}', j)) => rest = &rest[j + 1..],
            Some((c, j)) => {
                out.push(c);
                rest = &rest[j + 1..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// The speaker a WebVTT voice tag names: `v Ann`, `v.loud Ann Lee`.
fn voice(tag: &str) -> Option<&str> {
    let rest = tag.strip_prefix('v')?;
    if !rest.starts_with([' ', '\t', '.']) {
        return None;
    }
    let (_, name) = rest.split_once([' ', '\t'])?;
    Some(name.trim()).filter(|n| !n.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn webvtt_with_header_notes_styles_ids_settings_and_markup() {
        let vtt = "\u{feff}WEBVTT - a talk\nKind: captions\n\nNOTE written by hand\nacross two lines\n\nSTYLE\n::cue { color: red }\n\nintro\n00:00.000 --> 00:02.500 align:start position:10%\n<v Ann>Welcome to the <i>station</i>,\nfriends &amp; guests.\n\n00:00:02.500 --> 00:01:05.250\nSecond cue <00:00:03.000>with a timestamp.\n\n00:01:06.000 --> 00:01:07.000\n<c.loud></c>\n";
        let cues = parse(vtt).unwrap();
        assert_eq!(
            cues,
            [
                Cue { start: 0.0, end: 2.5, text: "Ann: Welcome to the station, friends & guests.".into() },
                Cue { start: 2.5, end: 65.25, text: "Second cue with a timestamp.".into() },
            ]
        );
    }

    #[test]
    fn voices_name_their_speaker() {
        let vtt = "WEBVTT\n\n00:01.000 --> 00:02.000\n<v.loud Ann Lee>Ship it.</v>\n\n00:02.000 --> 00:03.000\n<v>No name</v> <v\tBen>yes\n";
        let said: Vec<String> = parse(vtt).unwrap().into_iter().map(|c| c.text).collect();
        assert_eq!(said, ["Ann Lee: Ship it.", "No name Ben: yes"]);
    }

    #[test]
    fn subrip_with_counters_commas_and_font_tags() {
        let srt = "1\n00:00:01,000 --> 00:00:04,074\n<font color=\"#fff\">Hello</font> there,\n<b>general</b>.\n\n2\n01:00:00,5 --> 01:00:01,000\nAn hour &lt;later&gt;.\n";
        let cues = parse(srt).unwrap();
        assert_eq!(cues.len(), 2);
        assert_eq!(cues[0], Cue { start: 1.0, end: 4.074, text: "Hello there, general.".into() });
        assert_eq!(cues[1].start, 3600.5);
        assert_eq!(cues[1].text, "An hour <later>.");
    }

    #[test]
    fn broken_timings_name_their_line() {
        assert_eq!(
            parse("WEBVTT\n\n00:00:01.000 --> 00:0x:02.000\nhi\n"),
            Err("line 3: bad cue timing \"00:00:01.000 --> 00:0x:02.000\"".into())
        );
        assert_eq!(parse("1\nhello\nworld\n"), Err("line 1: expected a cue timing line (start --> end)".into()));
        assert_eq!(parse("WEBVTT\n\n00:05.000 --> 00:01.000\nback\n"), Err("line 3: cue ends before it starts".into()));
        assert_eq!(parse("WEBVTT\n"), Ok(vec![]));
    }
}
