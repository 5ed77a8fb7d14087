SELECT r.run, r.source, r.holder, r.started_at, r.finished_at, r.report, r.error, l.expires_at
FROM sync_runs r LEFT JOIN sync_lock l ON l.run = r.run AND l.name = 'sync'
ORDER BY r.run DESC
LIMIT $1
