-- The seal of the model an index's vectors came from (JSON: recorded name,
-- dimensions, pooling, prefixes, sha256 of the weights), written when a
-- model first embeds into or queries the index. NULL for indexes made before
-- seals, and for an index no model has used yet.
ALTER TABLE indexes ADD COLUMN model_seal TEXT;
