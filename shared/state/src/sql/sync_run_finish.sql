UPDATE sync_runs SET finished_at = $2, report = $3, error = $4 WHERE run = $1 AND finished_at IS NULL
