UPDATE documents
SET status = 'embedding', kind = $3, title = $4, content_hash = $5, chunks_expected = $6,
    batches_expected = $7, extractor_version = $8, updated_at = $9, warning = $10
WHERE id = $1 AND generation = $2 AND status IN ('extracting', 'embedding')
