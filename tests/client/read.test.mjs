// Reading tables and views: GET and HEAD on /<relation>, every row.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { anon, byId, ok, failed, CLIENT_9, CLIENT_NAMES } from './helpers.mjs'

test("from('clients').select() returns the nine clients", async () => {
  const res = await anon.from('clients').select()
  ok(res)
  assert.equal(res.data.length, 9)
  const rows = byId(res.data)
  assert.deepEqual(rows.map((r) => r.id), [1, 2, 3, 4, 5, 6, 7, 8, 9])
  assert.deepEqual(rows.map((r) => r.name), CLIENT_NAMES)
  assert.deepEqual(rows[0], {
    id: 1,
    name: 'Acme Corp',
    country: 'US',
    email: 'billing@acme.example',
    active: true,
    created_at: '2023-01-10T09:00:00+00:00',
  })
  // NULLs, a char(2) column and microseconds survive the trip.
  assert.deepEqual(rows[8], CLIENT_9)
})

test("from('clients').select('*', { head: true }) answers without a body", async () => {
  const res = await anon.from('clients').select('*', { head: true })
  ok(res)
  assert.equal(res.data, null)
  assert.equal(res.statusText, 'OK')
})

test("from('large_active_projects') reads a view over a view", async () => {
  const res = await anon.from('large_active_projects').select()
  ok(res)
  assert.deepEqual(byId(res.data), [
    { id: 1, client_id: 1, name: 'Acme website relaunch', budget: 120000 },
    { id: 2, client_id: 1, name: 'Acme mobile app', budget: 250000 },
    { id: 8, client_id: 6, name: 'Stark arc reactor telemetry', budget: 999999.99 },
    { id: 9, client_id: 7, name: 'Société Générale KYC portal', budget: 120000 },
  ])
})

test("from('projects') returns api's twelve projects with their jsonb settings", async () => {
  const res = await anon.from('projects').select()
  ok(res)
  const rows = byId(res.data)
  assert.equal(rows.length, 12)
  assert.deepEqual(rows.map((r) => r.code), [
    'ACME-WEB', 'ACME-APP', 'GLX-CRM', 'GLX-BI', 'INI-TPS', 'UMB-LAB',
    'ORM-PUB', 'STK-ARC', 'SG-KYC', 'INI-Y2K', 'INT-TOOLS', 'INT-R&D',
  ])
  assert.deepEqual(rows.filter((r) => r.client_id === null).map((r) => r.id), [11, 12])
  assert.deepEqual(rows[1].settings.notify.slack, { channel: '#alpha', mentions: ['@here', '@lead'] })
  assert.equal(rows[3].settings, null)
  assert.equal(rows[5].budget, null)
})

test('names that need quoting: the "Audit Log" table and "Display Name"', async () => {
  const log = await anon.from('Audit Log').select()
  ok(log)
  const entries = byId(log.data)
  assert.equal(entries.length, 8)
  assert.deepEqual(entries.map((e) => e['Target Table']), [
    null, 'projects', 'tasks', 'comments', null, 'Audit Log', null, 'user_profiles',
  ])
  assert.deepEqual(entries[6].details, { keys: { kept: 1, rotated: 3 } })

  const users = await anon.from('users').select()
  ok(users)
  const names = byId(users.data).map((u) => u['Display Name'])
  assert.equal(names.length, 10)
  assert.equal(names[5], 'Frank "The Tank" Lee')
  assert.equal(names[8], 'Иван Петров')
  assert.equal(names[9], null)
})

test("from('clientz') is PGRST205 with a hint at clients", async () => {
  const res = await anon.from('clientz').select()
  const error = failed(res, 404, 'PGRST205')
  assert.equal(error.message, "Could not find the table 'api.clientz' in the schema cache")
  assert.equal(error.hint, "Perhaps you meant the table 'api.clients'")
  assert.equal(error.details, null)
})
