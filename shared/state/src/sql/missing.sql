-- Documents not seen by the sync run `$1` are gone from the source.
UPDATE documents SET status = 'deleted', updated_at = $2
WHERE last_seen < $1 AND status <> 'deleted'
RETURNING id
