UPDATE documents SET last_seen = $2 WHERE id = $1
