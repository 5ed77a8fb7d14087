SELECT COUNT(*) FROM batches WHERE document_id = $1 AND generation = $2
