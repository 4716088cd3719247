// Purpose: a page of the owner's timeline: up to $limit of its memories, newest first (ties by
//          id, the greater first), from just before the cursor ($before_at, $before_id), that meet
//          each condition given (null: none): of $kinds, in $tiers, made in [$since, $until), a
//          text holding $contains (lower case; case ignored), from a turn of $session, from a
//          turn said by $speaker; each with the turns it came from, oldest first (ties by id).
// Parameters: $owner, $limit, $before_at (a date-time or null), $before_id, $kinds (strings),
//             $tiers (integers), $since, $until, $contains, $session, $speaker.
// Returns: one row per memory, newest first: memory (properties, embedding and terms left out),
//          turns (a list of turn properties).
MATCH (m:Memory {owner: $owner})
WHERE ($before_at IS NULL OR m.created_at < $before_at
       OR (m.created_at = $before_at AND m.id < $before_id))
  AND ($kinds IS NULL OR m.kind IN $kinds)
  AND ($tiers IS NULL OR m.tier IN $tiers)
  AND ($since IS NULL OR m.created_at >= $since)
  AND ($until IS NULL OR m.created_at < $until)
  AND ($contains IS NULL OR toLower(m.text) CONTAINS $contains)
  AND ($session IS NULL OR EXISTS { (m)-[:FROM]->(:Turn {owner: $owner, session: $session}) })
  AND ($speaker IS NULL OR EXISTS { (m)-[:FROM]->(:Turn {owner: $owner, speaker: $speaker}) })
WITH m
ORDER BY m.created_at DESC, m.id DESC
LIMIT $limit
CALL (m) {
  OPTIONAL MATCH (m)-[:FROM]->(t:Turn {owner: $owner})
  WITH t
  ORDER BY t.created_at, t.id
  RETURN collect(t {.*}) AS turns
}
RETURN m {.*, embedding: null, terms: null} AS memory, turns
ORDER BY m.created_at DESC, m.id DESC
