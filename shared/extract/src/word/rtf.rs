//! Rich Text Format (`.rtf`, as Word, WordPad and LibreOffice write it), read
//! from `rtf-grimoire`'s token stream one token at a time: nothing is held
//! but the group stack and the text, and groups nest without recursion.
//!
//! What the tokens mean is ours (RTF 1.9, "Conventions of an RTF reader"):
//! paragraphs end at `\par`; a paragraph's style (`\sN`, named in the
//! stylesheet) or its `\outlinelevelN` makes it a heading, a `Title` style
//! makes it the title line, a list (`\lsN`) a list item; `\intbl`
//! paragraphs are table cells ending at `\cell`, rows at `\row`, and a
//! row marked `\trhdr` is a heading row. Text comes as ANSI bytes in the
//! document's code page (`\ansicpgN`, `\'hh`) or as `\uN` characters,
//! whose ANSI fallbacks (`\ucN`) are skipped.
//!
//! Left out, as in [`super`]: deleted text of tracked changes (`\deleted`),
//! hidden text (`\v`), footnotes, comments, headers and footers, field
//! instructions (their results are kept), bookmarks' names, pictures and
//! objects, list numbers (`\listtext`), a shape's fallback copy
//! (`\shprslt`), and the lines of a generated table of contents or index
//! (by their style, [`super::generated_listing`]); a text box's paragraphs (`\shptxt`) are read before the
//! paragraph they are anchored in, as in a docx.

use super::{Para, Writer, malformed};
use crate::{ExtractError, Limits};
use encoding_rs::Encoding;
use rtf_grimoire::tokenizer::{Token, read_token};
use std::collections::HashMap;

/// Destinations whose text is not part of the page's flow.
#[rustfmt::skip]
const SKIPPED: &[&str] = &[
    "annotation", "atnauthor", "atndate", "atnid", "atnref", "author", "bkmkend", "bkmkstart", "colortbl",
    "comment", "datastore", "docvar", "falt", "fldinst", "filetbl", "fonttbl", "footer", "footerf", "footerl",
    "footerr", "footnote", "ftncn", "ftnsep", "ftnsepc", "aftncn", "aftnsep", "aftnsepc", "generator", "header",
    "headerf", "headerl", "headerr", "latentstyles", "listoverridetable", "listpicture", "listtable", "listtext",
    "nonshppict", "object", "operator", "pgdsctbl", "pict", "pntext", "pntxta", "pntxtb", "protusertbl", "revtbl",
    "rsidtbl", "shprslt", "sn", "sp", "sv", "tc", "template", "themedata", "colorschememapping", "txe", "rxe",
    "userprops", "xe", "xmlnstbl",
];

/// Destinations marked ignorable (`{\*\name …}`) that hold the flow's text.
const READ_THROUGH_IGNORABLE: &[&str] = &["shpinst", "shptxt"];

#[derive(Debug, Clone, Copy, PartialEq)]
enum Dest {
    /// The page's flow.
    Text,
    Skip,
    /// `\info`: only its `\title` is read.
    Info,
    Title,
    Styles,
    /// One entry of the stylesheet.
    Style,
}

/// What a group restores when it ends: its destination, character and
/// paragraph properties.
#[derive(Debug, Clone, Copy)]
struct State {
    dest: Dest,
    /// Deleted (tracked change) or hidden text.
    unseen: bool,
    /// ANSI characters that stand in for each `\uN` (`\ucN`).
    uc: usize,
    para: Props,
    /// Inside a text box: the paragraphs open outside the innermost one,
    /// which its own `\par`s never end (inherited by nested groups).
    floor: Option<usize>,
    /// This group is the text box (`\shptxt`): its end closes the box's
    /// paragraphs.
    opens_box: bool,
}

#[derive(Debug, Clone, Copy, Default)]
struct Props {
    style: i32,
    outline: Option<i32>,
    list: bool,
    in_table: bool,
}

#[derive(Default)]
struct Style {
    name: String,
    outline: Option<i32>,
    paragraph: bool,
}

