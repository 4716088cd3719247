// Purpose: read the size of the memory vector index, to check it against the embedder's.
// Parameters: none.
// Returns: dimensions (one row; none when the index does not exist).
SHOW VECTOR INDEXES YIELD name, options
WHERE name = 'memory_vectors'
RETURN options.indexConfig.`vector.dimensions` AS dimensions
