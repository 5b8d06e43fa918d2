// Package changes is pgrest's realtime change feed: Supabase Realtime's
// postgres_changes, read from PostgreSQL's logical replication and
// authorized per subscriber, for the realtime WebSocket to send.
//
// # What the operator sets up
//
// The server needs wal_level = logical, and the authenticator role (the
// one in db_uri) needs the REPLICATION attribute. Changes come from a
// publication the operator names and fills; nothing has to be written on
// the tables (no triggers):
//
//	CREATE PUBLICATION pgrest_realtime FOR TABLE public.todos, public.messages;
//	ALTER ROLE authenticator REPLICATION;
//
// A subscription to a table outside the publication is refused with
// Realtime's reply, "Unable to subscribe to changes with given
// parameters. Please check Realtime is enabled for the given connect
// parameters: [...]".
//
// # The slot
//
// Each pgrest node has its own permanent logical replication slot
// (pgoutput, protocol 1), named by the node's configuration: created
// when the feed starts, dropped when it stops. A node that crashed
// leaves its slot behind and takes it over when it starts again under
// the same name, resuming where it stopped confirming. A slot holds WAL
// on the server until the node confirms it: a node that is gone for
// good without stopping must have its slot dropped by hand
// (pg_drop_replication_slot), or the server keeps WAL without bound.
//
// # No loss, no duplicate
//
// The feed confirms to PostgreSQL (standby status updates) only what it
// has handed to every subscription. When the replication connection is
// lost (PostgreSQL restarted, the network cut), the feed reconnects with
// backoff (up to 5 seconds between attempts by default) and streams
// again from the slot: changes committed while it was away are delivered,
// and those it had already handed over are skipped. The window of
// resumption is as long as the server keeps the slot's WAL
// (max_slot_wal_keep_size, unlimited by default).
//
// # Resuming
//
// Subscriptions are held in memory by the node. So that a client whose
// socket dropped may rejoin without a gap, the feed keeps what it
// dispatched for Config.ReplayWindow (at most Config.ReplayMaxBytes),
// every change of the publication with its Position (commit LSN and
// index in the transaction, the same on every node). A consumer asks an
// ended subscription where its client got to (ResumeAt), and a rejoin
// subscribes with SubscribeFrom: it is delivered the held changes after
// that position, authorized as the rejoining identity, then the live
// ones, none at or before the position. The window is taken in the same
// moment the subscription registers, so each transaction reaches it
// either from the window or live, never both.
//
// # Who sees what
//
// A change reaches a subscription only when its spec matches (event,
// schema, table, filter) and the subscriber's role, with its claims, may
// SELECT the row: for a table under row-level security the feed reads
// the row by its primary key in a transaction switched to that role
// (SET LOCAL ROLE, request.jwt.claims, and request.jwt.claim.* before
// PostgreSQL 14), as Supabase Realtime does. Columns the role may not
// SELECT are left out of "columns", "record" and "old_record". A DELETE
// cannot be checked against a row that is gone: under row-level security
// its "old_record" carries only the primary key, as in Supabase; its
// other columns are sent only with REPLICA IDENTITY FULL and only where
// the table has no row-level security; it reaches only roles that may
// read the primary key. A table without a primary key
// gets "Error 400: Bad Request, no primary key" in "errors"; a change
// larger than 1 MiB gets "Error 413: Payload Too Large" and only its
// values of at most 64 bytes.
//
// Subscribers sharing a role and claims share one visibility query per
// table per round of up to 64 transactions; a round checks up to four
// identities at once, each in one round trip. Each distinct identity
// costs a query per round: a table under row-level security with a
// thousand subscribers of distinct claims costs a thousand queries per
// round, as it does in Supabase Realtime.
//
// A subscription to a table the role may not read at all is refused at
// once (with PostgreSQL's "permission denied for table ..."), where
// Supabase accepts it and then sends "Error 401: Unauthorized" with
// each change.
//
// # Filters
//
// A spec's filter is column=op.value with op one of eq, neq, lt, lte,
// gt, gte and in (in.(a,b,c), at most 100 values); several, separated by
// commas, must all hold. Values are read by the column type's input
// function when subscribing (a value the type refuses is refused with
// PostgreSQL's error), and a row whose filtered column is null passes, as
// in Realtime. Text is compared bytewise, which is the C collation's
// order.
//
// # Slow consumers
//
// Each subscription has its own queue (1024 deliveries by default);
// one that falls that far behind is ended with ErrSlowConsumer, without
// holding up the stream or other subscriptions.
package changes