struct Reader<'w, 'l> {
    w: &'w mut Writer<'l>,
    max_nesting: u32,
    stack: Vec<State>,
    st: State,
    /// The next token is the first of a group (it may name a destination);
    /// `star` after a `\*`.
    fresh: bool,
    star: bool,
    encoding: &'static Encoding,
    bytes: Vec<u8>,
    /// ANSI fallback characters still to skip after a `\uN`.
    fallback: usize,
    /// The first half of a surrogate pair, until its second `\uN`.
    high: Option<u16>,
    styles: HashMap<i32, Style>,
    entry: (i32, Style),
    title: String,
    /// Paragraphs this reader has open in the writer (text boxes open one
    /// inside another).
    open: usize,
    table: bool,
    row: bool,
    cell: bool,
    header_row: bool,
}

/// Reads an RTF document into `w`; returns the title its `\info` names.
pub(crate) fn read(bytes: &[u8], limits: &Limits, w: &mut Writer) -> Result<Option<String>, ExtractError> {
    if !bytes.starts_with(b"{\\rtf") {
        return Err(malformed("not an RTF file (no {\\rtf header)"));
    }
    let st = State { dest: Dest::Text, unseen: false, uc: 1, para: Props::default(), floor: None, opens_box: false };
    let mut r = Reader {
        w,
        max_nesting: limits.max_nesting,
        stack: Vec::new(),
        st,
        fresh: false,
        star: false,
        encoding: encoding_rs::WINDOWS_1252,
        bytes: Vec::new(),
        fallback: 0,
        high: None,
        styles: HashMap::new(),
        entry: (0, Style::default()),
        title: String::new(),
        open: 0,
        table: false,
        row: false,
        cell: false,
        header_row: false,
    };
    let mut input = bytes;
    while !input.is_empty() {
        match read_token(input) {
            Ok((rest, token)) => {
                input = rest;
                r.token(token)?;
            }
            // A stray backslash or brace the tokenizer cannot place: skip it.
            Err(_) => input = &input[1..],
        }
    }
    r.flush()?;
    r.paragraph_break()?;
    r.close_table()?;
    let title = r.title.split_whitespace().collect::<Vec<_>>().join(" ");
    Ok((!title.is_empty()).then_some(title))
}

impl Reader<'_, '_> {
    fn token(&mut self, token: Token) -> Result<(), ExtractError> {
        if matches!(token, Token::Newline(_)) {
            return Ok(());
        }
        let fresh = std::mem::replace(&mut self.fresh, false);
        if self.st.dest == Dest::Skip && !matches!(token, Token::StartGroup | Token::EndGroup) {
            return Ok(());
        }
        match token {
            Token::StartGroup => return self.start_group(),
            Token::EndGroup => return self.end_group(),
            Token::ControlSymbol('*') if fresh => {
                self.fresh = true;
                self.star = true;
            }
            Token::ControlWord { name, arg } => {
                if fresh && self.destination(&name) {
                    return Ok(());
                }
                self.control(&name, arg)?;
            }
            Token::ControlSymbol(c) => self.symbol(c)?,
            Token::Text(text) => self.text(&text),
            Token::ControlBin(_) | Token::Newline(_) => {}
        }
        Ok(())
    }

    fn start_group(&mut self) -> Result<(), ExtractError> {
        self.flush()?;
        if self.stack.len() as u32 >= self.max_nesting {
            return Err(ExtractError::Limit(format!(
                "groups nested more than {} deep (max_nesting)",
                self.max_nesting
            )));
        }
        self.stack.push(self.st);
        self.st.opens_box = false;
        match self.st.dest {
            Dest::Styles => {
                self.st.dest = Dest::Style;
                self.entry = (0, Style { paragraph: true, ..Style::default() });
            }
            Dest::Style | Dest::Title => self.st.dest = Dest::Skip,
            _ => {}
        }
        self.fresh = true;
        self.star = false;
        Ok(())
    }

    fn end_group(&mut self) -> Result<(), ExtractError> {
        self.flush()?;
        if let (true, Some(floor)) = (self.st.opens_box, self.st.floor) {
            while self.open > floor {
                self.end_paragraph();
            }
        }
        if self.st.dest == Dest::Style {
            let (number, style) = std::mem::take(&mut self.entry);
            if style.paragraph {
                self.styles.insert(number, style);
            }
        }
        // An unbalanced `}` ends nothing.
        if let Some(outer) = self.stack.pop() {
            self.st = outer;
        }
        Ok(())
    }

