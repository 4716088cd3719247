// Purpose: count what an owner's health report shows besides count_nodes, count_links and
//          count_memories: memories per kind, the work queues (turns pending or awaiting a
//          summary, facts awaiting consolidation), open contradictions (both sides stand: neither
//          was MERGED_INTO another memory), facts a newer one superseded (their valid_until is
//          set), memories never used (accessed when made), nodes
//          without any edge, and when the oldest and newest conjectures were made.
// Parameters: $owner.
// Returns: one row: kinds (a list of {kind, count}), pending_turns, awaiting_summary,
//          awaiting_consolidation, open_contradictions, superseded, never_used, isolated,
//          first_conjecture_at and last_conjecture_at (ISO strings, null without conjectures).
CALL () {
  MATCH (m:Memory {owner: $owner})
  WITH m.kind AS kind, count(*) AS count
  RETURN collect({kind: kind, count: count}) AS kinds
}
CALL () {
  MATCH (t:Turn {owner: $owner, pending: true})
  RETURN count(t) AS pending_turns
}
CALL () {
  MATCH (t:Turn {owner: $owner, awaiting_summary: true})
  RETURN count(t) AS awaiting_summary
}
CALL () {
  MATCH (m:Memory {owner: $owner, awaiting_consolidation: true})
  RETURN count(m) AS awaiting_consolidation
}
CALL () {
  MATCH (a:Memory {owner: $owner})-[:CONTRADICTS]->(b:Memory {owner: $owner})
  WHERE NOT (a)-[:MERGED_INTO]->(:Memory) AND NOT (b)-[:MERGED_INTO]->(:Memory)
  RETURN count(*) AS open_contradictions
}
CALL () {
  MATCH (m:Memory {owner: $owner})
  WHERE m.valid_until IS NOT NULL
  RETURN count(m) AS superseded
}
CALL () {
  MATCH (m:Memory {owner: $owner})
  WHERE m.accessed_at = m.created_at
  RETURN count(m) AS never_used
}
CALL () {
  CALL () {
    MATCH (n:Turn {owner: $owner}) RETURN n
    UNION ALL
    MATCH (n:Memory {owner: $owner}) RETURN n
    UNION ALL
    MATCH (n:Event {owner: $owner}) RETURN n
    UNION ALL
    MATCH (n:Impression {owner: $owner}) RETURN n
  }
  WITH n
  WHERE NOT (n)--()
  RETURN count(n) AS isolated
}
CALL () {
  MATCH (c:Memory {owner: $owner, kind: 'conjecture'})
  RETURN toString(min(c.created_at)) AS first_conjecture_at,
         toString(max(c.created_at)) AS last_conjecture_at
}
RETURN kinds, pending_turns, awaiting_summary, awaiting_consolidation, open_contradictions,
       superseded, never_used, isolated, first_conjecture_at, last_conjecture_at
