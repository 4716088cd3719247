// Purpose: the neighbourhood of recalled memories, where association spreads relevance, and the
//          edges of a recall's subgraph, in one read. The neighbours: the memories FROM the
//          turns within $window positions of theirs in the same session, the $links memories
//          most strongly linked to each by RELATED, CAUSES or PART_OF either way (weight, else
//          sufficiency, else 1), or sharing an event with it (the other memories PART_OF an event
//          it is linked to: strength 1), ties by similarity to the query embedding, then id
//          (ids are drawn from the owner's name, which must decide nothing), and the $links cues
//          of each impression a query evokes ($evoked) that gave it the most belief (the belief
//          on its INFERRED_FROM edge; ties: the latest, then id; edges without one left out); in
//          0..$deepest; each with its cosine similarity to the query embedding and its source
//          turns; the given memories, the $known ones (a recall's candidates), dialogue
//          summaries and facts (they restate their turns' observations) and those a recall's
//          filter does not admit left out (before the strongest are taken). A session's turns
//          are found by one range seek of the (owner, session, position) index, so the cost is
//          bounded by $window and $links, not by history. The edges: those among the given,
//          known and found memories, each memory sought by its (owner, id) key (with IN, Neo4j
//          2026.08 seeks the owner index and filters every memory of the owner) and its own
//          edges followed, so the cost grows with their edges, not with the square of their
//          number or with the owner's memories. Read here rather than by a statement of their own,
//          they cost one round trip less and 1.5-3 ms less server time.
// Parameters: $owner, $ids (memory ids), $known (memory ids), $evoked (impression ids),
//             $embedding, $window (turns either side), $links (linked memories per given memory,
//             cues per impression), $deepest (0-3); the filter, each null for no condition (as
//             in find_similar_memories_where.cypher): $sessions, $speakers, $since, $until,
//             $kinds, $min_belief.
// Returns: one row: found, a list, by memory id, of {memory (properties, embedding and terms
//          left out, date-times as ISO text), similarity (cosine in [-1, 1]), turns (list of
//          turn properties, likewise)}, see find_similar_memories.cypher for why; and links, a
//          list of [type, source, target, weight, sufficiency], one per edge, ordered by type,
//          source and target; and cues, a list, by impression and memory id, of {impression (its
//          properties, the embedding empty), memory (the cue's id), belief (the edge's)}, known
//          cues included.
CALL () {
  UNWIND $evoked AS id
  WITH DISTINCT id
  MATCH (i:Impression {owner: $owner, id: id})-[r:INFERRED_FROM]->(m:Memory)
  WHERE r.belief IS NOT NULL AND m.tier <= $deepest AND NOT m.kind IN ['summary', 'fact']
    AND ($kinds IS NULL OR m.kind IN $kinds)
    AND ($since IS NULL OR m.created_at >= $since)
    AND ($until IS NULL OR m.created_at < $until)
    AND ($min_belief IS NULL OR m.belief IS NULL OR m.belief >= $min_belief)
    AND ($sessions IS NULL OR EXISTS { (m)-[:FROM]->(source:Turn)
        WHERE source.session IN $sessions })
    AND ($speakers IS NULL OR EXISTS { (m)-[:FROM]->(source:Turn)
        WHERE source.speaker IN $speakers })
  WITH i, m, r.belief AS belief
  ORDER BY belief DESC, m.created_at DESC, m.id
  WITH i, collect({memory: m.id, belief: belief})[..$links] AS strongest
  UNWIND strongest AS cue
  WITH i, cue
  ORDER BY i.id, cue.memory
  RETURN collect({impression: i {.*, embedding: []}, memory: cue.memory, belief: cue.belief})
           AS cues,
         collect(cue.memory) AS evoked_memories
}
CALL (evoked_memories) {
  CALL (evoked_memories) {
    UNWIND $ids AS id
    WITH DISTINCT id
    MATCH (given:Memory {owner: $owner, id: id})
    CALL (given) {
      MATCH (given)-[:FROM]->(t:Turn)
      MATCH (near:Turn {owner: $owner, session: t.session})
      WHERE t.position - $window <= near.position <= t.position + $window
      MATCH (m:Memory)-[:FROM]->(near)
      RETURN m
      UNION
      CALL (given) {
        MATCH (given)-[r:RELATED|CAUSES|PART_OF]-(m:Memory)
        RETURN m, coalesce(r.weight, r.sufficiency, 1.0) AS strength
        UNION ALL
        MATCH (given)-[:RELATED|CAUSES|PART_OF]-(:Event)<-[:PART_OF]-(m:Memory)
        RETURN m, 1.0 AS strength
      }
      WITH m, strength
      WHERE NOT m.id IN $ids AND m.tier <= $deepest AND NOT m.kind IN ['summary', 'fact']
        AND ($kinds IS NULL OR m.kind IN $kinds)
        AND ($since IS NULL OR m.created_at >= $since)
        AND ($until IS NULL OR m.created_at < $until)
        AND ($min_belief IS NULL OR m.belief IS NULL OR m.belief >= $min_belief)
        AND ($sessions IS NULL OR EXISTS { (m)-[:FROM]->(source:Turn)
            WHERE source.session IN $sessions })
        AND ($speakers IS NULL OR EXISTS { (m)-[:FROM]->(source:Turn)
            WHERE source.speaker IN $speakers })
      WITH m, max(strength) AS strength
      ORDER BY strength DESC, vector.similarity.cosine(m.embedding, $embedding) DESC, m.id
      LIMIT $links
      RETURN m
    }
    RETURN m
    UNION
    UNWIND evoked_memories AS id
    MATCH (m:Memory {owner: $owner, id: id})
    RETURN m
  }
  WITH DISTINCT m
  WHERE NOT m.id IN $ids AND NOT m.id IN $known AND m.tier <= $deepest
    AND NOT m.kind IN ['summary', 'fact']
    AND ($kinds IS NULL OR m.kind IN $kinds)
    AND ($since IS NULL OR m.created_at >= $since)
    AND ($until IS NULL OR m.created_at < $until)
    AND ($min_belief IS NULL OR m.belief IS NULL OR m.belief >= $min_belief)
    AND ($sessions IS NULL OR EXISTS { (m)-[:FROM]->(source:Turn)
        WHERE source.session IN $sessions })
    AND ($speakers IS NULL OR EXISTS { (m)-[:FROM]->(source:Turn)
        WHERE source.speaker IN $speakers })
  CALL (m) {
    OPTIONAL MATCH (m)-[:FROM]->(t:Turn)
    WITH t ORDER BY t.created_at, t.id
    RETURN collect(t {.*, created_at: toString(t.created_at)}) AS turns
  }
  WITH m {.*, embedding: null, terms: null, created_at: toString(m.created_at),
         accessed_at: toString(m.accessed_at), valid_from: toString(m.valid_from),
         valid_until: toString(m.valid_until),
         attention_long_term_at: toString(m.attention_long_term_at),
         attention_short_term_at: toString(m.attention_short_term_at)} AS memory,
       2 * vector.similarity.cosine(m.embedding, $embedding) - 1 AS similarity,
       turns
  ORDER BY memory.id
  RETURN collect({memory: memory, similarity: similarity, turns: turns}) AS found,
         collect(memory.id) AS neighbours
}
CALL (neighbours) {
  WITH $ids + $known + neighbours AS pool
  UNWIND pool AS id
  WITH DISTINCT id, pool
  MATCH (a:Memory {owner: $owner, id: id})-[r]->(b:Memory {owner: $owner})
  WHERE b.id IN pool
  WITH type(r) AS type, a.id AS source, b.id AS target, r.weight AS weight,
       r.sufficiency AS sufficiency
  ORDER BY type, source, target
  RETURN collect([type, source, target, weight, sufficiency]) AS links
}
RETURN found, links, cues
