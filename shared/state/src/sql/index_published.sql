UPDATE indexes SET published = 1 WHERE name = $1 AND state = 'building'
