-- Seen by this run, which publishes the job a dead or failed run may not have.
UPDATE documents SET last_seen = $2, queued_run = $2 WHERE id = $1
