DELETE FROM indexes WHERE name = $1 AND state <> 'live'
