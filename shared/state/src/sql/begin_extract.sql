-- Claim a document for extraction. A redelivered job for the same generation
-- may claim it again; a job for an older generation may not. The claim holds
-- a lease until $4.
UPDATE documents SET status = 'extracting', attempts = attempts + 1, updated_at = $3, lease_expires = $4
WHERE id = $1 AND generation = $2 AND status IN ('queued', 'extracting', 'embedding')
