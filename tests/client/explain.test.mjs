// Execution plans: .explain() sends Accept: application/vnd.pgrst.plan,
// which the launcher enables (db_plan_enabled, with the anonymous role in
// db_plan_analyze_roles for analyze), and gets the EXPLAIN of
// the statement; writes are always rolled back.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { anon, ok, recording, unique } from './helpers.mjs'

// topNode is the top plan node of an EXPLAIN (FORMAT JSON) answer.
const topNode = (data) => {
  assert.ok(Array.isArray(data) && data.length === 1, `not one JSON plan: ${JSON.stringify(data)}`)
  return data[0].Plan
}

test("from('clients').select().explain() is the text plan of the read", async () => {
  const { client, requests } = recording()
  const res = await client.from('clients').select().eq('id', 1).explain()
  ok(res)
  assert.equal(requests[0].headers.accept, 'application/vnd.pgrst.plan+text; for="application/json"; options=;')
  assert.equal(typeof res.data, 'string')
  assert.match(res.data, /^Aggregate/)
  assert.match(res.data, /clients/)
})

test("explain({ format: 'json' }) is the JSON plan, with a cost", async () => {
  const res = await anon.from('clients').select().explain({ format: 'json' })
  ok(res)
  const node = topNode(res.data)
  assert.equal(node['Node Type'], 'Aggregate')
  assert.ok(node['Total Cost'] > 0)
  assert.equal(node['Actual Rows'], undefined)
})

test('explain({ analyze, verbose, buffers, settings, wal }) passes every option', async () => {
  const res = await anon
    .from('clients')
    .select('id,name')
    .explain({ analyze: true, verbose: true, buffers: true, settings: true, wal: true, format: 'json' })
  ok(res)
  const node = topNode(res.data)
  assert.equal(node['Actual Rows'], 1)
  assert.ok(Array.isArray(node.Output))
  assert.ok('Shared Hit Blocks' in node)
  assert.ok('WAL Records' in node)
  assert.match(res.data[0].Settings.search_path, /api/)
})

test('.single().explain() and .csv().explain() explain those statements', async () => {
  const single = await anon.from('clients').select().eq('id', 1).single().explain({ format: 'json' })
  ok(single)
  assert.equal(topNode(single.data)['Node Type'], 'Aggregate')
  const csv = await anon.from('clients').select().csv().explain()
  ok(csv)
  assert.match(csv.data, /^Aggregate/)
})

test('an insert explained with analyze is rolled back', async () => {
  const slug = unique('explained')
  const res = await anon
    .from('notes')
    .insert({ slug, title: 'never stored' })
    .explain({ analyze: true, format: 'json' })
  ok(res)
  assert.ok(topNode(res.data)['Actual Rows'] >= 0)
  const after = await anon.from('notes').select('id').eq('slug', slug)
  ok(after)
  assert.deepEqual(after.data, [])
})

test('a call of a volatile function explained with analyze is rolled back', async () => {
  const slug = unique('explained-rpc')
  const res = await anon.rpc('add_note', { slug, title: 'never stored' }).explain({ analyze: true })
  ok(res)
  assert.equal(typeof res.data, 'string')
  const after = await anon.from('notes').select('id').eq('slug', slug)
  ok(after)
  assert.deepEqual(after.data, [])
})
