SELECT id, uri, etag, content_hash, size, kind, status, failure_reason, failure_stage, attempts,
       generation, chunks_expected, batches_expected, chunks_stored, truncated, model, dims,
       pipeline_version, extractor_version, title, created_at, updated_at
FROM documents
WHERE ($1 = '' OR id = $1) AND ($2 = '' OR status = $2)
ORDER BY uri
