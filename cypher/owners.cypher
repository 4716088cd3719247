// Purpose: every owner that has a turn (each stored turn makes its owner a Session node),
//          sorted. The one statement not scoped to an owner.
// Parameters: none.
// Returns: one row: owners, a sorted list of owner names.
MATCH (s:Session)
WITH DISTINCT s.owner AS owner
ORDER BY owner
RETURN collect(owner) AS owners
