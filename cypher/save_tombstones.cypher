// Purpose: keep a tombstone of each forgotten message of the owner: a Tombstone node with the
//          owner and the SHA-256 of the message id (graphmem.store.base.tombstone_hash; never
//          the text), unless the owner has it already. forget_message writes it with the turn's
//          deletion (forget_turn.cypher) and `load` with the graph it loads, in one transaction;
//          save_turns.cypher stores no turn whose id has one.
// Parameters: $owner, $hashes (list of tombstone hashes).
// Returns: saved (how many hashes were given).
UNWIND $hashes AS hash
MERGE (:Tombstone {owner: $owner, hash: hash})
RETURN count(*) AS saved
