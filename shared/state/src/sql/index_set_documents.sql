UPDATE indexes SET documents = $2 WHERE name = $1
