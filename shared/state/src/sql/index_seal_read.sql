SELECT model_seal FROM indexes WHERE name = $1
