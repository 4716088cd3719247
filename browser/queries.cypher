// graphmem: ready queries for Neo4j Browser (style: browser/graphmem.grass)
//
// Each query below opens with a header: its title (the name Browser gives it as a favourite),
// what it shows, and the :param lines it needs. Run those :param lines in Browser first, then
// paste the query. Every query reads one owner's nodes only ($owner) and writes nothing.
// Each returns nodes, paths or lists of them, so Browser draws a graph; the table view lists
// the extra columns.

// graphmem: an owner's hot tier
// Shows: the owner's tier-0 memories (label Hot: the working set a shallow recall searches),
//        the 100 most recently used, each with the turns it was derived FROM (a dialogue
//        summary comes from up to 20 turns) and the events it is PART_OF.
// Needs: :param owner => 'demo-user'
MATCH (m:Memory {owner: $owner, tier: 0})
WITH m
ORDER BY m.accessed_at DESC
LIMIT 100
CALL (m) {
  OPTIONAL MATCH source = (m)-[:FROM]->(:Turn {owner: $owner})
  RETURN collect(source) AS sources
}
CALL (m) {
  OPTIONAL MATCH part = (m)-[:PART_OF]->(:Event {owner: $owner})
  RETURN collect(part) AS events
}
RETURN m, sources, events;

// graphmem: an event's storyline
// Shows: the owner's events of one category (illness, travel, work, home, study, celebration,
//        relationship, ...), each joined by NEXT to the event that followed it, with the
//        memories PART_OF each (the dialogue summaries that told it among them). An event's
//        `text` is its storyline, `first_at` and `last_at` its span. The categories an owner
//        has: MATCH (e:Event {owner: $owner}) RETURN DISTINCT e.category
// Needs: :param owner => 'demo-user'
//        :param category => 'illness'
MATCH (e:Event {owner: $owner, category: $category})
CALL (e) {
  OPTIONAL MATCH line = (e)-[:NEXT]->(:Event {owner: $owner})
  RETURN collect(line) AS storyline
}
CALL (e) {
  OPTIONAL MATCH member = (:Memory {owner: $owner})-[:PART_OF]->(e)
  RETURN collect(member) AS members
}
RETURN e, storyline, members, e.title AS title, e.first_at AS first_at, e.last_at AS last_at
ORDER BY e.first_at;

// graphmem: a conjecture's provenance
// Shows: each conjecture memory of the owner whose text contains $conjecture (any case; '' for
//        all of them), the Impression it was INFERRED_FROM (its belief accumulated by noisy-OR
//        over the cues), the cue memories that impression was INFERRED_FROM, and the turns each
//        cue came FROM.
// Needs: :param owner => 'demo-user'
//        :param conjecture => 'cold'
MATCH chain = (c:Memory {owner: $owner, kind: 'conjecture'})-[:INFERRED_FROM]->
              (i:Impression {owner: $owner})-[:INFERRED_FROM]->(cue:Memory {owner: $owner})
WHERE toLower(c.text) CONTAINS toLower($conjecture)
OPTIONAL MATCH source = (cue)-[:FROM]->(:Turn {owner: $owner})
RETURN chain, collect(source) AS sources, c.text AS conjecture, c.belief AS conjecture_belief,
       i.belief AS impression_belief;

// graphmem health: open contradictions
// Shows: each pair of the owner's memories joined by CONTRADICTS whose two sides both still
//        stand (neither was MERGED_INTO another memory), with the turns each came FROM, and
//        their beliefs in the table view, the closest disputes (highest lower belief) first.
//        The sleep job lowers the weaker side's belief and attention but deletes nothing, so a
//        pair stays listed, with the beliefs showing how it was judged.
// Needs: :param owner => 'demo-user'
MATCH pair = (a:Memory {owner: $owner})-[:CONTRADICTS]->(b:Memory {owner: $owner})
WHERE NOT (a)-[:MERGED_INTO]->(:Memory) AND NOT (b)-[:MERGED_INTO]->(:Memory)
CALL (a, b) {
  UNWIND [a, b] AS side
  OPTIONAL MATCH source = (side)-[:FROM]->(:Turn {owner: $owner})
  RETURN collect(source) AS sources
}
RETURN pair, sources, a.text AS one, a.belief AS one_belief, b.text AS other,
       b.belief AS other_belief
