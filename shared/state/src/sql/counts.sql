SELECT status, COUNT(*), CAST(COALESCE(SUM(chunks_stored), 0) AS BIGINT), CAST(COALESCE(SUM(truncated), 0) AS BIGINT),
       CAST(COALESCE(SUM(tokens), 0) AS BIGINT), CAST(COALESCE(SUM(header_tokens), 0) AS BIGINT)
FROM documents GROUP BY status
