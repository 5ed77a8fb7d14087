-- The index registry. Vectors from different models or chunking rules are
-- never mixed, so each (model, dims, pipeline version) build gets its own
-- collection: searches read the `live` one; a reindex writes the `building`
-- one until every document is indexed or failed in it, then swaps the two in
-- one transaction; an old collection kept on request stays `retired`.
-- Document rows describe the generations written to the write target: the
-- building index during a reindex, the live one otherwise.
CREATE TABLE indexes (
    name             TEXT PRIMARY KEY,
    model            TEXT NOT NULL,
    dims             BIGINT NOT NULL,
    pipeline_version TEXT NOT NULL,
    state            TEXT NOT NULL,
    keep_old         BIGINT NOT NULL DEFAULT 0,
    documents        BIGINT NOT NULL DEFAULT 0,
    published        BIGINT NOT NULL DEFAULT 0,
    created_at       BIGINT NOT NULL,
    swapped_at       BIGINT
);
-- At most one live and at most one building index.
CREATE UNIQUE INDEX indexes_one_per_state ON indexes (state) WHERE state IN ('live', 'building');
