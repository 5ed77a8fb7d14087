SELECT name, model, dims, pipeline_version, state, keep_old, documents, published, created_at, swapped_at, model_seal
FROM indexes
ORDER BY created_at
