//! The admin web page in a real browser (Debian's Chromium driven through
//! ChromeDriver's WebDriver protocol), over the embedded mode: a document
//! fails because of a limit, the admin finds it on the page by filtering on
//! its reason, clicks retry and sees it queued; with the limit raised the
//! next ingest indexes it, and the page shows it indexed with its chunks.
//! The CLI (`documents`, `retry`) and the page show the same documents.
//! Names, reasons and text that look like HTML are shown as text, and none
//! of them runs.

use common::net::Killed;
use ragpipe_integration_tests::ragpipe_bin;
use serde_json::{Value, json};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

mod common;

const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";

fn ragpipe(config: &Path, args: &[&str]) -> (i32, Value) {
    let mut cmd = Command::new(ragpipe_bin());
    cmd.arg("--config").arg(config);
    common::run_json(cmd, args)
}

/// A child process killed when the test ends, however it ends.
/// A WebDriver session: just the commands this test needs.
struct Browser {
    http: ureq::Agent,
    session: String,
    _driver: Killed,
}

impl Browser {
    fn start() -> Browser {
        let chromium = std::env::var("RAGPIPE_TEST_CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".into());
        let driver = std::env::var("RAGPIPE_TEST_CHROMEDRIVER").unwrap_or_else(|_| "/usr/bin/chromedriver".into());
        assert!(
            Path::new(&chromium).exists() && Path::new(&driver).exists(),
            "Chromium and ChromeDriver are needed: run `eval \"$(scripts/browser.sh)\"` (scripts/test.sh does)"
        );
        let port = common::net::free_port();
        let child = Command::new(driver).arg(format!("--port={port}")).stdout(Stdio::null()).spawn().unwrap();
        let driver = Killed(child);
        let http: ureq::Agent = ureq::Agent::config_builder().http_status_as_error(false).build().into();
        let base = format!("http://127.0.0.1:{port}");
        let caps = json!({"capabilities": {"alwaysMatch": {"browserName": "chrome", "goog:chromeOptions": {
            "binary": chromium,
            "args": ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                     "--disable-dev-shm-usage", "--window-size=1280,900"]}}}});
        let started = Instant::now();
        let session = loop {
            match http.post(format!("{base}/session")).send_json(&caps) {
                Ok(mut res) => {
                    let body: Value = res.body_mut().read_json().unwrap();
                    let id = body["value"]["sessionId"].as_str().unwrap_or_else(|| panic!("no session: {body}"));
                    break id.to_string();
                }
                Err(_) if started.elapsed() < Duration::from_secs(20) => std::thread::sleep(Duration::from_millis(100)),
                Err(e) => panic!("chromedriver did not answer: {e}"),
            }
        };
        Browser { http, session: format!("{base}/session/{session}"), _driver: driver }
    }

    fn command(&self, method: &str, path: &str, body: Value) -> Value {
        let url = format!("{}{path}", self.session);
        let mut res = match method {
            "GET" => self.http.get(&url).call(),
            _ => self.http.post(&url).send_json(&body),
        }
        .unwrap();
        let status = res.status();
        let out: Value = res.body_mut().read_json().unwrap();
        assert!(status.is_success(), "WebDriver {method} {path}: {status} {out}");
        out["value"].clone()
    }

    fn open(&self, url: &str) {
        self.command("POST", "/url", json!({ "url": url }));
    }

    /// Runs a script in the page and returns its value.
    fn eval(&self, script: &str) -> Value {
        self.command("POST", "/execute/sync", json!({"script": script, "args": []}))
    }

    /// Waits until the script returns a truthy value; fails with `what`.
    fn wait_for(&self, what: &str, script: &str) -> Value {
        let started = Instant::now();
        loop {
            let v = self.eval(script);
            if !(v.is_null() || v == json!(false) || v == json!("")) {
                return v;
            }
            let page = self.eval("return document.body.innerText");
            assert!(started.elapsed() < Duration::from_secs(20), "timed out waiting for {what}; page:\n{}", page);
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    fn element(&self, css: &str) -> String {
        let found = self.command("POST", "/element", json!({"using": "css selector", "value": css}));
        found[ELEMENT].as_str().unwrap().to_string()
    }

    /// A real click, through the browser's input pipeline.
    fn click(&self, css: &str) {
        let id = self.element(css);
        self.command("POST", &format!("/element/{id}/click"), json!({}));
    }

    /// Filters the page by failure reason and waits until the one
    /// document left is `name`.
    fn filter_to(&self, reason: &str, name: &str) {
        self.type_into("#reason-filter", reason);
        self.click("#apply");
        let script = format!(
            "const rows = document.querySelectorAll('#documents tr.doc'); \
             return rows.length === 1 && rows[0].innerText.includes({})",
            serde_json::to_string(name).unwrap()
        );
        self.wait_for("the filter to leave the failed document", &script);
    }

    fn type_into(&self, css: &str, text: &str) {
        let id = self.element(css);
        self.command("POST", &format!("/element/{id}/value"), json!({ "text": text }));
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.http.delete(&self.session).call();
    }
}

/// Starts `ragpipe serve admin` on a free loopback port; returns it and its URL.
fn serve_admin(config: &Path) -> (Killed, String) {
    let mut cmd = Command::new(ragpipe_bin());
    cmd.arg("--config").arg(config).args(["serve", "admin", "--listen", "127.0.0.1:0"]);
    common::net::serve(cmd, "admin")
}

#[test]
fn an_admin_finds_a_failure_on_the_page_retries_it_and_sees_it_indexed() {
    let (folder, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let write_config = |limit: u64| {
        let path = data.path().join("ragpipe.toml");
        let text = format!("data_dir = {:?}\n[limits]\nmax_file_bytes = {limit}\n", data.path().join("index"));
        std::fs::write(&path, text).unwrap();
        path
    };
    std::fs::write(folder.path().join("short.md"), "# Tides\n\nThe causeway floods.\n").unwrap();
    let long = "# Ferry timetable\n\nThe first ferry leaves the north pier at 06:40 and calls at the harbour \
                steps, the lifeboat station and the old mill before turning back across the sound.\n";
    std::fs::write(folder.path().join("timetable.md"), long).unwrap();
    let dir = folder.path().to_str().unwrap();

    // The limit is below the timetable's size: it fails with that reason.
    let config = write_config(60);
    let (code, first) = ragpipe(&config, &["ingest", dir, "--json"]);
    assert_eq!((code, first["indexed"].as_i64()), (1, Some(1)), "{first}");
    let (_, failed) = ragpipe(&config, &["documents", "--status", "failed", "--json"]);
    let failed = failed["documents"].as_array().unwrap();
    assert_eq!(failed.len(), 1);
    let reason = failed[0]["reason"].as_str().unwrap();
    assert!(reason.starts_with("file too large"), "{reason}");
    assert_eq!((failed[0]["stage"].as_str(), failed[0]["kind"].as_str()), (Some("fetch"), Some("markdown")));

    let (_admin, url) = serve_admin(&config);
    let browser = Browser::start();
    browser.open(&url);
    browser.wait_for("both documents listed", "return document.querySelectorAll('#documents tr.doc').length === 2");
    let groups = browser.eval(
        "return [...document.querySelectorAll('#failures tr.group')].map(r => r.querySelector('.reason').innerText)",
    );
    assert_eq!(groups, json!([reason]), "failures grouped by reason");

    // Filter to the failure's reason, then retry it from its row.
    browser.filter_to("too large", "timetable.md");
    browser.click("#documents tr.doc button.retry");
    let message = browser.wait_for(
        "the retry to be reported",
        "const m = document.querySelector('#message').innerText; return m.startsWith('queued') && m",
    );
    assert!(message.as_str().unwrap().starts_with("queued 1 document(s)"), "{message}");
    browser.wait_for(
        "the document shown queued",
        "const rows = document.querySelectorAll('#documents tr.doc'); \
         return rows.length === 0 || document.querySelector('#documents tr.doc .status').innerText",
    );
    // The filter still says "too large", and the document no longer carries that reason.
    let (_, queued) = ragpipe(&config, &["documents", "--status", "queued", "--json"]);
    assert_eq!(queued["documents"].as_array().map(Vec::len), Some(1), "{queued}");
    assert_eq!(queued["documents"][0]["attempts"], 0);

    // The cause fixed (the limit raised), the next ingest indexes it.
    let config = write_config(1 << 20);
    let (code, second) = ragpipe(&config, &["ingest", dir, "--json"]);
    assert_eq!((code, second["sync"]["resumed"].as_i64()), (0, Some(1)), "{second}");
    browser.eval("document.querySelector('#reason-filter').value = ''; return true");
    browser.click("#apply");
    browser.wait_for(
        "both documents indexed",
        "const s = [...document.querySelectorAll('#documents tr.doc .status')].map(c => c.innerText); \
         return s.length === 2 && s.every(t => t === 'indexed')",
    );
    assert_eq!(browser.eval("return document.querySelectorAll('#failures tr.group').length"), json!(0));
    // Its detail: the stored chunk with its locator.
    browser.click("#documents tr.doc[data-id] a");
    let detail = browser.wait_for(
        "the document's chunks",
        "const d = document.querySelector('#detail').innerText; return d.includes('#char=') && d",
    );
    assert!(detail.as_str().unwrap().contains("chunk 0"), "{detail}");

    // A reindex in progress shows its progress; once swapped, the new live
    // index and the old one kept.
    let (code, reindexed) =
        ragpipe(&config, &["reindex", "--pipeline-version", "2", "--keep-old", "--json", "--quiet"]);
    assert_eq!(code, 0, "{reindexed}");
    let state = data.path().join("index").join("state.db");
    // The default model's collections, by pipeline version.
    let model = ragpipe_embed::ModelVariant::default().recorded_name(ragpipe_embed::DEFAULT_MODEL);
    let collection =
        |p: &str| ragpipe_core::CollectionSpec { model: model.clone(), dims: 384, pipeline_version: p.into() }.name();
    let started = block_on(async {
        use ragpipe_state::StateStore;
        let store = ragpipe_state::SqlStateStore::connect(&format!("sqlite://{}", state.display())).await.unwrap();
        let index = ragpipe_state::NewIndex {
            name: collection("3"),
            model: model.clone(),
            dims: 384,
            pipeline_version: "3".into(),
            keep_old: false,
        };
        store.begin_build(&index).await.unwrap()
    });
    assert!(started);
    browser.click("#apply");
    let progress = browser.wait_for(
        "the reindex progress",
        "const p = document.querySelector('#reindex-progress');          return p.querySelector('progress') && p.innerText.includes('0 of 2 documents') && p.innerText",
    );
    assert!(progress.as_str().unwrap().contains("pipeline 3"), "{progress}");
    let live = browser.eval("return document.querySelector('#index-live').innerText");
    assert!(live.as_str().unwrap().contains("pipeline 2"), "{live}");
    let (code, resumed) = ragpipe(&config, &["reindex", "--json", "--quiet"]);
    assert_eq!((code, resumed["swapped"]["to"].as_str()), (0, Some(collection("3").as_str())), "{resumed}");
    browser.click("#apply");
    let kept = format!(
        "return document.querySelector('#index-live').innerText.includes('pipeline 3') && \
         document.querySelector('#reindex-progress').innerText.includes('kept old: {}')",
        collection("1")
    );
    browser.wait_for("the new live index and the old one kept", &kept);
}

/// File names, failure reasons and document text come from whoever made the
/// files. Each payload sets `window.__pwned` if it ever runs; the page must
/// show it literally and create no element from it.
#[test]
fn html_in_names_reasons_and_text_is_shown_as_text_and_never_runs() {
    let (folder, data) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let config = data.path().join("ragpipe.toml");
    std::fs::write(&config, format!("data_dir = {:?}\n", data.path().join("index"))).unwrap();
    let names = ["<img src=x onerror=__pwned=1>.md", "\"><svg onload=__pwned=2>.txt", "notes.<svg onload=__pwned=3>"];
    std::fs::write(folder.path().join(names[0]), "# Tides\n\nThe causeway floods at spring tide.\n").unwrap();
    let text = "The ferry log says <script>__pwned=4</script><img src=x onerror=__pwned=5> and nothing else.\n";
    std::fs::write(folder.path().join(names[1]), text).unwrap();
    // Binary under an unknown extension fails, and its reason names the extension.
    std::fs::write(folder.path().join(names[2]), b"\0\x01\x02 bytes of no known type\n").unwrap();
    let (code, ingest) = ragpipe(&config, &["ingest", folder.path().to_str().unwrap(), "--json"]);
    assert_eq!((code, ingest["indexed"].as_i64()), (1, Some(2)), "{ingest}");
    let (_, listed) = ragpipe(&config, &["documents", "--json"]);
    let mut sources: Vec<&str> =
        listed["documents"].as_array().unwrap().iter().map(|d| d["source"].as_str().unwrap()).collect();
    sources.sort();
    let (_, failed) = ragpipe(&config, &["documents", "--status", "failed", "--json"]);
    let reason = failed["documents"][0]["reason"].as_str().unwrap();
    assert!(reason.contains("<svg onload=__pwned=3>"), "the reason repeats the name's extension: {reason}");

    let (_admin, url) = serve_admin(&config);
    let browser = Browser::start();
    browser.open(&url);
    browser
        .wait_for("the three documents listed", "return document.querySelectorAll('#documents tr.doc').length === 3");
    // Nothing ran, and nothing but the page's own markup exists.
    let inert = "return { pwned: window.__pwned === undefined ? null : window.__pwned, \
                 injected: document.querySelectorAll('img, svg, iframe, object, embed').length, \
                 scripts: [...document.scripts].map(s => s.getAttribute('src')), \
                 handlers: [...document.querySelectorAll('*')].filter(e => [...e.attributes].some(a => a.name.startsWith('on'))).length }";
    let clean = json!({"pwned": null, "injected": 0, "scripts": ["/page.js"], "handlers": 0});
    assert_eq!(browser.eval(inert), clean, "after the list");

    let shown = browser.eval(
        "return [...document.querySelectorAll('#documents tr.doc td:first-child')].map(td => td.innerText).sort()",
    );
    assert_eq!(shown, json!(sources), "each name shown literally");
    for name in names {
        assert!(sources.iter().any(|s| s.ends_with(name)), "{name} in {sources:?}");
    }
    let groups = browser.eval(
        "return [...document.querySelectorAll('#failures tr.group')].map(r => r.querySelector('.reason').innerText)",
    );
    assert_eq!(groups, json!([reason]), "the reason shown literally");
    let row_reason =
        browser.eval("return document.querySelector('#documents tr.doc .status.failed').parentElement.querySelector('.reason').innerText");
    assert_eq!(row_reason, json!(format!("[{}] {reason}", failed["documents"][0]["stage"].as_str().unwrap())));

    // Markup in a filter is a substring like any other.
    browser.filter_to("<svg onload", "notes.<svg onload=__pwned=3>");
    browser.eval("document.querySelector('#reason-filter').value = ''; return true");
    browser.click("#apply");
    browser
        .wait_for("the three documents listed", "return document.querySelectorAll('#documents tr.doc').length === 3");

    // The text document's detail: its name as the heading, its text as text.
    let doc = listed["documents"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["source"].as_str().unwrap().ends_with(names[1]))
        .unwrap();
    browser.click(&format!("#documents tr.doc[data-id='{}'] a", doc["id"].as_str().unwrap()));
    let detail = browser.wait_for(
        "the document's chunk",
        "const d = document.querySelector('#detail'); return d.innerText.includes('chunk 0') && \
         [d.querySelector('h2').innerText, d.querySelector('pre').innerText]",
    );
    assert!(detail[0].as_str().unwrap().ends_with(names[1]), "{detail}");
    assert!(detail[1].as_str().unwrap().contains("<img src=x onerror=__pwned=5>"), "{detail}");
    assert_eq!(browser.eval(inert), clean, "after the detail");
}

fn block_on<T>(f: impl std::future::Future<Output = T>) -> T {
    tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(f)
}
