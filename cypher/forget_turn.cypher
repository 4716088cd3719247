// Purpose: forget one turn at once, as graphmem.store.base.Forgetting says: delete the turn (the
//          later turns of its session move up one position, its Session counts one turn less
//          and goes with its last turn, NEXT joins the turns before and after it); delete the
//          memories, impressions and events named, with their edges; give the memories
//          (tier-0 ones labelled Hot, the others not), events and impressions named their new
//          properties; create the memories to add (unless their (owner, id) exists); delete the
//          PART_OF edges named and make the NEXT (event to event), PART_OF (memory to event)
//          and INFERRED_FROM (conjecture to impression) edges named, skipping ends not stored.
// Parameters: $owner, $turn (its id), $deleted_memories, $deleted_impressions, $deleted_events
//             (lists of ids), $memories, $events, $impressions (new property maps, each with
//             id), $added (memory property maps), $unlinked_members, $next, $members, $inferred
//             (lists of {source, target}).
// Returns: forgotten (1); no row when the turn is not stored.
MATCH (t:Turn {owner: $owner, id: $turn})
OPTIONAL MATCH (s:Session {owner: $owner, id: t.session})
OPTIONAL MATCH (before:Turn)-[:NEXT]->(t)
OPTIONAL MATCH (t)-[:NEXT]->(after:Turn)
CALL (t) {
  MATCH (later:Turn {owner: $owner, session: t.session})
  WHERE later.position > t.position
  SET later.position = later.position - 1
}
SET s.turns = s.turns - 1
DETACH DELETE t
WITH s, before, after
CALL (before, after) {
  WITH before, after
  WHERE before IS NOT NULL AND after IS NOT NULL
  MERGE (before)-[:NEXT]->(after)
}
CALL (s) {
  WITH s
  WHERE s.turns = 0
  DELETE s
}
CALL () {
  UNWIND $deleted_memories AS id
  MATCH (m:Memory {owner: $owner, id: id})
  DETACH DELETE m
}
CALL () {
  UNWIND $deleted_impressions AS id
  MATCH (i:Impression {owner: $owner, id: id})
  DETACH DELETE i
}
CALL () {
  UNWIND $deleted_events AS id
  MATCH (e:Event {owner: $owner, id: id})
  DETACH DELETE e
}
CALL () {
  UNWIND $memories AS row
  MATCH (m:Memory {owner: $owner, id: row.id})
  SET m = row
  REMOVE m:Hot
  WITH m
  WHERE m.tier = 0
  SET m:Hot
}
CALL () {
  UNWIND $events AS row
  MATCH (e:Event {owner: $owner, id: row.id})
  SET e = row
}
CALL () {
  UNWIND $impressions AS row
  MATCH (i:Impression {owner: $owner, id: row.id})
  SET i = row
}
CALL () {
  UNWIND $added AS row
  MERGE (m:Memory {owner: $owner, id: row.id})
  ON CREATE SET m += row
  WITH m
  WHERE m.tier = 0
  SET m:Hot
}
CALL () {
  UNWIND $unlinked_members AS link
  MATCH (:Memory {owner: $owner, id: link.source})
        -[r:PART_OF]->(:Event {owner: $owner, id: link.target})
  DELETE r
}
CALL () {
  UNWIND $next AS link
  MATCH (a:Event {owner: $owner, id: link.source})
  MATCH (b:Event {owner: $owner, id: link.target})
  MERGE (a)-[:NEXT]->(b)
}
CALL () {
  UNWIND $members AS link
  MATCH (a:Memory {owner: $owner, id: link.source})
  MATCH (b:Event {owner: $owner, id: link.target})
  MERGE (a)-[:PART_OF]->(b)
}
CALL () {
  UNWIND $inferred AS link
  MATCH (a:Memory {owner: $owner, id: link.source})
  MATCH (b:Impression {owner: $owner, id: link.target})
  MERGE (a)-[:INFERRED_FROM]->(b)
}
RETURN 1 AS forgotten
