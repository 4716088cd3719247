// Purpose: every impression of the owner with the number of its cues (memories it was inferred
//          from) and of its conjectures (memories inferred from it), for reading (the console's
//          list of impressions).
// Parameters: $owner.
// Returns: one row per impression, by id: impression (properties, the embedding left out as an
//          empty list), cues and conjectures (counts).
MATCH (i:Impression {owner: $owner})
CALL (i) {
  OPTIONAL MATCH (i)-[:INFERRED_FROM]->(cue:Memory)
  RETURN count(cue) AS cues
}
CALL (i) {
  OPTIONAL MATCH (conjecture:Memory)-[:INFERRED_FROM]->(i)
  RETURN count(conjecture) AS conjectures
}
RETURN i {.*, embedding: []} AS impression, cues, conjectures
ORDER BY i.id
