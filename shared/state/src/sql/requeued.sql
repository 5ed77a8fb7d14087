SELECT id, uri, source_key, generation FROM documents WHERE status = 'queued' ORDER BY uri
