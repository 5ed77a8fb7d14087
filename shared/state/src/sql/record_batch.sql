INSERT INTO batches (document_id, generation, batch_index, chunks, tokens, header_tokens, truncated)
VALUES ($1, $2, $3, $4, $5, $6, $7)
ON CONFLICT (document_id, generation, batch_index) DO NOTHING
