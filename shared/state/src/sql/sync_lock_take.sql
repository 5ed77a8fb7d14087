INSERT INTO sync_lock (name, run, holder, expires_at) VALUES ('sync', $1, $2, $3)
ON CONFLICT (name) DO UPDATE SET run = excluded.run, holder = excluded.holder, expires_at = excluded.expires_at
WHERE sync_lock.expires_at < $4
RETURNING run
