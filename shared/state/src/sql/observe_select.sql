-- The document's version and progress, and whether the sync run that queued
-- its generation finished cleanly (so its extract job was published).
SELECT d.etag, d.size, d.status, d.generation, d.lease_expires, d.queued_run,
       CAST(CASE WHEN r.finished_at IS NOT NULL AND r.error IS NULL THEN 1 ELSE 0 END AS BIGINT)
FROM documents d LEFT JOIN sync_runs r ON r.run = d.queued_run
WHERE d.id = $1
