// Purpose: store turns in row order, each unless its owner already has one with its id (turns
//          are immutable). A new turn takes the next position of its session: the owner's
//          Session node counts its turns, incremented in one SET (a direct dependency, so Cypher
//          takes the write lock before reading the count and holds it to commit): concurrent
//          writers never share a position. The turn is linked NEXT from the turn
//          before it in the session. A turn without a session has session '' (one stream).
// Parameters: $owner, $rows (turn property maps, each with id and session).
// Returns: turn (the stored turn's properties: the new one, or the one already there), one per
//          row in row order.
UNWIND $rows AS row
CALL (row) {
  MERGE (t:Turn {owner: $owner, id: row.id})
  ON CREATE SET t += row, t.position = -1
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
