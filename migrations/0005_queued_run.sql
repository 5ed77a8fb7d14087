-- The sync run that queued a document's current generation. A run that died
-- (or failed) between queueing a document and publishing its extract job
-- leaves it `queued` with no job anywhere; the next run sees that the run
-- which queued it never finished cleanly and publishes the job again
-- (Observation::Unpublished). NULL for rows queued by retry or reindex.
ALTER TABLE documents ADD COLUMN queued_run BIGINT;
