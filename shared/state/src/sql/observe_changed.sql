-- The object changed (or came back after deletion): a new generation starts
-- from scratch. Conditional on the generation read, so two coordinators
-- cannot both bump it.
UPDATE documents
SET uri = $2, source_key = $3, etag = $4, size = $5, status = 'queued', generation = generation + 1,
    attempts = 0, failure_reason = NULL, failure_stage = NULL, chunks_expected = NULL,
    batches_expected = NULL, last_seen = $6, queued_run = $6, updated_at = $7
WHERE id = $1 AND generation = $8
