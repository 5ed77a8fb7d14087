-- Rows $1..$2 of `ragpipe bench admin`'s corpus (PostgreSQL): every tenth
-- document failed, over 50 reasons ("family-FF failure: detail D", 10
-- families of 5) at the extract stage; one in a hundred indexed under an
-- older model (stale); five kinds by extension.
INSERT INTO documents (id, uri, source_key, etag, size, kind, status, failure_reason, failure_stage, attempts,
                       generation, chunks_stored, tokens, model, dims, pipeline_version, extractor_version,
                       last_seen, created_at, updated_at)
SELECT substr(md5('doc' || i), 1, 24),
       's3://corpus/docs/' || lpad(i::text, 8, '0'),
       'docs/' || lpad(i::text, 8, '0'),
       md5('etag' || i), 10000 + i % 90000,
       (ARRAY['pdf', 'markdown', 'html', 'spreadsheet', 'text'])[1 + (i / 7) % 5],
       CASE WHEN i % 10 = 3 THEN 'failed' ELSE 'indexed' END,
       CASE WHEN i % 10 = 3
            THEN 'family-' || lpad(((i / 10) % 50 / 5)::text, 2, '0') || ' failure: detail ' || ((i / 10) % 5)
       END,
       CASE WHEN i % 10 = 3 THEN 'extract' END,
       1, 1,
       CASE WHEN i % 10 = 3 THEN NULL ELSE 12 END, 3000,
       CASE WHEN i % 10 = 3 THEN NULL WHEN i % 100 = 7 THEN 'old-model' ELSE 'all-MiniLM-L6-v2' END,
       384, '1', '1', 1, 1700000000000 + i, 1700000000000 + i
FROM generate_series($1::bigint, $2::bigint) AS i
