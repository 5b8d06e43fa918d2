// Spreads through postgrest-js (db-aggregates-enabled is on for the
// suite): a to-many spread turns each column into an array, correlated
// with the others; an aggregate in a to-one spread aggregates the parent's
// rows.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { anon, ok } from './helpers.mjs'

test("select('name, ...projects(codes:code, budgets:budget)') gives correlated arrays", async () => {
  const res = await anon
    .from('clients')
    .select('name, ...projects(codes:code, budgets:budget)')
    .eq('id', 1)
    .order('id', { referencedTable: 'projects' })
  ok(res)
  assert.deepEqual(res.data, [
    { name: 'Acme Corp', codes: ['ACME-WEB', 'ACME-APP'], budgets: [120000, 250000] },
  ])
})

test('a to-many spread without rows gives empty arrays', async () => {
  const res = await anon.from('clients').select('id, ...projects(code)').in('id', [8, 9]).order('id')
  ok(res)
  assert.deepEqual(res.data, [{ id: 8, code: [] }, { id: 9, code: [] }])
})

test('order and limit on the spread shorten every array alike', async () => {
  const res = await anon
    .from('clients')
    .select('id, ...projects(code, name)')
    .eq('id', 1)
    .order('code', { referencedTable: 'projects' })
    .limit(1, { referencedTable: 'projects' })
  ok(res)
  assert.deepEqual(res.data, [{ id: 1, code: ['ACME-APP'], name: ['Acme mobile app'] }])
})

test('a many-to-many spread goes through the junction', async () => {
  const res = await anon
    .from('projects')
    .select('code, ...users(member:username)')
    .eq('id', 1)
    .order('id', { referencedTable: 'users' })
  ok(res)
  assert.deepEqual(res.data, [{ code: 'ACME-WEB', member: ['alice', 'bob', 'carol'] }])
})

test("select('project_id, ...projects(count())') counts each group's rows", async () => {
  const res = await anon.from('tasks').select('project_id, ...projects(count())').lte('project_id', 2).order('project_id')
  ok(res)
  assert.deepEqual(res.data, [{ project_id: 1, count: 6 }, { project_id: 2, count: 6 }])
})

test('an aggregate inside a to-many spread is PGRST127', async () => {
  const res = await anon.from('clients').select('id, ...projects(count())')
  assert.equal(res.status, 400)
  assert.equal(res.error?.code, 'PGRST127')
  assert.equal(res.error?.message, 'Feature not implemented')
  assert.equal(res.error?.details, 'Aggregates are not implemented for one-to-many or many-to-many spreads.')
})
