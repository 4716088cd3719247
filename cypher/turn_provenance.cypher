// Purpose: what was derived from one turn, all that forgetting it must delete or derive again
//          (graphmem.store.base.Provenance): the memories FROM it, each with every turn it is
//          FROM (a dialogue summary covers several); the impressions INFERRED_FROM one of them,
//          each with all its cues (the cue memory, its first turn, its time, its importance and
//          the belief its INFERRED_FROM edge keeps) and the conjectures INFERRED_FROM it; the
//          events one of them is PART_OF, each with its dialogue summaries (with their turns),
//          all its members and the events joined to it by NEXT; and the other memories joined
//          to one of them by UPDATES, each with the memories that UPDATES it (id, creation
//          time) and those it UPDATES. Every list is in a fixed order (ids; summaries and
//          turns by time, then id), so two reads of an unchanged graph are equal.
// Parameters: $owner, $turn (the turn's id).
// Returns: no row when the owner has no such turn; else one row: turn (property map),
//          memories, impressions, events, updates (lists of maps as described).
MATCH (t:Turn {owner: $owner, id: $turn})
CALL (t) {
  MATCH (m:Memory)-[:FROM]->(t)
  CALL (m) {
    MATCH (m)-[:FROM]->(u:Turn)
    WITH u ORDER BY u.created_at, u.id
    RETURN collect(u {.*}) AS turns
  }
  WITH m, turns ORDER BY m.id
  RETURN collect({memory: m {.*}, turns: turns}) AS memories, collect(m) AS derived
}
CALL (derived) {
  UNWIND derived AS m
  MATCH (i:Impression)-[:INFERRED_FROM]->(m)
  WITH DISTINCT i
  CALL (i) {
    MATCH (i)-[r:INFERRED_FROM]->(cue:Memory)
    CALL (cue) {
      OPTIONAL MATCH (cue)-[:FROM]->(u:Turn)
      WITH u ORDER BY u.created_at, u.id
      RETURN coalesce(head(collect(u.id)), '') AS turn
    }
    WITH cue, r, turn ORDER BY cue.id
    RETURN collect({memory: cue.id, turn: turn, at: cue.created_at, belief: r.belief,
                    importance: cue.importance}) AS cues
  }
  CALL (i) {
    MATCH (c:Memory)-[:INFERRED_FROM]->(i)
    WITH c ORDER BY c.id
    RETURN collect(c {.*}) AS conjectures
  }
  WITH i, cues, conjectures ORDER BY i.id
  RETURN collect({impression: i {.*}, cues: cues, conjectures: conjectures}) AS impressions
}
CALL (derived) {
  UNWIND derived AS m
  MATCH (m)-[:PART_OF]->(e:Event)
  WITH DISTINCT e
  CALL (e) {
    MATCH (s:Memory {kind: 'summary'})-[:PART_OF]->(e)
    CALL (s) {
      MATCH (s)-[:FROM]->(u:Turn)
      WITH u ORDER BY u.created_at, u.id
      RETURN collect(u {.*}) AS turns
    }
    WITH s, turns ORDER BY s.created_at, s.id
    RETURN collect({memory: s {.*}, turns: turns}) AS developments
  }
  CALL (e) {
    MATCH (x:Memory)-[:PART_OF]->(e)
    WITH x.id AS id ORDER BY id
    RETURN collect(id) AS members
  }
  CALL (e) {
    MATCH (p:Event)-[:NEXT]->(e)
    WITH p.id AS id ORDER BY id
    RETURN collect(id) AS previous
  }
  CALL (e) {
    MATCH (e)-[:NEXT]->(n:Event)
    WITH n.id AS id ORDER BY id
    RETURN collect(id) AS following
  }
  WITH e, developments, members, previous, following ORDER BY e.id
  RETURN collect({event: e {.*}, developments: developments, members: members,
                  previous: previous, following: following}) AS events
}
CALL (derived) {
  UNWIND derived AS m
  MATCH (m)-[:UPDATES]-(x:Memory)
  WHERE NOT x IN derived
  WITH DISTINCT x
  CALL (x) {
    MATCH (n:Memory)-[:UPDATES]->(x)
    WITH n ORDER BY n.id
    RETURN collect([n.id, n.created_at]) AS newer
  }
  CALL (x) {
    MATCH (x)-[:UPDATES]->(o:Memory)
    WITH o.id AS id ORDER BY id
    RETURN collect(id) AS older
  }
  WITH x, newer, older ORDER BY x.id
  RETURN collect({memory: x {.*}, newer: newer, older: older}) AS updates
}
RETURN t {.*} AS turn, memories, impressions, events, updates
