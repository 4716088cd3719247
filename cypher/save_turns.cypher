// Purpose: store turns in row order, each unless its owner already has one with its id (turns
//          are immutable) or keeps a tombstone of its id (a message it forgot: no row for it;
//          delete_tombstones.cypher readmits one). A new turn takes the next position of its
//          session: the owner's Session node counts its turns, incremented in one SET (a direct
//          dependency, so Cypher takes the write lock before reading the count and holds it to
//          commit): concurrent writers never share a position. The turn is linked NEXT from the
//          turn before it in the session. A turn without a session has session '' (one stream).
// Parameters: $owner, $rows (each {turn: a turn property map with id and session, tombstone:
//             the hash of its id, graphmem.store.base.tombstone_hash}).
// Returns: turn (the stored turn's properties: the new one, or the one already there), one per
//          row in row order but the rows of forgotten messages.
UNWIND $rows AS row
CALL (row) {
  OPTIONAL MATCH (forgotten:Tombstone {owner: $owner, hash: row.tombstone})
  WITH row.turn AS properties, forgotten
  WHERE forgotten IS NULL
  MERGE (t:Turn {owner: $owner, id: properties.id})
  ON CREATE SET t += properties, t.position = -1
  WITH t
  CALL (t) {
    WITH t
    WHERE t.position = -1
    MERGE (s:Session {owner: $owner, id: t.session})
    ON CREATE SET s.turns = 0
    SET s.turns = s.turns + 1
    WITH t, s.turns - 1 AS position
    SET t.position = position
    WITH t, position
    OPTIONAL MATCH (before:Turn {owner: $owner, session: t.session, position: position - 1})
    FOREACH (previous IN CASE WHEN before IS NULL THEN [] ELSE [before] END |
      MERGE (previous)-[:NEXT]->(t))
  }
  RETURN t {.*} AS turn
}
RETURN turn
