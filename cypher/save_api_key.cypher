// Purpose: store a new API key of `graphmem serve` (graphmem.keys): an ApiKey node outside
//          every owner's graph, with its id, the SHA-256 of its secret (never the secret), its
//          scope and when it was made. The one kind of node without an owner: a key is scoped
//          to owners, not owned by one. Its id is new (16 random hex digits); the constraint
//          api_key_id refuses a second one.
// Parameters: $id, $secret_hash, $owners (list of owner names), $owner_prefix (or null),
//             $admin, $created_at.
// Returns: nothing.
CREATE (:ApiKey {
  id: $id,
  secret_hash: $secret_hash,
  owners: $owners,
  owner_prefix: $owner_prefix,
  admin: $admin,
  created_at: $created_at
})
