//! A table row asked for by its key written another way than the cell, and
//! by the name that tells it from the other rows sharing that key: the
//! monthly stock prices of `eval/rows-pdf/stocks.pdf` (Calc's print of the
//! `vega_datasets` table) hold every first of the month once per company,
//! so `Oct 1 2009` keys an MSFT, an AMZN, an IBM, a GOOG and an AAPL row.
//! The chunk whose row holds the key *and* the symbol must lead
//! (docs/EVALUATION.md, "Row lookups by key").

use ragpipe_integration_tests::ragpipe_bin;
use std::path::Path;
use std::process::Command;

#[test]
fn a_row_is_found_by_its_key_and_its_name_together() {
    let (folder, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let pdf = Path::new(env!("CARGO_MANIFEST_DIR")).join("../eval/rows-pdf/stocks.pdf");
    std::fs::copy(pdf, folder.path().join("stocks.pdf")).unwrap();
    let run =
        |args: &[&str]| Command::new(ragpipe_bin()).arg("--data-dir").arg(data.path()).args(args).output().unwrap();
    let out = run(&["ingest", folder.path().to_str().unwrap(), "--quiet"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));

    for (asked, row) in [
        ("What was the Amazon (AMZN) share price on 08/01/2004?", "AMZN | Aug 1 2004 | 38.14"),
        ("What was the Amazon (AMZN) share price on 1 October 2009?", "AMZN | Oct 1 2009 | 118.81"),
        ("What was the Amazon (AMZN) share price on 2010-01-01?", "AMZN | Jan 1 2010 | 125.41"),
        ("What did Amazon (AMZN) stock trade at in June 2009?", "AMZN | Jun 1 2009 | 83.66"),
        ("Microsoft (MSFT) closing price, 2009-10-01?", "MSFT | Oct 1 2009 | 27.48"),
    ] {
        let out = run(&["search", asked, "--json", "--no-threshold"]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let first = &json["hits"][0];
        let content = first["content"].as_str().unwrap_or_else(|| panic!("{json}"));
        assert!(content.lines().any(|l| l == row), "{asked}: the first hit lacks {row:?}:\n{content}");
        assert!(first["locator"].as_str().unwrap().starts_with("#page="), "cited by page: {first}");
    }
}

/// A log exported with ISO timestamps (`2024-03-05T14:20:00Z`, as databases
/// and a sheet's date-time cells write them) is found by the day asked in
/// words and the host: the timestamp's date is a key like any date.
#[test]
fn a_timestamped_row_is_found_by_its_day_and_host() {
    let (folder, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let events = ["disk full", "certificate expired", "backup finished", "restart", "memory pressure"];
    let mut csv = String::from("time,host,event\n");
    for day in 0..300u32 {
        let (month, dom) = month_day(day);
        for (hour, host) in [(3, "db-1"), (9, "web-1")] {
            let event = events[(day as usize + hour) % events.len()];
            csv.push_str(&format!("2024-{month:02}-{dom:02}T{hour:02}:20:00Z,{host},{event}\n"));
        }
    }
    std::fs::write(folder.path().join("events.csv"), csv).unwrap();
    let run =
        |args: &[&str]| Command::new(ragpipe_bin()).arg("--data-dir").arg(data.path()).args(args).output().unwrap();
    let out = run(&["ingest", folder.path().to_str().unwrap(), "--quiet"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));

    let asked = "What happened on web-1 on 5 March 2024?";
    let out = run(&["search", asked, "--json", "--no-threshold"]);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let content = json["hits"][0]["content"].as_str().unwrap_or_else(|| panic!("{json}"));
    let row = "2024-03-05T09:20:00Z | web-1 | ";
    assert!(content.lines().any(|l| l.starts_with(row)), "{asked}: the first hit lacks {row:?}:\n{content}");
}

/// Day `n` of 2024 (0 = 1 January) as (month, day of month).
fn month_day(n: u32) -> (u32, u32) {
    let lengths = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
    let (mut month, mut left) = (1, n);
    for len in lengths {
        if left < len {
            break;
        }
        left -= len;
        month += 1;
    }
    (month, left + 1)
}
