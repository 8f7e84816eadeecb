-- The checkpoint log's cursor (docs/protocol.md §13.5 "The checkpoint log") is the log_seq of the
-- last logged checkpoint, so the rows present before log_seq existed are renumbered: the logged
-- ones first in leaf order, then the unlogged ones in anchoring order; the sequence goes on above.
WITH ordered AS (
  SELECT c.id, row_number() OVER (ORDER BY e.leaf_index NULLS LAST, c.anchored_at, c.id) AS n
  FROM anchored_checkpoints c
  LEFT JOIN checkpoint_log_entries e ON e.checkpoint_id = c.id
)
UPDATE anchored_checkpoints c SET log_seq = o.n FROM ordered o WHERE o.id = c.id;--> statement-breakpoint
SELECT setval(pg_get_serial_sequence('anchored_checkpoints', 'log_seq'), coalesce(max(log_seq), 0) + 1, false) FROM anchored_checkpoints;
