// Purpose: delete the owner's tombstones of these hashes (messages it forgot), so that their
//          turns can be stored again: run before save_turns.cypher in the same transaction
//          when observe readmits forgotten messages, and by `load` for the turns it loads.
//          Hashes without a tombstone are skipped.
// Parameters: $owner, $hashes (list of tombstone hashes: graphmem.store.base.tombstone_hash).
// Returns: deleted (how many tombstones went).
UNWIND $hashes AS hash
MATCH (tombstone:Tombstone {owner: $owner, hash: hash})
DELETE tombstone
RETURN count(*) AS deleted
