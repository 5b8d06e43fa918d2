-- The roles of PostgREST's usual setup, for the demo (make demo loads this
-- file before schema.sql) and for every test fixture of pgrest, which load
-- this same text (tests/fixtures.Roles):
--
--   authenticator  the login role pgrest connects as; it switches to the
--                  request's role and, NOINHERIT, has no privileges of its
--                  own beyond that switch. Its password is set by whoever
--                  deploys the database (demo.sh and the tests do).
--   web_anon       the role of requests without a token (db_anon_role)
--   webuser        the role of requests with a token of a user
--
-- Roles belong to the whole cluster, not to one database, so each is made
-- only when absent, and a load running at the same time that makes it first
-- is no error: the file can be loaded into any number of databases of one
-- cluster, and again.

do $$
declare
  r record;
begin
  for r in select * from (values
    ('authenticator', 'login noinherit'),
    ('web_anon', 'nologin'),
    ('webuser', 'nologin')
  ) as roles (name, options) loop
    begin
      if not exists (select from pg_roles where rolname = r.name) then
        execute format('create role %I %s', r.name, r.options);
      end if;
    exception when duplicate_object or unique_violation then null;
    end;
  end loop;
  begin
    grant web_anon, webuser to authenticator;
  exception when duplicate_object or unique_violation then null;
  end;
end
$$;
