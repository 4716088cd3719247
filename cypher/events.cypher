// Purpose: every event of the owner with the number of memories PART_OF it, for reading (the
//          console's list of events): open or not, the latest update first.
// Parameters: $owner.
// Returns: one row per event, latest last_at first (ties by id): event (properties, the
//          embedding left out as an empty list), memories (a count).
MATCH (e:Event {owner: $owner})
CALL (e) {
  OPTIONAL MATCH (m:Memory)-[:PART_OF]->(e)
  RETURN count(m) AS memories
}
RETURN e {.*, embedding: []} AS event, memories
ORDER BY e.last_at DESC, e.id
