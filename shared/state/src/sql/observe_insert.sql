-- A document seen for the first time.
INSERT INTO documents (id, uri, source_key, etag, size, status, generation, last_seen, queued_run, created_at, updated_at)
VALUES ($1, $2, $3, $4, $5, 'queued', 1, $6, $6, $7, $7)
ON CONFLICT (id) DO NOTHING