    /// The first control word of a group, when it names a destination:
    /// returns true when it was one (and is consumed).
    fn destination(&mut self, name: &str) -> bool {
        let star = std::mem::replace(&mut self.star, false);
        let dest = match (self.st.dest, name) {
            (Dest::Info, "title") => Dest::Title,
            (Dest::Info, _) => Dest::Skip,
            (_, "info") => Dest::Info,
            (_, "stylesheet") => Dest::Styles,
            (_, "shptxt") => {
                self.st.floor = Some(self.open);
                self.st.opens_box = true;
                return true;
            }
            (_, n) if SKIPPED.contains(&n) => Dest::Skip,
            (_, n) if star && !READ_THROUGH_IGNORABLE.contains(&n) => Dest::Skip,
            _ => return false,
        };
        self.st.dest = dest;
        true
    }

    fn control(&mut self, name: &str, arg: Option<i32>) -> Result<(), ExtractError> {
        let on = arg.is_none_or(|a| a != 0);
        if name != "'" {
            self.flush()?;
        }
        if self.st.dest == Dest::Style {
            match name {
                "s" => self.entry.0 = arg.unwrap_or(0),
                "cs" | "ds" | "ts" | "tsrowd" => self.entry.1.paragraph = false,
                "outlinelevel" => self.entry.1.outline = arg,
                _ => {}
            }
            return Ok(());
        }
        match name {
            "'" => {
                if self.fallback > 0 {
                    self.fallback -= 1;
                } else if !self.st.unseen {
                    self.bytes.push(arg.unwrap_or(0) as u8);
                }
            }
            "u" => {
                let code = arg.unwrap_or(0);
                let unit = (if code < 0 { code + 65536 } else { code }) as u16;
                // A character beyond the BMP comes as two \uN, its UTF-16 halves.
                let units: Vec<u16> = self.high.take().into_iter().chain([unit]).collect();
                if (0xD800..0xDC00).contains(&unit) {
                    self.high = Some(unit);
                } else {
                    self.write(&String::from_utf16_lossy(&units))?;
                }
                self.fallback = self.st.uc;
            }
            "uc" => self.st.uc = arg.unwrap_or(1).clamp(0, 16) as usize,
            "ansicpg" => self.encoding = crate::text::code_page(arg.unwrap_or(1252)),
            "mac" => self.encoding = encoding_rs::MACINTOSH,
            "par" | "sect" => self.paragraph_break()?,
            "line" => {
                self.ensure_paragraph()?;
                self.w.line_break();
            }
            "tab" => self.write("\t")?,
            "emdash" => self.write("\u{2014}")?,
            "endash" => self.write("\u{2013}")?,
            "bullet" => self.write("\u{2022}")?,
            "lquote" => self.write("\u{2018}")?,
            "rquote" => self.write("\u{2019}")?,
            "ldblquote" => self.write("\u{201C}")?,
            "rdblquote" => self.write("\u{201D}")?,
            "emspace" | "enspace" | "qmspace" | "nestcell" => self.write(" ")?,
            "cell" => self.end_cell()?,
            "row" => self.end_row()?,
            "trowd" => self.header_row = false,
            "trhdr" => {
                self.header_row = true;
                if self.row {
                    self.w.mark_header_row();
                }
            }
            "pard" => self.st.para = Props::default(),
            "s" => self.st.para.style = arg.unwrap_or(0),
            "outlinelevel" => self.st.para.outline = arg,
            "ls" => self.st.para.list = arg.unwrap_or(0) > 0,
            "intbl" => self.st.para.in_table = true,
            "itap" => self.st.para.in_table = arg.unwrap_or(1) > 0,
            "plain" => self.st.unseen = false,
            "deleted" | "v" => self.st.unseen = on,
            _ => {}
        }
        Ok(())
    }

    fn symbol(&mut self, c: char) -> Result<(), ExtractError> {
        match c {
            '\\' | '{' | '}' => self.text(&[c as u8]),
            '~' => self.write("\u{a0}")?,
            '_' => self.write("-")?,
            '\n' | '\r' => {
                self.flush()?;
                self.paragraph_break()?;
            }
            _ => {}
        }
        Ok(())
    }

