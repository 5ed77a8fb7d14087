-- Admin listings at a million documents: keyset pages in URI order (all
-- documents, or one status; the reason is in the index so a reason filter
-- is checked without reading the rows it leaves out), failure groups counted
-- from an index, and the seal columns for the stale count.
-- documents_status is a prefix of documents_status_uri.
CREATE INDEX documents_uri ON documents (uri);
CREATE INDEX documents_status_uri ON documents (status, uri, failure_reason);
CREATE INDEX documents_failures ON documents (status, failure_reason, failure_stage);
CREATE INDEX documents_seal ON documents (status, model, pipeline_version, extractor_version);
DROP INDEX documents_status;
-- The status counts (documents, chunks, tokens per status) from the index
-- alone.
CREATE INDEX documents_counts ON documents (status, chunks_stored, truncated, tokens, header_tokens);
