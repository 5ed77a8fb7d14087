-- A live index recorded on first use, or a building one started by a
-- reindex; a second live or building row conflicts and is not inserted.
INSERT INTO indexes (name, model, dims, pipeline_version, state, keep_old, created_at)
VALUES ($1, $2, $3, $4, $5, $6, $7)
ON CONFLICT DO NOTHING
