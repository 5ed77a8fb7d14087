//! A table row asked for by its key written another way than the cell, and
//! by the name that tells it from the other rows sharing that key: the
//! monthly stock prices of `eval/rows-pdf/stocks.pdf` (Calc's print of the
//! `vega_datasets` table) hold every first of the month once per company,
//! so `Oct 1 2009` keys an MSFT, an AMZN, an IBM, a GOOG and an AAPL row.
//! The chunk whose row holds the key *and* the symbol must lead
//! (docs/EVALUATION.md, "Row lookups by key").

use ragpipe_integration_tests::ragpipe_bin;
use std::path::Path;
use std::process::{Command, Output};
use tempfile::TempDir;

fn ragpipe(data: &Path, args: &[&str]) -> Output {
    Command::new(ragpipe_bin()).arg("--data-dir").arg(data).args(args).output().unwrap()
}

/// A new index of `folder`'s files.
fn ingest(folder: &Path) -> TempDir {
    let data = tempfile::tempdir().unwrap();
    let out = ragpipe(data.path(), &["ingest", folder.to_str().unwrap(), "--quiet"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    data
}

/// Asserts that the first hit for `asked` holds a row starting with `row`
/// (the whole row when it ends in no ` | `), and returns the hit.
fn first_hit_holds(data: &Path, asked: &str, row: &str) -> serde_json::Value {
    let out = ragpipe(data, &["search", asked, "--json", "--no-threshold"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let first = json["hits"][0].clone();
    let content = first["content"].as_str().unwrap_or_else(|| panic!("{json}"));
    let holds = |l: &str| if row.ends_with(" | ") { l.starts_with(row) } else { l == row };
    assert!(content.lines().any(holds), "{asked}: the first hit lacks {row:?}:\n{content}");
    first
}

#[test]
fn a_row_is_found_by_its_key_and_its_name_together() {
    let folder = tempfile::tempdir().unwrap();
    let pdf = Path::new(env!("CARGO_MANIFEST_DIR")).join("../eval/rows-pdf/stocks.pdf");
    std::fs::copy(pdf, folder.path().join("stocks.pdf")).unwrap();
    let data = ingest(folder.path());
    for (asked, row) in [
        ("What was the Amazon (AMZN) share price on 08/01/2004?", "AMZN | Aug 1 2004 | 38.14"),
        ("What was the Amazon (AMZN) share price on 1 October 2009?", "AMZN | Oct 1 2009 | 118.81"),
        ("What was the Amazon (AMZN) share price on 2010-01-01?", "AMZN | Jan 1 2010 | 125.41"),
        ("What did Amazon (AMZN) stock trade at in June 2009?", "AMZN | Jun 1 2009 | 83.66"),
        ("Microsoft (MSFT) closing price, 2009-10-01?", "MSFT | Oct 1 2009 | 27.48"),
    ] {
        let first = first_hit_holds(data.path(), asked, row);
        assert!(first["locator"].as_str().unwrap().starts_with("#page="), "cited by page: {first}");
    }
}

/// A log exported with ISO timestamps (`2024-03-05T14:20:00Z`, as databases
/// and a sheet's date-time cells write them) is found by the day asked in
/// words and the host: the timestamp's date is a key like any date.
#[test]
fn a_timestamped_row_is_found_by_its_day_and_host() {
    let folder = tempfile::tempdir().unwrap();
    let events = ["disk full", "certificate expired", "backup finished", "restart", "memory pressure"];
    let mut csv = String::from("time,host,event\n");
    // The first 28 days of ten months: no calendar needed.
    for (month, dom) in (1..=10u32).flat_map(|m| (1..=28u32).map(move |d| (m, d))) {
        for (hour, host) in [(3, "db-1"), (9, "web-1")] {
            let event = events[(month * 28 + dom + hour) as usize % events.len()];
            csv.push_str(&format!("2024-{month:02}-{dom:02}T{hour:02}:20:00Z,{host},{event}\n"));
        }
    }
    std::fs::write(folder.path().join("events.csv"), csv).unwrap();
    let data = ingest(folder.path());
    first_hit_holds(data.path(), "What happened on web-1 on 5 March 2024?", "2024-03-05T09:20:00Z | web-1 | ");
}

/// A quarterly table keyed `2016 Q3` is asked for "the third quarter of
/// 2016": the quarter is one key, however either side writes it.
#[test]
fn a_quarter_is_found_however_it_is_written() {
    let folder = tempfile::tempdir().unwrap();
    let mut csv = String::from("quarter,region,revenue,orders\n");
    for (r, region) in ["North", "South", "East", "West", "Central", "Islands"].iter().enumerate() {
        for n in 0..40u32 {
            let (year, q) = (2010 + n / 4, n % 4 + 1);
            let revenue = 1_000_000 + (n * 7919 + r as u32 * 104_729) % 500_000;
            csv.push_str(&format!("{year} Q{q},{region},\"{revenue}\",{}\n", 200 + (n * 31 + r as u32 * 17) % 300));
        }
    }
    std::fs::write(folder.path().join("revenue.csv"), csv).unwrap();
    let data = ingest(folder.path());
    for (asked, row) in [
        ("What was North's revenue in the third quarter of 2016?", "2016 Q3 | North | "),
        ("Islands orders 1Q12", "2012 Q1 | Islands | "),
    ] {
        first_hit_holds(data.path(), asked, row);
    }
}

/// Order numbers padded with zeros (`ORD-00042`) are asked for without them.
#[test]
fn a_padded_number_is_found_without_its_zeros() {
    let folder = tempfile::tempdir().unwrap();
    let mut csv = String::from("order,customer,status\n");
    for n in 1..=400u32 {
        let status = ["shipped", "on hold", "delivered", "returned"][(n % 4) as usize];
        csv.push_str(&format!("ORD-{n:05},customer {},{status}\n", n * 37 % 101));
    }
    std::fs::write(folder.path().join("orders.csv"), csv).unwrap();
    let data = ingest(folder.path());
    first_hit_holds(data.path(), "what is the status of order ORD 42?", "ORD-00042 | customer 39 | delivered");
}
