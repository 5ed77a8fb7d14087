SELECT r.run, r.source, r.holder, r.started_at, r.finished_at, r.report, r.error, l.expires_at
FROM sync_lock l JOIN sync_runs r ON r.run = l.run
WHERE l.name = 'sync'
