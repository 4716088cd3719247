// Purpose: count one owner's nodes per label, tombstones (of forgotten messages) included.
// Parameters: $owner.
// Returns: label, count (one row per label, zeros included: counting before naming the label
//          keeps a row when nothing matched).
MATCH (n:Turn {owner: $owner}) WITH count(n) AS count RETURN 'Turn' AS label, count
UNION ALL
MATCH (n:Memory {owner: $owner}) WITH count(n) AS count RETURN 'Memory' AS label, count
UNION ALL
MATCH (n:Event {owner: $owner}) WITH count(n) AS count RETURN 'Event' AS label, count
UNION ALL
MATCH (n:Impression {owner: $owner}) WITH count(n) AS count RETURN 'Impression' AS label, count
UNION ALL
MATCH (n:Session {owner: $owner}) WITH count(n) AS count RETURN 'Session' AS label, count
UNION ALL
MATCH (n:Tombstone {owner: $owner}) WITH count(n) AS count RETURN 'Tombstone' AS label, count
