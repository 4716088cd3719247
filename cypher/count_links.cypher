// Purpose: count one owner's edges per type (edges never cross owners: the source decides).
// Parameters: $owner.
// Returns: type, count (one row per type that has at least one edge).
CALL () {
  MATCH (n:Turn {owner: $owner}) RETURN n
  UNION ALL
  MATCH (n:Memory {owner: $owner}) RETURN n
  UNION ALL
  MATCH (n:Event {owner: $owner}) RETURN n
  UNION ALL
  MATCH (n:Impression {owner: $owner}) RETURN n
}
MATCH (n)-[r]->()
RETURN type(r) AS type, count(r) AS count