ORDER BY CASE WHEN a.belief < b.belief THEN a.belief ELSE b.belief END DESC;

// graphmem: what woke up in the last hour
// Shows: the owner's memories and events whose attention was set again, after they were
//        made, within the hour before $now, and the RELATED, CAUSES and PART_OF edges among
//        them (the paths a wake-up spreads along). `how` in the table view: 'used' when
//        accessed_at is in that hour (returned by a recall, or a duplicate's survivor in the
//        sleep job: both parts of its attention raised), else 'woken' (attention_short_term_at
//        in that hour: raised by a neighbour's use, or lowered when the sleep job found it
//        the weaker side of a contradiction). Sets of cypher/wake.cypher and settle_fact.cypher.
// Needs: :param owner => 'demo-user'
//        :param now => datetime()
//        (wall clock) or, for a history replayed on a simulated clock such as `graphmem demo`:
//        :param now => null
//        (the hour before the owner's latest wake-up)
CALL () {
  MATCH (n:Memory {owner: $owner})
  RETURN n
  UNION ALL
  MATCH (n:Event {owner: $owner})
  RETURN n
}
WITH n, [at IN [n.accessed_at, n.attention_short_term_at] WHERE at > n.created_at] AS moments
WHERE moments <> []
WITH collect({node: n, moments: moments}) AS touched,
     max(reduce(latest = moments[0], at IN moments |
       CASE WHEN at > latest THEN at ELSE latest END)) AS latest
WITH touched, coalesce($now, latest) AS until
WITH touched, until, until - duration('PT1H') AS since
UNWIND touched AS row
WITH row.node AS n, row.moments AS moments, since, until
WHERE any(at IN moments WHERE since <= at <= until)
WITH collect(n) AS woken, since, until
UNWIND woken AS n
OPTIONAL MATCH spread = (n)-[:RELATED|CAUSES|PART_OF]-(other)
WHERE other IN woken
RETURN n, collect(spread) AS spreads,
       CASE WHEN since <= n.accessed_at <= until THEN 'used' ELSE 'woken' END AS how,
       since, until;

// graphmem: an owner's graph at a glance
// Shows: at most 300 of the owner's nodes (Browser draws at most 300 by default: its
//        initialNodeDisplay setting): events first, then impressions, then memories by tier
//        (hot first), then turns, newest first within each, and every edge among them.
//        Session nodes (bookkeeping: a session's count of turns) are left out.
// Needs: :param owner => 'demo-user'
CALL () {
  MATCH (n:Event {owner: $owner})
  RETURN n, 0 AS rank
  UNION ALL
  MATCH (n:Impression {owner: $owner})
  RETURN n, 1 AS rank
  UNION ALL
  MATCH (n:Memory {owner: $owner})
  RETURN n, 2 + n.tier AS rank
  UNION ALL
  MATCH (n:Turn {owner: $owner})
  RETURN n, 6 AS rank
}
WITH n
ORDER BY rank, n.created_at DESC
LIMIT 300
WITH collect(n) AS shown
UNWIND shown AS n
OPTIONAL MATCH (n)-[edge]->(other)
WHERE other IN shown
RETURN n, collect(edge) AS edges;

// graphmem: profile facts by slot
// Shows: the owner's facts (the sleep job reads them in the dialogues: docs/profile.md), slot
//        by slot, each with the turn it was read in; in the table view each slot's value in
//        force (the latest) and the older values it replaced, newest first.
// Needs: :param owner => 'demo-user'
MATCH (f:Memory {owner: $owner, kind: 'fact'})
OPTIONAL MATCH source = (f)-[:FROM]->(:Turn {owner: $owner})
WITH f, source
ORDER BY f.slot, f.created_at DESC
WITH f.slot AS slot, collect(f) AS facts, collect(source) AS sources
RETURN slot, head(facts).text AS in_force, [fact IN tail(facts) | fact.text] AS replaced,
       facts, sources;

