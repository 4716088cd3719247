// Purpose: claim (or renew) the lease on an owner's nightly job for a worker: kept on the
//          owner's Owner node (lease_holder, lease_until; slept_at, slept_by, sleep_failure say
//          how the owner's last job ended). Claimed when no worker holds the lease, this one
//          does, or the holder's has lapsed (lease_until <= $now); not when the last job ended
//          at or after $since, nor while another worker's lease holds. Runs after lock_owner in
//          the same transaction (graphmem/store/neo4j_sleep.py), so the node is read under its write
//          lock and two claims at once are taken one after the other.
// Parameters: $owner, $worker, $now, $until, $since (datetimes).
// Returns: one row: claimed, holder, until, slept_at, slept_by, failure.
MATCH (lease:Owner {owner: $owner})
WITH lease,
     lease.slept_at IS NOT NULL AND lease.slept_at >= $since AS slept,
     lease.lease_holder IS NULL OR lease.lease_holder = $worker OR lease.lease_until <= $now
       AS free
WITH lease, free AND NOT slept AS claimed
SET lease.lease_holder = CASE WHEN claimed THEN $worker ELSE lease.lease_holder END,
    lease.lease_until = CASE WHEN claimed THEN $until ELSE lease.lease_until END
RETURN claimed,
       lease.lease_holder AS holder,
       lease.lease_until AS until,
       lease.slept_at AS slept_at,
       lease.slept_by AS slept_by,
       lease.sleep_failure AS failure
