-- Fixtures of the authentication tests (auth_*_test.go). Everything is named
-- auth_* except the login pattern's api.login and basic_auth schema, so
-- other fixtures of this package can live beside it.

create extension if not exists pgcrypto;  -- crypt(), gen_salt(), hmac()

-- Roles -------------------------------------------------------------------

-- auth_alice and auth_bob are individual roles told apart by current_user.
-- auth_carol is an individual role whose privileges come from the group
-- role auth_staff: the authenticator is granted the individual role only.
-- auth_stranger exists but is not granted to the authenticator.
create role auth_alice nologin;
create role auth_bob nologin;
create role auth_staff nologin;
create role auth_carol nologin;
create role auth_stranger nologin;
grant auth_staff to auth_carol;
grant auth_alice, auth_bob, auth_carol to authenticator;
grant usage on schema api to auth_alice, auth_bob, auth_staff, auth_stranger;

-- What SQL sees of the request ----------------------------------------------

-- The switched-to role.
create function api.auth_whoami() returns text
language sql stable
as $$ select current_user::text $$;

-- Any setting, read as the contract says: NULL when it is absent.
create function api.auth_setting(name text) returns text
language sql stable
as $$ select current_setting(name, true) $$;

-- The e-mail claim as applications read it on PostgreSQL 14 and later.
create function api.auth_email() returns text
language sql stable
as $$ select current_setting('request.jwt.claims', true)::json ->> 'email' $$;

-- The schemas of search_path that exist, in order.
create function api.auth_search_path() returns text[]
language sql stable
as $$ select current_schemas(false)::text[] $$;

-- Refuses everyone, as a function may.
create function api.auth_deny() returns void
language plpgsql
as $$ begin raise insufficient_privilege using message = 'auth_deny: no'; end $$;

-- Holds a pool connection for a while.
create function api.auth_sleep(seconds double precision) returns text
language sql volatile
as $$ select pg_sleep(seconds)::text $$;

-- Row-level security by role: each role sees the rows it owns.
create table api.auth_notes (
  id    int primary key,
  owner name not null,
  body  text not null
);
alter table api.auth_notes enable row level security;
create policy auth_notes_of_their_owner on api.auth_notes
  using (owner = current_user);
grant select on api.auth_notes to auth_alice, auth_bob, web_anon;
insert into api.auth_notes values
  (1, 'auth_alice', 'alice one'),
  (2, 'auth_alice', 'alice two'),
  (3, 'auth_bob',   'bob one');

-- Privileges through a group role only.
create table api.auth_staff_docs (
  id    int primary key,
  title text not null
);
grant select on api.auth_staff_docs to auth_staff;
insert into api.auth_staff_docs values (1, 'staff handbook'), (2, 'rota');

-- Row-level security by claim: web users share the role webuser and are told
-- apart by the e-mail claim. nullif: a connection that once set the setting
-- reads '' rather than NULL outside that transaction, and ''::json fails.
create table api.auth_todos (
  id          int primary key,
  owner_email text not null,
  task        text not null
);
alter table api.auth_todos enable row level security;
create policy auth_todos_of_their_owner on api.auth_todos to webuser
  using (owner_email = nullif(current_setting('request.jwt.claims', true), '')::json ->> 'email');
grant select on api.auth_todos to webuser;
insert into api.auth_todos values
  (1, 'alice@example.com', 'buy oat milk'),
  (2, 'alice@example.com', 'water the plants'),
  (3, 'bob@example.com',   'renew the passport');

-- The internal schema: readable by web_anon in SQL, yet not exposed.
create table private.auth_secrets (id int primary key, secret text not null);
insert into private.auth_secrets values (1, 'the cake is a lie');
grant usage on schema private to web_anon, webuser;
grant select on private.auth_secrets to web_anon;

-- db_pre_request hook, in the unexposed schema. It runs after the role switch
-- and before the main statement: it blocks one user with
-- insufficient_privilege, revokes another with a custom 401, and leaves a
-- trace (the role it ran as) for the main statement to read.
create function private.auth_check_request() returns void
language plpgsql
as $$
declare
  _email text := nullif(current_setting('request.jwt.claims', true), '')::json ->> 'email';
begin
  perform set_config('auth.pre_request_role', current_user, true);
  if _email = 'blocked@example.com' then
    raise insufficient_privilege using message = 'user blocked@example.com is blocked';
  end if;
  if _email = 'revoked@example.com' then
    raise sqlstate 'PT401' using message = 'token revoked', hint = 'log in again';
  end if;
end
$$;

-- The login pattern (contract, Authentication item 12) ------------------------

-- basic_auth is not exposed and no web role may use it: only the owner of
-- api.login (SECURITY DEFINER) reads it.
create schema basic_auth;

create table basic_auth.users (
  email text primary key check (email ~* '^[^@[:space:]]+@[^@[:space:]]+\.[^@[:space:]]+$'),
  pass  text not null check (length(pass) < 512),
  role  name not null check (length(role) < 512)
);

