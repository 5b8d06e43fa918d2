// Resource embedding: many-to-one, one-to-many, many-to-many, !inner,
// nested embeds, filters and order on embedded resources, hints and
// computed relationships, on the read fixture.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { anon, byId, ids, range, ok, counted, failed } from './helpers.mjs'

// sorted sorts strings, for embedded arrays read without an order.
const sorted = (values) => [...values].sort()

test("projects → clients (many-to-one) is an object, or null", async () => {
  const res = await anon.from('projects').select('name, clients(name)').eq('id', 9)
  ok(res)
  assert.deepEqual(res.data, [{ name: 'Société Générale KYC portal', clients: { name: 'Société Générale' } }])

  const internal = await anon.from('projects').select('name, clients(name)').eq('id', 11)
  ok(internal)
  assert.deepEqual(internal.data, [{ name: 'Internal tooling', clients: null }])
})

test("clients → projects (one-to-many) is an array, or []", async () => {
  const res = await anon.from('clients').select('id, projects(code)').eq('id', 2)
  ok(res)
  assert.equal(res.data.length, 1)
  assert.equal(res.data[0].id, 2)
  assert.deepEqual(sorted(res.data[0].projects.map((p) => p.code)), ['GLX-BI', 'GLX-CRM'])

  const none = await anon.from('clients').select('id, projects(code)').eq('id', 8)
  ok(none)
  assert.deepEqual(none.data, [{ id: 8, projects: [] }])
})

test("films → actors (many-to-many through roles)", async () => {
  const res = await anon.from('films').select('title, actors(name)').eq('id', 3)
  ok(res)
  assert.equal(res.data.length, 1)
  assert.equal(res.data[0].title, 'Léon: The Professional')
  assert.deepEqual(sorted(res.data[0].actors.map((a) => a.name)), ['Gary Oldman', 'Jean Reno', 'Natalie Portman'])
})

test("projects!inner drops clients without projects", async () => {
  const res = await anon.from('clients').select('id, projects!inner(id)')
  ok(res)
  const rows = byId(res.data)
  assert.deepEqual(ids(rows), range(1, 7))
  assert.deepEqual(ids(rows[0].projects).sort((a, b) => a - b), [1, 2])
  assert.deepEqual(ids(rows[2].projects).sort((a, b) => a - b), [5, 10])
})

test('three levels: clients → projects → tasks → comments', async () => {
  const res = await anon.from('clients').select('name, projects(code, tasks(title, comments(body)))').eq('id', 1)
  ok(res)
  assert.equal(res.data.length, 1)
  assert.equal(res.data[0].name, 'Acme Corp')
  // Task t (1-12) has comments t and t+50; comment i's body is the
  // fixture's (i-1)%8-th.
  const bodies = ['Looks good to me.', 'LGTM 👍', 'Can we revisit this?', 'Blocked by #12, see notes.',
    'Done (finally).', 'Ça marche — merci !', 'Need "exact" numbers here.', '重要: 请检查']
  const steps = ['Design', 'Implement', 'Test', 'Review', 'Deploy', 'Document']
  const expectTasks = (first, feature) => steps.map((step, k) => {
    const t = first + k
    return { title: `${step} ${feature}`, comments: sorted([bodies[(t - 1) % 8], bodies[(t + 49) % 8]]) }
  }).sort((a, b) => a.title.localeCompare(b.title))
  const got = res.data[0].projects
    .map((p) => ({
      code: p.code,
      tasks: p.tasks
        .map((t) => ({ title: t.title, comments: sorted(t.comments.map((c) => c.body)) }))
        .sort((a, b) => a.title.localeCompare(b.title)),
    }))
    .sort((a, b) => a.code.localeCompare(b.code))
  assert.deepEqual(got, [
    { code: 'ACME-APP', tasks: expectTasks(7, 'search') },
    { code: 'ACME-WEB', tasks: expectTasks(1, 'login') },
  ])
})

test("a filter on the embed (projects.archived) empties it but keeps the parent", async () => {
  const res = await anon.from('clients').select('id, projects(code)').eq('id', 3).eq('projects.archived', false)
  ok(res)
  assert.deepEqual(res.data, [{ id: 3, projects: [] }])
})

test("order with referencedTable sorts the embedded rows", async () => {
  const asc = await anon.from('clients').select('id, projects(code)').eq('id', 1)
    .order('code', { referencedTable: 'projects' })
  ok(asc)
  assert.deepEqual(asc.data, [{ id: 1, projects: [{ code: 'ACME-APP' }, { code: 'ACME-WEB' }] }])

  const desc = await anon.from('clients').select('id, projects(code)').eq('id', 1)
    .order('code', { referencedTable: 'projects', ascending: false })
  ok(desc)
  assert.deepEqual(desc.data, [{ id: 1, projects: [{ code: 'ACME-WEB' }, { code: 'ACME-APP' }] }])
})

test("users!inner with a filter on the embed filters the parents; counted too", async () => {
  const res = await anon.from('tasks').select('id, users!inner(username)').eq('users.username', 'alice')
  ok(res)
  const rows = byId(res.data)
  assert.deepEqual(ids(rows), [1, 9, 17, 33, 41, 49, 55])
  for (const row of rows) {
    assert.deepEqual(row.users, { username: 'alice' })
  }

  const count = await anon.from('tasks').select('id, users!inner(id)', { count: 'exact', head: true })
  counted(count, 48)
  assert.equal(count.data, null)
})

test('two foreign keys to one table: hints by constraint name, else PGRST201', async () => {
  const select = 'number, billing:addresses!billing(city), shipping:addresses!shipping(city)'
  const res = await anon.from('orders').select(select).eq('id', 2)
  ok(res)
  assert.deepEqual(res.data, [{ number: 'ORD-2024-0002', billing: { city: 'Oxford' }, shipping: { city: 'London' } }])

  const digital = await anon.from('orders').select(select).eq('id', 4)
  ok(digital)
  assert.deepEqual(digital.data, [{ number: 'ORD-2024-0004', billing: { city: 'Springfield' }, shipping: null }])

  const ambiguous = await anon.from('orders').select('number, addresses(city)').eq('id', 2)
  const error = failed(ambiguous, 300, 'PGRST201')
  assert.equal(error.message, "Could not embed because more than one relationship was found for 'orders' and 'addresses'")
  assert.equal(error.hint,
    "Try changing 'addresses' to one of the following: 'addresses!billing', 'addresses!shipping'. " +
    "Find the desired relationship in the 'details' key.")
  assert.deepEqual(error.details.map((d) => d.relationship).sort(), [
    'billing using orders(billing_address_id) and addresses(id)',
    'shipping using orders(shipping_address_id) and addresses(id)',
  ])
})

test('computed relationships and a computed column', async () => {
  const top = await anon.from('projects').select('id, top_tasks(title)').eq('id', 1)
  ok(top)
  assert.deepEqual(top.data, [{
    id: 1,
    top_tasks: [{ title: 'Review login' }, { title: 'Design login' }, { title: 'Deploy login' }],
  }])

  const reports = await anon.from('employees').select('full_name, direct_reports(first_name)').eq('id', 2)
  ok(reports)
  assert.deepEqual(reports.data, [{
    full_name: 'Alan Turing',
    direct_reports: [{ first_name: 'Margaret' }, { first_name: 'Dennis' }, { first_name: 'Barbara' }],
  }])
})
