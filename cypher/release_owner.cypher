// Purpose: end a worker's lease on an owner's nightly job, recording how the job ended
//          (slept_at, slept_by, sleep_failure: null when done); nothing changes when another
//          worker holds the lease now. Runs after lock_owner in the same transaction.
// Parameters: $owner, $worker, $now (datetime), $failure (string or null).
// Returns: one row when released, none otherwise.
MATCH (lease:Owner {owner: $owner})
WHERE lease.lease_holder = $worker
SET lease.slept_at = $now,
    lease.slept_by = $worker,
    lease.sleep_failure = $failure
REMOVE lease.lease_holder, lease.lease_until
RETURN lease.owner AS owner
