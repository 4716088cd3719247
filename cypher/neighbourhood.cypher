// Purpose: a node of the owner, every node one edge away from it (Session nodes, the store's
//          bookkeeping, left out), and those edges, each once.
// Parameters: $owner, $label (Turn, Memory, Event or Impression), $id.
// Returns: no row if the owner has no such node; else one row: node, {label, node (properties)};
//          neighbours, a list of such; links, a list of [type, source, target, weight,
//          sufficiency, belief, source label, target label] (see export.cypher); in no order.
//          A memory's embedding and terms are left out.
CALL () {
  MATCH (n:Turn {owner: $owner, id: $id}) WHERE $label = 'Turn' RETURN n
  UNION
  MATCH (n:Memory {owner: $owner, id: $id}) WHERE $label = 'Memory' RETURN n
  UNION
  MATCH (n:Event {owner: $owner, id: $id}) WHERE $label = 'Event' RETURN n
  UNION
  MATCH (n:Impression {owner: $owner, id: $id}) WHERE $label = 'Impression' RETURN n
}
OPTIONAL MATCH (n)-[r]-(b:Turn|Memory|Event|Impression {owner: $owner})
WITH n, r, b,
     CASE WHEN b:Turn THEN 'Turn' WHEN b:Memory THEN 'Memory' WHEN b:Event THEN 'Event'
       ELSE 'Impression' END AS other
RETURN {label: $label,
        node: CASE WHEN $label = 'Memory' THEN n {.*, embedding: null, terms: null}
                ELSE n {.*} END} AS node,
       collect(DISTINCT CASE WHEN b IS NOT NULL THEN
         {label: other,
          node: CASE WHEN b:Memory THEN b {.*, embedding: null, terms: null} ELSE b {.*} END}
       END) AS neighbours,
       collect(DISTINCT CASE WHEN r IS NOT NULL THEN
         [type(r), startNode(r).id, endNode(r).id, r.weight, r.sufficiency, r.belief,
          CASE WHEN startNode(r) = n THEN $label ELSE other END,
          CASE WHEN endNode(r) = n THEN $label ELSE other END]
       END) AS links
