-- Per-document state: the source of truth for what is indexed and why not.
CREATE TABLE documents (
    id                TEXT PRIMARY KEY,
    uri               TEXT NOT NULL,
    source_key        TEXT NOT NULL,
    etag              TEXT NOT NULL,
    content_hash      TEXT,
    size              BIGINT NOT NULL,
    kind              TEXT,
    title             TEXT,
    status            TEXT NOT NULL,
    failure_reason    TEXT,
    failure_stage     TEXT,
    attempts          BIGINT NOT NULL DEFAULT 0,
    generation        BIGINT NOT NULL,
    chunks_expected   BIGINT,
    batches_expected  BIGINT,
    chunks_stored     BIGINT,
    tokens            BIGINT NOT NULL DEFAULT 0,
    header_tokens     BIGINT NOT NULL DEFAULT 0,
    truncated         BIGINT NOT NULL DEFAULT 0,
    model             TEXT,
    dims              BIGINT,
    pipeline_version  TEXT,
    extractor_version TEXT,
    last_seen         BIGINT NOT NULL DEFAULT 0,
    created_at        BIGINT NOT NULL,
    updated_at        BIGINT NOT NULL
);
CREATE INDEX documents_status ON documents (status);
CREATE INDEX documents_last_seen ON documents (last_seen);

-- One row per embed batch stored, so a redelivered batch is recorded once and
-- the last batch of a generation can be recognised by counting.
CREATE TABLE batches (
    document_id   TEXT NOT NULL,
    generation    BIGINT NOT NULL,
    batch_index   BIGINT NOT NULL,
    chunks        BIGINT NOT NULL,
    tokens        BIGINT NOT NULL,
    header_tokens BIGINT NOT NULL,
    truncated     BIGINT NOT NULL,
    PRIMARY KEY (document_id, generation, batch_index)
);
