//! Cell values rendered as a person sees them in a spreadsheet application,
//! because the rendered text is both what gets embedded and what is quoted
//! back: integers without `.0`, floats at Excel's 15 significant digits (so
//! `7 * 0.1` reads `0.7`, not `0.7000000000000001`), dates as ISO 8601 dates
//! with a time only when it is not midnight, durations as `H:MM:SS`, booleans
//! as `true`/`false`, formula cells as their cached value, errors as Excel
//! writes them (`#DIV/0!`). Number formats (currency, percent, thousands
//! separators) are not applied: calamine does not expose them while
//! streaming, and the raw number is the unambiguous reading.

use calamine::{Data, DataRef, ExcelDateTime};
use std::fmt::Write;

/// Whether a rendered cell holds words or a value (number, date, boolean,
/// error); a header row names columns, so it holds words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Shape {
    Text,
    Value,
}

/// Appends the text of a streamed (xlsx, xlsb) cell; `None` for an empty one.
pub(crate) fn render_ref(out: &mut String, v: &DataRef<'_>) -> Option<Shape> {
    match v {
        DataRef::Empty => None,
        DataRef::String(s) => text(out, s),
        DataRef::SharedString(s) => text(out, s),
        DataRef::Int(i) => value(write!(out, "{i}")),
        DataRef::Float(f) => value(float(out, *f)),
        DataRef::Bool(b) => value(write!(out, "{b}")),
        DataRef::DateTime(d) => value(datetime(out, d)),
        DataRef::DateTimeIso(s) => value(iso_datetime(out, s)),
        DataRef::DurationIso(s) => value(iso_duration(out, s)),
        DataRef::Error(e) => value(write!(out, "{e}")),
    }
}

/// Appends the text of a cell read as a whole range (xls, ods).
pub(crate) fn render(out: &mut String, v: &Data) -> Option<Shape> {
    match v {
        Data::Empty => None,
        Data::String(s) => text(out, s),
        Data::Int(i) => value(write!(out, "{i}")),
        Data::Float(f) => value(float(out, *f)),
        Data::Bool(b) => value(write!(out, "{b}")),
        Data::DateTime(d) => value(datetime(out, d)),
        Data::DateTimeIso(s) => value(iso_datetime(out, s)),
        Data::DurationIso(s) => value(iso_duration(out, s)),
        Data::Error(e) => value(write!(out, "{e}")),
    }
}

/// The shape of a CSV field, which is always text: a field that reads as a
/// number is a value, for header detection.
pub(crate) fn csv_shape(field: &str) -> Shape {
    if is_number(field) { Shape::Value } else { Shape::Text }
}

/// Whether text written in a cell reads as a number: `1240`, `-3`,
/// `3,980.50` (thousands separated), `12 %`. What a header row's cells are
/// not, in delimited text and in HTML tables alike.
pub(crate) fn is_number(cell: &str) -> bool {
    cell.trim().trim_end_matches('%').replace([',', ' '], "").parse::<f64>().is_ok()
}

fn text(out: &mut String, s: &str) -> Option<Shape> {
    out.push_str(s);
    Some(Shape::Text)
}

fn value(_written: std::fmt::Result) -> Option<Shape> {
    Some(Shape::Value)
}

/// A float as Excel shows it in a General cell: 15 significant digits, then
/// the shortest decimal that reads back as that value; whole numbers without
/// a fraction; very large or small magnitudes in exponent form.
pub(super) fn float(out: &mut String, f: f64) -> std::fmt::Result {
    if !f.is_finite() {
        return write!(out, "{f}");
    }
    let rounded: f64 = format!("{f:.14e}").parse().unwrap_or(f);
    let magnitude = rounded.abs();
    if rounded == rounded.trunc() && magnitude < 1e15 {
        write!(out, "{}", rounded as i64)
    } else if !(1e-9..1e15).contains(&magnitude) {
        write!(out, "{rounded:e}")
    } else {
        write!(out, "{rounded}")
    }
}

/// A date as `YYYY-MM-DD`, a date-time as `YYYY-MM-DDTHH:MM:SS`, a time of
/// day (serial below 1) as `HH:MM:SS`, a duration as `H:MM:SS`.
fn datetime(out: &mut String, d: &ExcelDateTime) -> std::fmt::Result {
    if d.is_duration() {
        return duration(out, d.as_f64() * 86_400.0);
    }
    let (y, mo, day, h, mi, s, ms) = d.to_ymd_hms_milli();
    let serial = d.as_f64();
    if (0.0..1.0).contains(&serial) {
        return time(out, h, mi, s, ms);
    }
    write!(out, "{y:04}-{mo:02}-{day:02}")?;
    if (h, mi, s, ms) != (0, 0, 0, 0) {
        out.push('T');
        time(out, h, mi, s, ms)?;
    }
    Ok(())
}

