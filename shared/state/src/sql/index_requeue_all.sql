-- A reindex starts: every document still in the source becomes a new
-- generation, queued for the building index. Older generations' jobs are
-- then stale and do nothing; the live index keeps its points until the swap.
UPDATE documents
SET status = 'queued', generation = generation + 1, attempts = 0, failure_reason = NULL, failure_stage = NULL,
    chunks_expected = NULL, batches_expected = NULL, lease_expires = NULL, queued_run = NULL, updated_at = $1
WHERE status <> 'deleted'
