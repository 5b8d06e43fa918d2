-- pgrest demo schema: a to-do API with per-user rows and a login function.
--
-- Load demo/roles.sql (the roles authenticator, web_anon and webuser), then
-- this file into a fresh database as a superuser (make demo does both), then
-- give the database its token secret and the authenticator its password:
--
--   alter database pgrest_demo set app.jwt_secret = '<at least 32 characters>';
--   alter role authenticator password '<password>';
--
-- and point pgrest at it:
--
--   db_uri        postgres://authenticator:<password>@127.0.0.1:<port>/pgrest_demo
--   db_schemas    api
--   db_anon_role  web_anon
--   jwt_secret    <the same secret as app.jwt_secret>
--
-- Schema api is the exposed one; schema basic_auth holds the users and the
-- token signer and is never exposed.

begin;

-- The exposed schema -----------------------------------------------------

create schema api;
grant usage on schema api to web_anon, webuser;

-- The e-mail of the request's user: pgrest sets request.jwt.claims for each
-- request. nullif: once set in a session, the setting reads '' rather than
-- NULL outside the transaction that set it, and ''::json is an error.
create table api.todos (
  id    serial primary key,
  task  text not null,
  done  boolean not null default false,
  due   timestamptz,
  owner text not null
        default nullif(current_setting('request.jwt.claims', true), '')::json ->> 'email'
);

-- Each user sees and changes only their own to-dos.
alter table api.todos enable row level security;
create policy todos_of_their_owner on api.todos to webuser
  using (owner = nullif(current_setting('request.jwt.claims', true), '')::json ->> 'email')
  with check (owner = nullif(current_setting('request.jwt.claims', true), '')::json ->> 'email');

grant select, insert, update, delete on api.todos to webuser;
grant usage on sequence api.todos_id_seq to webuser;

-- Announcements: anyone may read the public ones, users read them all.
create table api.announcements (
  id           serial primary key,
  title        text not null,
  body         text not null default '',
  public       boolean not null default true,
  published_at timestamptz not null default now()
);

alter table api.announcements enable row level security;
create policy public_announcements on api.announcements for select to web_anon
  using (public);
create policy all_announcements on api.announcements for select to webuser
  using (true);

grant select on api.announcements to web_anon, webuser;

-- Users and login (the unexposed schema basic_auth) ------------------------

-- This section, up to Sample data, needs only the roles and schema api made
-- above: tests/e2e loads it on its own beside fixtures of its own.

create extension if not exists pgcrypto;  -- crypt(), gen_salt(), hmac()

create schema basic_auth;

create table basic_auth.users (
  email text primary key check (email ~* '^[^@[:space:]]+@[^@[:space:]]+\.[^@[:space:]]+$'),
  pass  text not null check (length(pass) < 512),
  role  name not null check (length(role) < 512)
);

-- A user's role must be a database role: there is no foreign key to
-- pg_roles, so a trigger checks it and raises what a foreign key would.
create function basic_auth.check_role_exists() returns trigger
language plpgsql
as $$
begin
  if not exists (select from pg_roles where rolname = new.role) then
    raise foreign_key_violation using
      message = format('unknown database role: %s', new.role),
      hint = 'Create the role first, and grant it to authenticator.';
  end if;
  return new;
end
$$;

create constraint trigger ensure_user_role_exists
  after insert or update on basic_auth.users
  for each row execute function basic_auth.check_role_exists();

-- Passwords are stored as bcrypt hashes, never as given.
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

-- base64url without padding (RFC 7515); encode() wraps lines, hence \n.
create function basic_auth.url_encode(data bytea) returns text
language sql immutable strict
as $$
  select translate(encode(data, 'base64'), E'+/=\n', '-_');
$$;

-- An HS256 JSON Web Token of payload, signed with secret.
create function basic_auth.sign(payload json, secret text) returns text
language sql immutable strict
set search_path = public, pg_temp
as $$
  with parts as (
    select basic_auth.url_encode(convert_to('{"alg":"HS256","typ":"JWT"}', 'utf8'))
           || '.' ||
           basic_auth.url_encode(convert_to(payload::text, 'utf8')) as signing_input
  )
  select signing_input || '.' ||
         basic_auth.url_encode(hmac(convert_to(signing_input, 'utf8'), convert_to(secret, 'utf8'), 'sha256'))
  from parts;
$$;

create type basic_auth.jwt_token as (token text);

-- POST /rpc/login {"email": ..., "pass": ...} -> {"token": ...}
-- SECURITY DEFINER: it runs as its owner, who may read basic_auth.users; the
-- caller (web_anon) may not. The token lives one hour.
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
  if _secret is null then
    raise object_not_in_prerequisite_state using
      message = 'app.jwt_secret is not set',
      hint = 'ALTER DATABASE <name> SET app.jwt_secret = ''<secret>''';
  end if;

  select u.role, u.pass into _role, _hash
    from basic_auth.users as u
   where u.email = login.email;

  -- An unknown e-mail is hashed against a fresh salt, so both failures cost
  -- one bcrypt and take the same time.
  if crypt(login.pass, coalesce(_hash, gen_salt('bf'))) is distinct from _hash then
    raise invalid_password using message = 'invalid user or password';
  end if;

  result.token := basic_auth.sign(
    json_build_object(
      'role', _role,
      'email', login.email,
      'exp', extract(epoch from now())::bigint + 60 * 60
    ),
    _secret);
  return result;
end
$$;

-- Functions are executable by PUBLIC when made; only login is meant for it.
revoke all on function basic_auth.check_role_exists() from public;
revoke all on function basic_auth.encrypt_pass() from public;
revoke all on function basic_auth.url_encode(bytea) from public;
revoke all on function basic_auth.sign(json, text) from public;
revoke all on function api.login(text, text) from public;
grant execute on function api.login(text, text) to web_anon;

-- Sample data --------------------------------------------------------------

insert into basic_auth.users (email, pass, role) values
  ('alice@example.com', 'alice-password', 'webuser'),
  ('bob@example.com',   'bob-password',   'webuser');

insert into api.todos (task, done, due, owner) values
  ('buy oat milk',           false, now() + interval '1 day', 'alice@example.com'),
  ('write the pgrest talk',  false, now() + interval '7 days', 'alice@example.com'),
  ('water the plants',       true,  null,                     'alice@example.com'),
  ('renew the passport',     false, now() + interval '30 days', 'bob@example.com');

insert into api.announcements (title, body, public) values
  ('Welcome', 'pgrest serves this table from PostgreSQL.', true),
  ('Maintenance', 'Saturday 02:00 UTC, about ten minutes.', true),
  ('Staff party', 'Users only: Friday at six.', false);

commit;
