//! The JSON Schemas in `schemas/` describe the queue messages for producers
//! and consumers not written in Rust. This checks the Rust types against
//! them both ways: every message the Rust types write is valid under its
//! schema, and messages the schema refuses are refused by the Rust parser
//! too (so the two cannot drift apart silently).

use ragpipe_core::{ChunkMessage, DeleteJob, DocumentId, EmbedJob, ExtractJob, Job, Kind, Locator, SCHEMA_VERSION};
use serde_json::{Value, json};
use std::path::PathBuf;

fn validator(name: &str) -> jsonschema::Validator {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../schemas").join(name);
    let schema: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    jsonschema::validator_for(&schema).unwrap_or_else(|e| panic!("{name} is not a valid schema: {e}"))
}

fn assert_valid(v: &jsonschema::Validator, msg: &Value) {
    let errors: Vec<String> = v.iter_errors(msg).map(|e| format!("{} at {}", e, e.instance_path())).collect();
    assert!(errors.is_empty(), "{msg}\n{errors:#?}");
}

fn id() -> DocumentId {
    DocumentId::from_uri("s3://bucket/docs/report.pdf")
}

fn chunk(index: u32, locator: Locator) -> ChunkMessage {
    ChunkMessage {
        index,
        text: "report > Revenue\n\nRevenue grew.".into(),
        content: "Revenue grew.".into(),
        section: vec!["Revenue".into()],
        locator,
        tokens: 12,
        header_tokens: 5,
    }
}

fn embed_job() -> Job {
    let mut pdf = Locator::for_bytes("Revenue grew.", 0..13);
    pdf.page = Some(3);
    let mut sheet = Locator::for_bytes("a | b", 0..5);
    sheet.sheet = Some(("Q1 & Q2".into(), "A1:F1,A8:F20".into()));
    let mut audio = Locator::for_bytes("Hello.", 0..6);
    audio.time = Some((1.5, 4.25));
    let mut code = Locator::for_bytes("fn main() {}", 0..12);
    code.lines = Some((10, 42));
    Job::Embed(EmbedJob {
        schema_version: SCHEMA_VERSION,
        document_id: id(),
        uri: "s3://bucket/docs/report.pdf".into(),
        title: "report".into(),
        kind: Kind::Pdf,
        generation: 2,
        batch_index: 0,
        batch_count: 3,
        chunk_count: 70,
        extractor_version: "1".into(),
        chunks: vec![chunk(0, pdf), chunk(1, sheet), chunk(2, audio), chunk(3, code)],
    })
}

fn to_value(job: &Job) -> Value {
    serde_json::from_slice(&job.to_bytes()).unwrap()
}

#[test]
fn every_message_the_rust_types_write_is_valid_under_its_schema() {
    let extract = Job::Extract(ExtractJob {
        schema_version: SCHEMA_VERSION,
        document_id: id(),
        uri: "s3://bucket/docs/report.pdf".into(),
        key: "report.pdf".into(),
        generation: 1,
    });
    assert_valid(&validator("extract_job.schema.json"), &to_value(&extract));
    assert_valid(&validator("embed_job.schema.json"), &to_value(&embed_job()));
    let delete = Job::Delete(DeleteJob { schema_version: SCHEMA_VERSION, document_id: id() });
    assert_valid(&validator("delete_job.schema.json"), &to_value(&delete));
    // Every document kind the Rust enum has is in the schema's enum.
    let embed = validator("embed_job.schema.json");
    for kind in Kind::ALL.map(Kind::as_str) {
        let mut msg = to_value(&embed_job());
        msg["kind"] = json!(kind);
        assert_valid(&embed, &msg);
        assert!(Job::from_bytes(msg.to_string().as_bytes()).is_ok(), "{kind}");
    }
}

#[test]
fn messages_the_schemas_refuse_the_rust_parser_refuses() {
    let embed = validator("embed_job.schema.json");
    let good = to_value(&embed_job());
    let broken: Vec<(&str, Value)> = vec![
        ("unknown field", {
            let mut m = good.clone();
            m["priority"] = json!(1);
            m
        }),
        ("missing field", {
            let mut m = good.clone();
            m.as_object_mut().unwrap().remove("chunk_count");
            m
        }),
        ("other schema version", {
            let mut m = good.clone();
            m["schema_version"] = json!(2);
            m
        }),
        ("unknown kind", {
            let mut m = good.clone();
            m["kind"] = json!("docx");
            m
        }),
        ("generation as a string", {
            let mut m = good.clone();
            m["generation"] = json!("2");
            m
        }),
        ("unknown chunk field", {
            let mut m = good.clone();
            m["chunks"][0]["score"] = json!(0.5);
            m
        }),
    ];
    for (what, msg) in broken {
        assert!(!embed.is_valid(&msg), "schema accepts {what}");
        assert!(Job::from_bytes(msg.to_string().as_bytes()).is_err(), "Rust accepts {what}");
    }
}
