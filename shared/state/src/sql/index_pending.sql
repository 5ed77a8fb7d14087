SELECT COUNT(*) FROM documents WHERE status IN ('queued', 'extracting', 'embedding')
