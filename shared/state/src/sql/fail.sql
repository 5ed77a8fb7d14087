UPDATE documents SET status = 'failed', failure_reason = $3, failure_stage = $4, updated_at = $5
WHERE id = $1 AND generation = $2 AND status IN ('queued', 'extracting', 'embedding')
