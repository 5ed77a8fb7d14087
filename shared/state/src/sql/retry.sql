-- A document in status $3 (a failure being retried, or a stale indexed
-- document being reprocessed) becomes a new generation, queued, attempts reset;
-- its job is published by the retry, not by a sync run (queued_run NULL).
UPDATE documents
SET status = 'queued', generation = generation + 1, attempts = 0, failure_reason = NULL, failure_stage = NULL,
    chunks_expected = NULL, batches_expected = NULL, lease_expires = NULL, queued_run = NULL, updated_at = $2
WHERE id = $1 AND status = $3