-- A role is not a row a foreign key can point at, so a trigger raises what a
-- foreign key would (23503).
create function basic_auth.check_role_exists() returns trigger
language plpgsql
as $$
begin
  if not exists (select from pg_roles as r where r.rolname = new.role) then
    raise foreign_key_violation using message = format('unknown database role: %s', new.role);
  end if;
  return new;
end
$$;

create constraint trigger ensure_user_role_exists
  after insert or update on basic_auth.users
  for each row execute function basic_auth.check_role_exists();

-- Passwords are stored as bcrypt hashes.
create function basic_auth.encrypt_pass() returns trigger
language plpgsql
set search_path = public, pg_temp
as $$
begin
  if tg_op = 'INSERT' or new.pass is distinct from old.pass then
    new.pass := crypt(new.pass, gen_salt('bf'));
  end if;
  return new;
end
$$;

create trigger encrypt_pass
  before insert or update on basic_auth.users
  for each row execute function basic_auth.encrypt_pass();

-- base64url without padding; encode() wraps lines, hence \n.
create function basic_auth.url_encode(data bytea) returns text
language sql immutable strict
as $$ select translate(encode(data, 'base64'), E'+/=\n', '-_') $$;

-- An HS256 JSON Web Token of payload, signed in pure SQL.
create function basic_auth.sign(payload json, secret text) returns text
language sql immutable strict
set search_path = public, pg_temp
as $$
  with parts as (
    select basic_auth.url_encode(convert_to('{"alg":"HS256","typ":"JWT"}', 'utf8'))
           || '.' || basic_auth.url_encode(convert_to(payload::text, 'utf8')) as signing_input
  )
  select signing_input || '.'
         || basic_auth.url_encode(hmac(convert_to(signing_input, 'utf8'), convert_to(secret, 'utf8'), 'sha256'))
  from parts
$$;

-- The secret is not written in any function: it is a database setting, the
-- same value as the tests' jwtSecret.
do $$
begin
  execute format('alter database %I set app.jwt_secret = %L',
                 current_database(), 'pgrest-e2e-secret-that-is-long-enough-0123456789');
end
$$;

create type basic_auth.jwt_token as (token text);

-- POST /rpc/login {"email": ..., "pass": ...} -> {"token": ...}, valid one
-- hour. A wrong e-mail or password raises invalid_password (28P01), which the
-- contract's table answers with 403.
create function api.login(email text, pass text) returns basic_auth.jwt_token
language plpgsql security definer
set search_path = public, pg_temp
as $$
declare
  _role   name;
  _hash   text;
  _secret text := nullif(current_setting('app.jwt_secret', true), '');
  result  basic_auth.jwt_token;
begin
  select u.role, u.pass into _role, _hash
    from basic_auth.users as u
   where u.email = login.email;
  -- An unknown e-mail costs one bcrypt too, so it cannot be told by timing.
  if crypt(login.pass, coalesce(_hash, gen_salt('bf'))) is distinct from _hash then
    raise invalid_password using message = 'invalid user or password';
  end if;
  result.token := basic_auth.sign(
    json_build_object('role', _role, 'email', login.email,
                      'exp', extract(epoch from now())::bigint + 60 * 60),
    _secret);
  return result;
end
$$;

-- A token made in the database for tests (contract, Authentication item 11:
-- five minutes).
create function api.auth_test_token() returns text
language sql stable security definer
set search_path = public, pg_temp
as $$
  select basic_auth.sign(
    json_build_object('role', 'webuser', 'email', 'test@example.com',
                      'exp', extract(epoch from now())::bigint + 5 * 60),
    current_setting('app.jwt_secret'))
$$;

-- Web sessions (Authentication item 13): login that hands the token over as a
-- Secure, HttpOnly cookie instead of in the body.
create function api.auth_login_cookie(email text, pass text) returns void
language plpgsql
as $$
begin
  perform set_config('response.headers',
    json_build_array(json_build_object('Set-Cookie',
      format('session=%s; Path=/; Secure; HttpOnly; SameSite=Strict', (api.login(email, pass)).token)))::text,
    true);
end
$$;

-- Functions are executable by PUBLIC when made: login is meant for the
-- anonymous role only.
revoke all on function basic_auth.check_role_exists() from public;
revoke all on function basic_auth.encrypt_pass() from public;
revoke all on function basic_auth.url_encode(bytea) from public;
revoke all on function basic_auth.sign(json, text) from public;
revoke all on function api.login(text, text) from public;
grant execute on function api.login(text, text) to web_anon;
revoke all on function api.auth_login_cookie(text, text) from public;
grant execute on function api.auth_login_cookie(text, text) to web_anon;

insert into basic_auth.users (email, pass, role) values
  ('alice@example.com',   'alice-password',   'webuser'),
  ('bob@example.com',     'bob-password',     'webuser'),
  ('blocked@example.com', 'blocked-password', 'webuser');
