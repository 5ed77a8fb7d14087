UPDATE sync_lock SET expires_at = $2 WHERE name = 'sync' AND run = $1
