UPDATE indexes SET state = 'live', swapped_at = $2 WHERE name = $1 AND state = 'building'
