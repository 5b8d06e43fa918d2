-- The operations tests: a function called to count a call, and one that
-- holds a pool connection until the test releases the advisory lock it
-- waits for (pgtest.HoldLock), for the pool timeout and waiting metrics.
create function api.hold(seconds float8) returns int
language sql as $$ select 1 from pg_sleep(seconds) $$;
grant execute on function api.hold(float8) to web_anon, webuser;
create function api.wait_for_lock(key bigint) returns int language sql volatile
as $$ select 1 from pg_advisory_xact_lock_shared(key) $$;
grant execute on function api.wait_for_lock(bigint) to web_anon, webuser;
