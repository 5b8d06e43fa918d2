-- Media type handlers of functions (tests/rpc media_handlers_test.go): a
-- function returning a domain named like a media type answers that type
-- with its value as the body; "*/*" answers any type. Rows a function
-- returns take their relation's handler aggregates, as a table's do.

create domain api."text/html" as text;
create domain api."text/plain" as text;
create domain api."text/xml" as pg_catalog.xml;
create domain api."image/png" as bytea;
create domain api."*/*" as bytea;

create function api.welcome_page() returns api."text/html" language sql stable as $$
  select '<html><body><h1>Welcome to pgrest</h1></body></html>'
$$;

create function api.welcome() returns api."text/plain" language sql stable as $$
  select 'Welcome to pgrest'
$$;

create function api.welcome_twice() returns setof api."text/plain" language sql stable as $$
  select 'Welcome' union all select 'again'
$$;

create function api.greet_plain(name text) returns api."text/plain" language sql stable as $$
  select 'Hello, ' || name
$$;

-- No row: the body is empty.
create function api.maybe_text(found boolean) returns api."text/plain" language sql stable as $$
  select 'found' where found
$$;

create function api.small_doc() returns api."text/xml" language sql stable as $$
  select '<doc lang="en">pgrest</doc>'::xml
$$;

-- A 1x1 PNG, bytes that are not UTF-8.
create function api.pixel() returns api."image/png" language sql immutable as $$
  select pg_catalog.decode('89504e470d0a1a0a0000000d4948445200000001000000010806000000'
    || '1f15c4890000000d49444154789c6360f8ffff3f0005fe02fea7d6a4a80000000049454e44ae426082', 'hex')
$$;

create function api.anything() returns api."*/*" language sql stable as $$
  select pg_catalog.convert_to('any', 'UTF8')
$$;

-- Sets its own Content-Type, which wins over application/octet-stream.
create function api.groucho() returns api."*/*" language sql stable as $$
  select pg_catalog.set_config('response.headers', '[{"Content-Type": "app/groucho"}]', true);
  select pg_catalog.convert_to('groucho', 'UTF8');
$$;

create table api.media_notes (id int primary key, body text not null);
insert into api.media_notes values (1, 'first'), (2, 'second');
grant select on api.media_notes to web_anon, webuser;

create function api.media_notes_trans(state text, next api.media_notes)
returns api."text/plain" language sql as $$
  select (state || next.id::text || ': ' || next.body || E'\n')::api."text/plain"
$$;
create aggregate api.media_notes_plain(api.media_notes) (
  initcond = '', stype = api."text/plain", sfunc = api.media_notes_trans
);

create function api.all_media_notes() returns setof api.media_notes language sql stable as $$
  select * from api.media_notes
$$;
