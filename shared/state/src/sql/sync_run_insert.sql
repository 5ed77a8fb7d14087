INSERT INTO sync_runs (run, source, holder, started_at) VALUES ($1, $2, $3, $4)
