-- Fixture for pgrest's schema cache tests: one of each relationship shape
-- resource embedding follows. Schema api is exposed, private is not.
create schema api;
create schema private;

-- One-to-many / many-to-one.
create table api.clients (id int primary key, name text);
create table api.projects (id int primary key, name text, client_id int references api.clients (id));

-- One-to-one: the foreign key is the primary key, or a unique column.
create table api.project_details (project_id int primary key references api.projects (id), notes text);
create table api.people (id int primary key, name text);
create table api.passports (id int primary key, person_id int unique references api.people (id), number text);

-- Many-to-many through a pure junction, and through one with extra columns.
create table api.users (id int primary key, name text);
create table api.tasks (id int primary key, name text, project_id int references api.projects (id));
create table api.users_tasks (
  user_id int references api.users (id),
  task_id int references api.tasks (id),
  primary key (user_id, task_id)
);
create table api.task_watchers (
  user_id int references api.users (id),
  task_id int references api.tasks (id),
  since date,
  primary key (task_id, user_id)
);
create table api.films (id int primary key, title text);
create table api.actors (id int primary key, name text);
create table api.roles (
  film_id int references api.films (id),
  actor_id int references api.actors (id),
  character text,
  primary key (film_id, actor_id)
);
-- Not a junction: its foreign key columns are not part of its primary key.
create table api.likes (id serial primary key, user_id int references api.users (id), film_id int references api.films (id));

-- Self-referencing, and a self many-to-many.
create table api.employees (id int primary key, name text, manager_id int references api.employees (id));
create table api.follows (
  follower_id int references api.users (id),
  followed_id int references api.users (id),
  primary key (follower_id, followed_id)
);

-- A composite foreign key.
create table api.invoices (region text, num int, total numeric, primary key (region, num));
create table api.invoice_lines (
  id int primary key, region text, invoice_num int, product text,
  constraint invoice_lines_invoice_fkey foreign key (region, invoice_num) references api.invoices (region, num)
);

-- Two foreign keys between the same pair: an ambiguous embedding
-- (PostgREST's documented example).
create table api.addresses (id int primary key, name text);
create table api.orders (
  id int primary key, name text, billing_address_id int, shipping_address_id int,
  constraint billing foreign key (billing_address_id) references api.addresses (id),
  constraint shipping foreign key (shipping_address_id) references api.addresses (id)
);

-- Views keep their base tables' relationships: renamed columns, a view
-- over a view, a column shown twice, a materialized view.
create view api.projects_view as select id, name, client_id from api.projects;
create view api.clients_view as select id as client_key, name from api.clients;
create view api.projects_nested as select id as pid, client_id as cid from api.projects_view;
create view api.projects_twice as select id, client_id, client_id as other_client_id from api.projects;
create view api.tasks_view as select id, name from api.tasks;
create materialized view api.client_names as select id, name from api.clients;
create view api.expression_view as select id + 0 as id, upper(name) as name from api.clients;

-- Tables of an unexposed schema, reached through views.
create table private.secrets (id int primary key, owner_id int references api.users (id), body text);
create view api.secrets as select id, owner_id from private.secrets;
create table private.kinds (id int primary key, label text);
create table api.things (id int primary key, kind_id int references private.kinds (id));
create view api.kinds as select id, label from private.kinds;
create view private.users_inner as select id, name from api.users;
create view api.users_outer as select id as uid, name from private.users_inner;

-- Computed columns and computed relationships.
create function api.full_name(api.users) returns text
  language sql stable as $$ select $1.name $$;
create function api.task_count(api.users) returns bigint
  language sql stable as $$ select count(*) from api.users_tasks where user_id = $1.id $$;
create function api.all_tasks(api.users) returns setof api.tasks
  language sql stable as $$ select t.* from api.tasks t join api.users_tasks ut on ut.task_id = t.id where ut.user_id = $1.id $$;
create function api.first_task(api.users) returns setof api.tasks rows 1
  language sql stable as $$ select t.* from api.tasks t join api.users_tasks ut on ut.task_id = t.id where ut.user_id = $1.id limit 1 $$;
create function api.main_client(api.projects) returns api.clients
  language sql stable as $$ select c.* from api.clients c where c.id = $1.client_id $$;
-- Not computed: two parameters, a set of scalars, a procedure-like void.
create function api.two_args(api.users, int) returns text
  language sql stable as $$ select $1.name $$;
create function api.tags(api.users) returns setof text
  language sql stable as $$ select unnest(array['a', 'b']) $$;
create function api.touch(api.users) returns void
  language sql as $$ select $$;
-- Outside the exposed schema: not a computed column of api.users.
create function private.secret_name(api.users) returns text
  language sql stable as $$ select $1.name $$;

-- A computed relationship named like a table overrides the foreign key
-- relationships to that table.
create table api.parents (id int primary key);
create table api.kids (id int primary key, parent_id int references api.parents (id));
create function api.parents(api.kids) returns setof api.parents rows 1
  language sql stable as $$ select p.* from api.parents p where p.id = $1.parent_id $$;
