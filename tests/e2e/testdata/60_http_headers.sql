-- PostgREST's HttpHeaderSpec: a table to read and a db_pre_request that
-- sets Vary in response.headers (at session level, as the spec's does:
-- the session reset takes it away after the request).
create table api.hdr_projects (id int primary key, name text not null);
insert into api.hdr_projects values (1, 'Windows 7'), (2, 'Windows 10');
grant select on api.hdr_projects to web_anon;

create function api.custom_vary_hdr() returns void
language plpgsql
as $$
begin
  perform set_config('response.headers', '[{"Vary": "X-Test-Accept"}]', false);
end
$$;
