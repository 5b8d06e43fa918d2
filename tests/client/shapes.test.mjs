// Order, pages, counts and response shapes: order(), limit(), range(),
// single(), maybeSingle(), csv() and the count option, on the read fixture.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { anon, ids, range, ok, counted, failed } from './helpers.mjs'

test('.order() on an enum, descending, then by id', async () => {
  // The enum sorts todo < in_progress < review < done < cancelled.
  const res = await anon.from('tasks').select('id').eq('project_id', 1)
    .order('status', { ascending: false }).order('id')
  ok(res)
  assert.deepEqual(ids(res.data), [4, 3, 2, 1, 6, 5])
})

test(".order('budget', { nullsFirst: true })", async () => {
  const res = await anon.from('projects').select('id').order('budget', { nullsFirst: true }).order('id')
  ok(res)
  assert.deepEqual(ids(res.data), [6, 11, 12, 10, 5, 7, 3, 4, 1, 9, 2, 8])
})

test('.order().limit(2)', async () => {
  const res = await anon.from('clients').select('name').order('id').limit(2)
  ok(res)
  assert.deepEqual(res.data, [{ name: 'Acme Corp' }, { name: 'Globex' }])
})

test(".range(10, 19) with count: 'exact' is a 206 page of 60", async () => {
  const res = await anon.from('tasks').select('id', { count: 'exact' }).order('id').range(10, 19)
  counted(res, 60, 206)
  assert.equal(res.statusText, 'Partial Content')
  assert.deepEqual(ids(res.data), range(11, 20))
})

test('.single() returns an object; more rows are PGRST116 (406)', async () => {
  const res = await anon.from('clients').select('name').eq('id', 7).single()
  ok(res)
  assert.deepEqual(res.data, { name: 'Société Générale' })

  const many = await anon.from('clients').select('name').eq('country', 'US').single()
  const error = failed(many, 406, 'PGRST116')
  assert.equal(error.message, 'Cannot coerce the result to a single JSON object')
  assert.equal(error.details, 'The result contains 5 rows')
})

test('.maybeSingle() on no row is null data and no error', async () => {
  const res = await anon.from('clients').select('name').eq('id', 99).maybeSingle()
  ok(res)
  assert.equal(res.data, null)

  const one = await anon.from('clients').select('name').eq('id', 2).maybeSingle()
  ok(one)
  assert.deepEqual(one.data, { name: 'Globex' })
})

test('.csv() quotes commas and doubles quotes', async () => {
  const res = await anon.from('clients').select('id, name').in('id', [4, 9]).order('id').csv()
  ok(res)
  assert.equal(res.data, 'id,name\n4,"Umbrella, Inc."\n9,"The ""Best"" Co"')
})

test("count: 'exact', head: true counts without a body", async () => {
  const res = await anon.from('tasks').select('*', { count: 'exact', head: true })
  counted(res, 60)
  assert.equal(res.data, null)
})

test("count: 'planned' is the planner's estimate", async () => {
  const res = await anon.from('comments').select('*', { count: 'planned', head: true })
  assert.equal(res.error, null)
  assert.equal(res.data, null)
  assert.ok(Number.isInteger(res.count) && res.count > 0, `count ${res.count}`)
  // As in PostgREST, an estimate above the 100 rows read makes a 206.
  assert.equal(res.status, res.count > 100 ? 206 : 200)
})

test("count: 'estimated' without db-max-rows is the exact count or the planner's larger estimate", async () => {
  const res = await anon.from('comments').select('id', { count: 'estimated' })
  assert.equal(res.error, null)
  assert.equal(res.data.length, 100)
  assert.ok(Number.isInteger(res.count) && res.count >= 100, `count ${res.count}`)
  // As in PostgREST, an estimate above the 100 rows read makes a 206.
  assert.equal(res.status, res.count > 100 ? 206 : 200)
})
