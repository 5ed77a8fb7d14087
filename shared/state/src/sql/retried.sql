SELECT uri, source_key, generation FROM documents WHERE id = $1
