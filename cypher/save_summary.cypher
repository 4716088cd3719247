// Purpose: store a dialogue summary and the events it changed, in one transaction. The summary
//          memory (labelled Hot in tier 0) is linked (summary)-[:FROM]->(t) to each of its turns
//          that is stored, and their awaiting_summary marks are removed. Each event, in order, is
//          created with all its properties, or, when stored, takes the new storyline (text),
//          title, last update, timeliness and embedding while keeping its attention, tier, first
//          update, importance and creation time; it is linked NEXT from its previous event (when
//          that is stored) and PART_OF from each member memory that is stored (the summary
//          included: it is stored first). Each fact read in the dialogue is created (labelled
//          Hot in tier 0) and linked (fact)-[:FROM]->(t) to its turn, unless that turn is gone.
//          Idempotent: a summary or fact already stored keeps its properties, edges are merged,
//          and the same input sets the same values again.
// Parameters: $owner, $summary (memory property map), $turns (turn ids), $events (list of
//             {event (event property map), previous (event id or null), members (memory ids)}),
//             $facts (list of {fact (memory property map), turn (turn id)}).
// Returns: summary_id (one row).
MERGE (s:Memory {owner: $owner, id: $summary.id})
ON CREATE SET s += $summary
WITH s
CALL (s) {
  WITH s
  WHERE s.tier = 0
  SET s:Hot
}
CALL (s) {
  UNWIND $turns AS turn_id
  MATCH (t:Turn {owner: $owner, id: turn_id})
  MERGE (s)-[:FROM]->(t)
  REMOVE t.awaiting_summary
}
CALL () {
  UNWIND $events AS change
  CALL (change) {
    WITH change.event AS row, change
    MERGE (e:Event {owner: $owner, id: row.id})
    ON CREATE SET e += row
    ON MATCH SET e += {text: row.text, title: row.title, last_at: row.last_at,
                       timeliness_days: row.timeliness_days, embedding: row.embedding}
    WITH e, change
    CALL (e, change) {
      MATCH (p:Event {owner: $owner, id: change.previous})
      MERGE (p)-[:NEXT]->(e)
    }
    CALL (e, change) {
      UNWIND change.members AS member
      MATCH (m:Memory {owner: $owner, id: member})
      MERGE (m)-[:PART_OF]->(e)
    }
  }
}
CALL () {
  UNWIND $facts AS item
  MATCH (t:Turn {owner: $owner, id: item.turn})
  MERGE (f:Memory {owner: $owner, id: item.fact.id})
  ON CREATE SET f += item.fact
  MERGE (f)-[:FROM]->(t)
  WITH f
  WHERE f.tier = 0
  SET f:Hot
}
RETURN s.id AS summary_id
