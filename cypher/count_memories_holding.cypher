// Purpose: how rare each of the query's terms is among the owner's memories, for the lexical
//          channel of recall (graphmem.store.base.term_rarity): how many memories the owner has
//          and how many hold each term (among their `terms`, through the fulltext index over all
//          tiers), each counted up to $cap.
// Parameters: $owner, $searches (a list of {term, search}: each term with a Lucene query built
//             by graphmem for the owner's memories holding it), $cap.
// Returns: one row: memories (a count), holding (a list of {term, holding}: each term's count).
CALL () {
  MATCH (m:Memory {owner: $owner})
  WITH m LIMIT $cap
  RETURN count(m) AS memories
}
UNWIND $searches AS search
CALL (search) {
  CALL db.index.fulltext.queryNodes('memory_terms', search.search, {limit: $cap})
  YIELD node
  WHERE node.owner = $owner
  RETURN count(node) AS holding
}
RETURN memories, collect({term: search.term, holding: holding}) AS holding