fn time(out: &mut String, h: u8, mi: u8, s: u8, ms: u16) -> std::fmt::Result {
    write!(out, "{h:02}:{mi:02}:{s:02}")?;
    if ms > 0 { write!(out, ".{ms:03}") } else { Ok(()) }
}

fn duration(out: &mut String, seconds: f64) -> std::fmt::Result {
    let total = seconds.round() as i64;
    let sign = if total < 0 { "-" } else { "" };
    let total = total.abs();
    write!(out, "{sign}{}:{:02}:{:02}", total / 3600, total / 60 % 60, total % 60)
}

/// ODS dates arrive as ISO text already; a midnight time part is dropped to
/// match the other formats.
pub(super) fn iso_datetime(out: &mut String, s: &str) -> std::fmt::Result {
    match s.split_once('T') {
        Some((date, time)) if time.chars().all(|c| matches!(c, '0' | ':' | '.')) => out.push_str(date),
        _ => out.push_str(s),
    }
    Ok(())
}

/// ODS durations arrive as ISO 8601 (`PT12H30M00S`, `P1DT2H`); rendered as
/// `H:MM:SS` like the other formats, or verbatim when they do not parse.
fn iso_duration(out: &mut String, s: &str) -> std::fmt::Result {
    match parse_iso_duration(s) {
        Some(seconds) => duration(out, seconds),
        None => {
            out.push_str(s);
            Ok(())
        }
    }
}

fn parse_iso_duration(s: &str) -> Option<f64> {
    let (sign, rest) = match s.strip_prefix('-') {
        Some(r) => (-1.0, r),
        None => (1.0, s),
    };
    let rest = rest.strip_prefix('P')?;
    let mut seconds = 0.0;
    let mut in_time = false;
    let mut number = String::new();
    for c in rest.chars() {
        let unit = match (c, in_time) {
            ('T', _) => {
                in_time = true;
                continue;
            }
            (c, _) if c.is_ascii_digit() || c == '.' => {
                number.push(c);
                continue;
            }
            ('D', false) => 86_400.0,
            ('H', true) => 3_600.0,
            ('M', true) => 60.0,
            ('S', true) => 1.0,
            _ => return None,
        };
        seconds += number.parse::<f64>().ok()? * unit;
        number.clear();
    }
    number.is_empty().then_some(sign * seconds)
}

#[cfg(test)]
mod tests {
    use super::*;
    use calamine::ExcelDateTimeType;

    fn show(v: Data) -> String {
        let mut s = String::new();
        render(&mut s, &v);
        s
    }

    #[test]
    fn numbers_read_as_people_write_them() {
        assert_eq!(show(Data::Float(10.0)), "10");
        assert_eq!(show(Data::Float(-0.0)), "0");
        assert_eq!(show(Data::Float(7.0 * 0.1)), "0.7");
        assert_eq!(show(Data::Float(1.0 / 3.0)), "0.333333333333333");
        assert_eq!(show(Data::Float(1234567.891)), "1234567.891");
        assert_eq!(show(Data::Float(123456789012.0)), "123456789012");
        assert_eq!(show(Data::Float(6.02214076e23)), "6.02214076e23");
        assert_eq!(show(Data::Int(-42)), "-42");
        assert_eq!(show(Data::Bool(true)), "true");
        assert_eq!(show(Data::Error(calamine::CellErrorType::Div0)), "#DIV/0!");
    }

    #[test]
    fn a_cell_written_as_a_number_is_a_value() {
        for number in ["1240", "-3", " 2.5 ", "3,980.50", "1 042 300", "12 %", "1e3"] {
            assert_eq!(csv_shape(number), Shape::Value, "{number}");
        }
        for words in ["Total", "INV-41", "2024-03-05", "12 apples", ""] {
            assert_eq!(csv_shape(words), Shape::Text, "{words}");
        }
    }

    #[test]
    fn dates_are_iso() {
        let dt = |v| Data::DateTime(ExcelDateTime::new(v, ExcelDateTimeType::DateTime, false));
        assert_eq!(show(dt(45366.0)), "2024-03-15");
        assert_eq!(show(dt(45367.6041666667)), "2024-03-16T14:30:00");
        assert_eq!(show(dt(0.5208333333)), "12:30:00");
        let dur = Data::DateTime(ExcelDateTime::new(1.5, ExcelDateTimeType::TimeDelta, false));
        assert_eq!(show(dur), "36:00:00");
        assert_eq!(show(Data::DateTimeIso("2024-03-15T00:00:00".into())), "2024-03-15");
        assert_eq!(show(Data::DateTimeIso("2024-03-16T14:30:00".into())), "2024-03-16T14:30:00");
        assert_eq!(show(Data::DurationIso("PT12H30M00S".into())), "12:30:00");
        assert_eq!(show(Data::DurationIso("P1DT2H".into())), "26:00:00");
        assert_eq!(show(Data::DurationIso("bogus".into())), "bogus");
    }
}
