DELETE FROM sync_lock WHERE name = 'sync' AND run = $1
