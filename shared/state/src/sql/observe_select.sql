-- The document's version and progress, whether the sync run that queued
-- its generation finished cleanly (so its extract job was published), and
-- whether it failed only because its fetch gave up on transient errors ($2:
-- the reason's pattern; the source was unreachable, the file never read).
SELECT d.etag, d.size, d.status, d.generation, d.lease_expires, d.queued_run,
       CAST(CASE WHEN r.finished_at IS NOT NULL AND r.error IS NULL THEN 1 ELSE 0 END AS BIGINT),
       CAST(CASE WHEN d.status = 'failed' AND d.failure_stage = 'fetch' AND d.failure_reason LIKE $2
            THEN 1 ELSE 0 END AS BIGINT)
FROM documents d LEFT JOIN sync_runs r ON r.run = d.queued_run
WHERE d.id = $1
