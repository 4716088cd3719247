// Purpose: everything one owner has, in a fixed order so two exports compare equal by content:
//          its Turn, Memory, Event and Impression nodes (Session nodes, the store's bookkeeping,
//          left out) by label and id, every edge from one of them (edges never cross
//          owners) by type, source id, target id, source label and target label, and the hashes
//          of its tombstones (messages it forgot) in order.
// Parameters: $owner.
// Returns: one row: nodes, a list of {label, node (properties, embeddings included, date-times
//          as ISO text)}; links, a list of [type, source, target, weight, sufficiency, belief,
//          source label, target label] (one record: see find_similar_memories.cypher);
//          tombstones, a list of hashes.
CALL () {
  MATCH (n:Turn {owner: $owner})
  RETURN 'Turn' AS label, n {.*, created_at: toString(n.created_at)} AS node
  UNION ALL
  MATCH (n:Memory {owner: $owner})
  RETURN 'Memory' AS label,
         n {.*, created_at: toString(n.created_at), accessed_at: toString(n.accessed_at),
            valid_from: toString(n.valid_from), valid_until: toString(n.valid_until),
            attention_long_term_at: toString(n.attention_long_term_at),
            attention_short_term_at: toString(n.attention_short_term_at)} AS node
  UNION ALL
  MATCH (n:Event {owner: $owner})
  RETURN 'Event' AS label,
         n {.*, created_at: toString(n.created_at), first_at: toString(n.first_at),
            last_at: toString(n.last_at),
            attention_long_term_at: toString(n.attention_long_term_at),
            attention_short_term_at: toString(n.attention_short_term_at)} AS node
  UNION ALL
  MATCH (n:Impression {owner: $owner})
  RETURN 'Impression' AS label,
         n {.*, created_at: toString(n.created_at), belief_at: toString(n.belief_at),
            conjectured_at: toString(n.conjectured_at)} AS node
}
WITH label, node
ORDER BY label, node.id
WITH collect({label: label, node: node}) AS nodes
CALL () {
  CALL () {
    MATCH (a:Turn {owner: $owner}) RETURN a, 'Turn' AS source_label
    UNION ALL
    MATCH (a:Memory {owner: $owner}) RETURN a, 'Memory' AS source_label
    UNION ALL
    MATCH (a:Event {owner: $owner}) RETURN a, 'Event' AS source_label
    UNION ALL
    MATCH (a:Impression {owner: $owner}) RETURN a, 'Impression' AS source_label
  }
  MATCH (a)-[r]->(b:Turn|Memory|Event|Impression {owner: $owner})
  WITH type(r) AS type, a.id AS source, b.id AS target, r.weight AS weight,
       r.sufficiency AS sufficiency, r.belief AS belief, source_label,
       CASE WHEN b:Turn THEN 'Turn' WHEN b:Memory THEN 'Memory' WHEN b:Event THEN 'Event'
         ELSE 'Impression' END AS target_label
  ORDER BY type, source, target, source_label, target_label
  RETURN collect([type, source, target, weight, sufficiency, belief, source_label, target_label])
         AS links
}
CALL () {
  MATCH (tombstone:Tombstone {owner: $owner})
  WITH tombstone.hash AS hash
  ORDER BY hash
  RETURN collect(hash) AS tombstones
}
RETURN nodes, links, tombstones
