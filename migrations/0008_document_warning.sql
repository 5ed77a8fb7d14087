-- What went partly wrong in a document that was indexed anyway (today: OCR
-- pages read with low confidence), written at each extraction; NULL when
-- nothing did. Admins list such documents with `warned`.
ALTER TABLE documents ADD COLUMN warning TEXT;
