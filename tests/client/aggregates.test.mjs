// Aggregates (db-aggregates-enabled is on for the suite): count() and
// sum() at the top, grouped by the other columns, and an embedded count.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { anon, ok } from './helpers.mjs'

test("select('count()') counts the rows", async () => {
  const res = await anon.from('clients').select('count()')
  ok(res)
  assert.deepEqual(res.data, [{ count: 9 }])
})

test("select('status, count()') groups by status", async () => {
  const res = await anon.from('tasks').select('status, count()')
  ok(res)
  const groups = [...res.data].sort((a, b) => a.status.localeCompare(b.status))
  assert.deepEqual(groups, [
    { status: 'cancelled', count: 12 },
    { status: 'done', count: 12 },
    { status: 'in_progress', count: 12 },
    { status: 'review', count: 12 },
    { status: 'todo', count: 12 },
  ])
})

test("select('budget.sum()') sums a numeric column, NULLs left out", async () => {
  const res = await anon.from('projects').select('budget.sum()')
  ok(res)
  assert.deepEqual(res.data, [{ sum: 1715000.49 }])
})

test("select('id, projects(count)') counts the embedded rows", async () => {
  const res = await anon.from('clients').select('id, projects(count)').eq('id', 1)
  ok(res)
  assert.deepEqual(res.data, [{ id: 1, projects: [{ count: 2 }] }])

  const none = await anon.from('clients').select('id, projects(count)').eq('id', 8)
  ok(none)
  assert.deepEqual(none.data, [{ id: 8, projects: [{ count: 0 }] }])
})
