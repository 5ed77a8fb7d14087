-- Records the model seal of an index that has none; a recorded seal is
-- never overwritten (the first model to use an index seals it).
UPDATE indexes SET model_seal = $2 WHERE name = $1 AND model_seal IS NULL
