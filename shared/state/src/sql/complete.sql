-- The last batch of a generation is stored: record what the vector store
-- counted, with the totals of the generation's batches.
UPDATE documents
SET status = 'indexed', chunks_stored = $3, model = $4, dims = $5, pipeline_version = $6,
    tokens = (SELECT CAST(COALESCE(SUM(tokens), 0) AS BIGINT) FROM batches WHERE document_id = $1 AND generation = $2),
    header_tokens = (SELECT CAST(COALESCE(SUM(header_tokens), 0) AS BIGINT) FROM batches WHERE document_id = $1 AND generation = $2),
    truncated = (SELECT CAST(COALESCE(SUM(truncated), 0) AS BIGINT) FROM batches WHERE document_id = $1 AND generation = $2),
    failure_reason = NULL, failure_stage = NULL, updated_at = $7
WHERE id = $1 AND generation = $2 AND status = 'embedding'
