-- Claim a document for extraction. A redelivered job for the same generation
-- may claim it again; a job for an older generation may not.
UPDATE documents SET status = 'extracting', attempts = attempts + 1, updated_at = $3
WHERE id = $1 AND generation = $2 AND status IN ('queued', 'extracting', 'embedding')
