SELECT etag, size, status, generation, lease_expires FROM documents WHERE id = $1