    /// ANSI text (a run of bytes, or an escaped brace); the first bytes may
    /// be the fallback of a `\uN` just read.
    fn text(&mut self, text: &[u8]) {
        let skip = self.fallback.min(text.len());
        self.fallback -= skip;
        let text = &text[skip..];
        match self.st.dest {
            Dest::Style => self.entry.1.name.push_str(&String::from_utf8_lossy(text)),
            Dest::Title | Dest::Text if !self.st.unseen && !text.is_empty() => self.bytes.extend_from_slice(text),
            _ => {}
        }
    }

    /// Decodes the ANSI bytes gathered so far into the destination.
    fn flush(&mut self) -> Result<(), ExtractError> {
        if self.bytes.is_empty() {
            return Ok(());
        }
        let bytes = std::mem::take(&mut self.bytes);
        let (text, _) = self.encoding.decode_without_bom_handling(&bytes);
        self.write(&text)
    }

    fn write(&mut self, text: &str) -> Result<(), ExtractError> {
        match self.st.dest {
            Dest::Title => self.title.push_str(text),
            Dest::Text if !self.st.unseen => {
                self.ensure_paragraph()?;
                self.w.text(text);
            }
            _ => {}
        }
        Ok(())
    }

    fn ensure_paragraph(&mut self) -> Result<(), ExtractError> {
        if self.st.dest != Dest::Text {
            return Ok(());
        }
        let inside_box = self.st.floor.is_some();
        if self.st.para.in_table && !inside_box {
            if !self.table {
                self.w.start_table();
                self.table = true;
            }
            if !self.row {
                self.w.start_row(self.header_row);
                self.row = true;
            }
            if !self.cell {
                self.w.start_cell();
                self.cell = true;
            }
        } else if !(inside_box && self.row) {
            // A text box in a cell stays in it; anything else ends the table.
            self.close_table()?;
        }
        if self.open == self.floor() {
            self.w.start_paragraph(Para::Body)?;
            self.open += 1;
        }
        Ok(())
    }

    /// Paragraphs open outside the innermost text box.
    fn floor(&self) -> usize {
        self.st.floor.unwrap_or(0)
    }

    fn paragraph_break(&mut self) -> Result<(), ExtractError> {
        if self.st.dest != Dest::Text {
            return Ok(());
        }
        if self.open > self.floor() {
            self.w.set_kind(self.kind());
            self.end_paragraph();
        }
        Ok(())
    }

    fn end_paragraph(&mut self) {
        if self.open > 0 {
            self.w.end_paragraph();
            self.open -= 1;
        }
    }

    /// What the paragraph about to end is, from its own properties and its
    /// style's.
    fn kind(&self) -> Para {
        let p = self.st.para;
        if p.in_table {
            return Para::Body;
        }
        let style = self.styles.get(&p.style);
        let name = style.map(|s| s.name.trim().trim_end_matches(';').trim().to_lowercase()).unwrap_or_default();
        let outline = p.outline.or(style.and_then(|s| s.outline)).filter(|l| (0..9).contains(l));
        let numbered = name.strip_prefix("heading ").and_then(|n| n.parse::<u8>().ok());
        match (outline, numbered) {
            _ if super::generated_listing(&name) => Para::Generated,
            (Some(level), _) => Para::Heading(level as u8 + 1),
            (None, Some(level)) => Para::Heading(level),
            _ if name == "title" => Para::Title,
            _ if p.list => Para::ListItem,
            _ => Para::Body,
        }
    }

    fn end_cell(&mut self) -> Result<(), ExtractError> {
        self.st.para.in_table = true;
        self.ensure_paragraph()?;
        self.end_paragraph();
        self.cell = false;
        Ok(())
    }

    fn end_row(&mut self) -> Result<(), ExtractError> {
        if self.row {
            self.w.end_row()?;
            self.row = false;
            self.cell = false;
        }
        Ok(())
    }

    fn close_table(&mut self) -> Result<(), ExtractError> {
        self.end_row()?;
        if self.table {
            self.w.end_table();
            self.table = false;
        }
        Ok(())
    }
}
