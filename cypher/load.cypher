// Purpose: bulk-load one owner's graph as export returns it, after its turns (save_turns, in
//          the same transaction, which also makes their Session nodes and NEXT edges): memories
//          (tier-0 ones also labelled Hot), events and impressions, each created unless its
//          (owner, id) exists (a stored node keeps its properties), then the edges between the
//          owner's nodes, one block per pair of labels that the model links (so each end is
//          found through its (owner, id) index); an edge whose ends are not stored is skipped.
//          Edge types come from graphmem's LinkType, never from input.
// Parameters: $owner, $memories, $events, $impressions (lists of node property maps),
//             $links (list of {type, source, target, weight, sufficiency, belief, source_label,
//             target_label}; an impression's INFERRED_FROM edge keeps its cue's belief).
// Returns: loaded (1).
CALL () {
  UNWIND $memories AS row
  MERGE (m:Memory {owner: $owner, id: row.id})
  ON CREATE SET m += row
  WITH m
  WHERE m.tier = 0
  SET m:Hot
}
CALL () {
  UNWIND $events AS row
  MERGE (e:Event {owner: $owner, id: row.id})
  ON CREATE SET e += row
}
CALL () {
  UNWIND $impressions AS row
  MERGE (i:Impression {owner: $owner, id: row.id})
  ON CREATE SET i += row
}
CALL () {
  UNWIND [l IN $links WHERE l.source_label = 'Memory' AND l.target_label = 'Turn'] AS link
  MATCH (a:Memory {owner: $owner, id: link.source})
  MATCH (b:Turn {owner: $owner, id: link.target})
  MERGE (a)-[:$(link.type)]->(b)
}
CALL () {
  UNWIND [l IN $links WHERE l.source_label = 'Memory' AND l.target_label = 'Memory'] AS link
  MATCH (a:Memory {owner: $owner, id: link.source})
  MATCH (b:Memory {owner: $owner, id: link.target})
  MERGE (a)-[r:$(link.type)]->(b)
  SET r.weight = link.weight, r.sufficiency = link.sufficiency
}
CALL () {
  UNWIND [l IN $links WHERE l.source_label = 'Memory' AND l.target_label = 'Event'] AS link
  MATCH (a:Memory {owner: $owner, id: link.source})
  MATCH (b:Event {owner: $owner, id: link.target})
  MERGE (a)-[:$(link.type)]->(b)
}
CALL () {
  UNWIND [l IN $links WHERE l.source_label = 'Event' AND l.target_label = 'Event'] AS link
  MATCH (a:Event {owner: $owner, id: link.source})
  MATCH (b:Event {owner: $owner, id: link.target})
  MERGE (a)-[:$(link.type)]->(b)
}
CALL () {
  UNWIND [l IN $links WHERE l.source_label = 'Memory' AND l.target_label = 'Impression'] AS link
  MATCH (a:Memory {owner: $owner, id: link.source})
  MATCH (b:Impression {owner: $owner, id: link.target})
  MERGE (a)-[:$(link.type)]->(b)
}
CALL () {
  UNWIND [l IN $links WHERE l.source_label = 'Impression' AND l.target_label = 'Memory'] AS link
  MATCH (a:Impression {owner: $owner, id: link.source})
  MATCH (b:Memory {owner: $owner, id: link.target})
  MERGE (a)-[r:$(link.type)]->(b)
  SET r.belief = link.belief
}
RETURN 1 AS loaded
