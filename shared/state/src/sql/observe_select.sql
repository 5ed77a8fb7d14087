SELECT etag, size, status, generation FROM documents WHERE id = $1
