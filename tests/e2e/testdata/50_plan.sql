-- Execution plans (db_plan_enabled): a table anonymous users may read and
-- write, a function returning its rows and a volatile function that
-- writes, so the tests can show that explaining a write leaves nothing
-- behind.
create table api.plan_projects (
  id int primary key,
  name text not null
);
insert into api.plan_projects values (1, 'Windows 7'), (2, 'Windows 10'), (3, 'IOS'), (4, 'OSX');
grant select, insert, update, delete on api.plan_projects to web_anon;

create function api.plan_projects_below(bound int) returns setof api.plan_projects
  language sql stable as $$ select * from api.plan_projects where id < bound $$;
grant execute on function api.plan_projects_below(int) to web_anon;

create function api.plan_add_project(id int, name text) returns api.plan_projects
  language sql volatile as $$ insert into api.plan_projects values (id, name) returning * $$;
grant execute on function api.plan_add_project(int, text) to web_anon;

-- A pre-request function that, asked by X-Echo-Accept, fails with the
-- Accept header SQL sees in request.headers.
create function api.plan_echo_accept() returns void language plpgsql as $$
begin
  if current_setting('request.headers', true)::json->>'x-echo-accept' = 'yes' then
    raise exception '%', current_setting('request.headers', true)::json->>'accept';
  end if;
end $$;
grant execute on function api.plan_echo_accept() to web_anon;
