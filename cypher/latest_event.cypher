// Purpose: the owner's event of one category updated last (the greatest last_at; ties by the
//          greatest id), found through the (owner, category) index.
// Parameters: $owner, $category.
// Returns: one row: events, a list of at most one event's properties, embedding included
//          (date-times as ISO text; one record: see find_similar_memories.cypher).
MATCH (e:Event {owner: $owner, category: $category})
WITH e
ORDER BY e.last_at DESC, e.id DESC
LIMIT 1
RETURN collect(e {.*, created_at: toString(e.created_at), first_at: toString(e.first_at),
                  last_at: toString(e.last_at),
                  attention_long_term_at: toString(e.attention_long_term_at),
                  attention_short_term_at: toString(e.attention_short_term_at)}) AS events
