-- Scheduled syncs never overlap: a run holds the one row of sync_lock until
-- it finishes or its lease (expires_at, ms since the epoch) runs out, which
-- is how a run that crashed gives the lock back. Every run is recorded in
-- sync_runs with its counts (JSON) or its error; a run with no finished_at
-- whose lock has gone was abandoned (its process died).
CREATE TABLE sync_lock (
    name       TEXT PRIMARY KEY,
    run        BIGINT NOT NULL,
    holder     TEXT NOT NULL,
    expires_at BIGINT NOT NULL
);

CREATE TABLE sync_runs (
    run         BIGINT PRIMARY KEY,
    source      TEXT NOT NULL,
    holder      TEXT NOT NULL,
    started_at  BIGINT NOT NULL,
    finished_at BIGINT,
    report      TEXT,
    error       TEXT
);
