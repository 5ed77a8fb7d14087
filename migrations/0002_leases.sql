-- A worker that claims a document for extraction holds it until
-- lease_expires (ms since the epoch). A document still `extracting` after its
-- lease ran out was claimed by a worker that died without the broker giving
-- the job back; the next sync re-enqueues it (Observation::Stalled).
ALTER TABLE documents ADD COLUMN lease_expires BIGINT;