// graphmem health: pending work
// Shows: the owner's work queues as `graphmem health` counts them, oldest first, one row per
//        node and queue: turns whose memories are not derived yet ('pending': a model call
//        failed or was cut short; the next observe or sleep job derives them), turns that no
//        dialogue summary covers yet ('awaiting summary': the sleep job's queue) and facts not
//        yet weighed against older ones ('awaiting consolidation').
// Needs: :param owner => 'demo-user'
CALL () {
  MATCH (n:Turn {owner: $owner, pending: true})
  RETURN n, 'pending' AS queue
  UNION ALL
  MATCH (n:Turn {owner: $owner, awaiting_summary: true})
  RETURN n, 'awaiting summary' AS queue
  UNION ALL
  MATCH (n:Memory {owner: $owner, awaiting_consolidation: true})
  RETURN n, 'awaiting consolidation' AS queue
}
RETURN n, queue, n.created_at AS created_at
ORDER BY created_at;

// graphmem health: duplicates merged
// Shows: each memory the sleep job found to repeat an older one, MERGED_INTO the one it kept
//        (whose belief and attention the duplicate raised; the duplicate stays, with its
//        provenance), with the turns both came FROM, oldest duplicate first.
// Needs: :param owner => 'demo-user'
MATCH merge = (duplicate:Memory {owner: $owner})-[:MERGED_INTO]->(kept:Memory {owner: $owner})
CALL (duplicate, kept) {
  UNWIND [duplicate, kept] AS side
  OPTIONAL MATCH source = (side)-[:FROM]->(:Turn {owner: $owner})
  RETURN collect(source) AS sources
}
RETURN merge, sources, duplicate.text AS duplicate_text, kept.text AS kept_text,
       kept.belief AS kept_belief
ORDER BY duplicate.created_at;

// graphmem health: superseded
// Shows: each fact a newer one UPDATES ("I moved to Berlin" after "I live in Paris"), its
//        validity ended when the newer one was stated (valid_until) and kept, with the chain of
//        updates it belongs to, oldest first.
// Needs: :param owner => 'demo-user'
MATCH (old:Memory {owner: $owner})
WHERE old.valid_until IS NOT NULL
OPTIONAL MATCH chain = (:Memory {owner: $owner})-[:UPDATES]->(old)
RETURN old, collect(chain) AS updates, old.text AS text, old.created_at AS said_at,
       old.valid_until AS valid_until
ORDER BY said_at;

// graphmem health: conjectures
// Shows: the owner's conjecture memories (impressions whose belief crossed the threshold),
//        oldest first, each with the Impression it was INFERRED_FROM; "graphmem: a
//        conjecture's provenance" follows one on to its cues and their turns.
// Needs: :param owner => 'demo-user'
MATCH (c:Memory {owner: $owner, kind: 'conjecture'})
OPTIONAL MATCH inferred = (c)-[:INFERRED_FROM]->(:Impression {owner: $owner})
RETURN c, collect(inferred) AS impressions, c.text AS conjecture, c.belief AS belief,
       c.created_at AS made_at
ORDER BY made_at;

// graphmem health: never used
// Shows: the owner's memories that no recall has returned and no duplicate reinforced (their
//        accessed_at is still their created_at), the 300 oldest: what was stored and never
//        needed, sinking tier by tier as its attention fades.
// Needs: :param owner => 'demo-user'
MATCH (m:Memory {owner: $owner})
WHERE m.accessed_at = m.created_at
RETURN m, m.kind AS kind, m.tier AS tier, m.created_at AS created_at
ORDER BY created_at
LIMIT 300;

// graphmem health: isolated
// Shows: the owner's turns, memories, events and impressions without any edge, the 300
//        oldest. In a sound graph only a turn still pending, alone in its session, is one.
// Needs: :param owner => 'demo-user'
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
RETURN n, labels(n) AS labels, n.created_at AS created_at
ORDER BY created_at
LIMIT 300;
