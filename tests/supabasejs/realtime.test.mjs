// supabase-js 2.x's supabase.channel(...) against pgrest's realtime
// socket (realtime_enabled), which the launcher serves at
// /realtime/v1/websocket beside /rest/v1 from the same handler:
// broadcast, presence, postgres_changes under row-level security with
// writes through the REST API and in SQL, token expiry and refresh, and
// the resume of postgres_changes after a dropped connection.
// The realtime fixture (tests/fixtures/realtime_grants.sql) publishes
// api.rt_todos, each user's rows visible to that user only.
import { test, after } from 'node:test'
import assert from 'node:assert/strict'
import { createHmac } from 'node:crypto'
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { createClient } from '@supabase/supabase-js'
import { supabaseUrl, anonKey, unique } from './helpers.mjs'
import { startProxy, within } from './proxy.mjs'

const secret = process.env.PGREST_JWT_SECRET
// dbUrl is a superuser URL of the database; controlUrl where the suite's
// server restarts PostgreSQL (tests/client/server/control.go).
const dbUrl = process.env.PGREST_DB_URL
const controlUrl = process.env.PGREST_CONTROL_URL
const execFileP = promisify(execFile)

// psql runs each statement through psql, as a transaction of its own:
// writes made beside the API, as an operator or another service makes
// them. The values the tests put in statements are their own names.
const psql = (...statements) =>
  execFileP('psql', [dbUrl, '-X', '-q', '-v', 'ON_ERROR_STOP=1', ...statements.flatMap((sql) => ['-c', sql])])
const b64 = (v) => Buffer.from(JSON.stringify(v)).toString('base64url')

// sign makes an HS256 token with the server's secret.
const sign = (claims) => {
  const body = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64(claims)}`
  return `${body}.${createHmac('sha256', secret).update(body).digest('base64url')}`
}

// tokenFor is a token of webuser for sub, valid for seconds.
const tokenFor = (sub, seconds = 3600) =>
  sign({ role: 'webuser', sub, exp: Math.floor(Date.now() / 1000) + seconds })

const clients = []
// client is a Supabase client whose token is what token() returns now
// (supabase-js's accessToken option, as an app with its own auth
// passes it), or the anon key. It waits for realtime to have the token:
// createClient hands it over asynchronously, and a channel subscribed
// before that would join with the anon key (realtime-js fixes a join's
// payload when it subscribes).
const client = async (token, url = supabaseUrl) => {
  const options = { auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false }, db: { schema: 'api' } }
  if (token) options.accessToken = async () => token()
  const c = createClient(url, anonKey, options)
  clients.push(c)
  await c.realtime.setAuth()
  return c
}
after(async () => {
  for (const c of clients) await c.removeAllChannels()
})

// subscribed subscribes a channel and resolves once SUBSCRIBED.
const subscribed = (channel) =>
  within(new Promise((resolve, reject) => {
    channel.subscribe((status, err) => {
      if (status === 'SUBSCRIBED') resolve(channel)
      else if (status === 'CHANNEL_ERROR' || status === 'TIMED_OUT') reject(err ?? new Error(status))
    })
  }), 'subscription')

// queue collects a channel's events for next() to take in order.
const queue = () => {
  const items = []
  const waiters = []
  return {
    push: (x) => (waiters.length ? waiters.shift()(x) : items.push(x)),
    next: (what) => within(new Promise((resolve) => (items.length ? resolve(items.shift()) : waiters.push(resolve))), what),
  }
}

test('broadcast between two clients', async () => {
  const topic = unique('room')
  const got = queue()
  const a = (await client()).channel(topic).on('broadcast', { event: 'ping' }, (m) => got.push(m))
  const b = (await client()).channel(topic, { config: { broadcast: { ack: true } } })
  await subscribed(a)
  await subscribed(b)
  assert.equal(await b.send({ type: 'broadcast', event: 'ping', payload: { n: 1 } }), 'ok')
  const m = await got.next('broadcast')
  assert.equal(m.event, 'ping')
  assert.deepEqual(m.payload, { n: 1 })
})

test('broadcast with self, on protocol 1.0.0', async () => {
  const topic = unique('room')
  const c = createClient(supabaseUrl, anonKey, {
    auth: { persistSession: false }, realtime: { vsn: '1.0.0' },
  })
  clients.push(c)
  const got = queue()
  const ch = c.channel(topic, { config: { broadcast: { self: true } } }).on('broadcast', { event: 'echo' }, (m) => got.push(m))
  await subscribed(ch)
  await ch.send({ type: 'broadcast', event: 'echo', payload: { back: true } })
  assert.deepEqual((await got.next('own broadcast')).payload, { back: true })
})

test('presence: join, state and leave', async () => {
  const topic = unique('room')
  const joins = queue()
  const leaves = queue()
  const a = (await client()).channel(topic, { config: { presence: { key: 'alice' } } })
  const b = (await client()).channel(topic, { config: { presence: { key: 'bob' } } })
  b.on('presence', { event: 'join' }, (e) => joins.push(e)).on('presence', { event: 'leave' }, (e) => leaves.push(e))
  await subscribed(b)
  await subscribed(a)
  assert.equal(await a.track({ online: true }), 'ok')
  let e
  do e = await joins.next('presence join'); while (e.key !== 'alice')
  assert.equal(e.newPresences[0].online, true)
  assert.deepEqual(Object.keys(b.presenceState()).sort(), ['alice'])
  await a.untrack()
  do e = await leaves.next('presence leave'); while (e.key !== 'alice')
})

// secondNode is the same site on a second pgrest node on the same
// database (the launcher starts it): another realtime node.
const secondNode = process.env.PGREST_SECOND_NODE_URL

test('broadcast and presence between clients on two nodes', async () => {
  assert.ok(secondNode, 'PGREST_SECOND_NODE_URL is not set')
  const topic = unique('room')
  const got = queue()
  const joins = queue()
  const a = (await client(null, supabaseUrl)).channel(topic, { config: { presence: { key: 'on-node-1' } } })
  const b = (await client(null, secondNode)).channel(topic, { config: { presence: { key: 'on-node-2' } } })
    .on('broadcast', { event: 'across' }, (m) => got.push(m))
    .on('presence', { event: 'join' }, (e) => joins.push(e))
  await subscribed(b)
  await subscribed(a)
  // Node 1's listener may still be connecting when the test starts: a
  // sends until b hears.
  let heard = false
  const sending = (async () => {
    while (!heard) {
      await a.send({ type: 'broadcast', event: 'across', payload: { from: 'node 1' } })
      await new Promise((resolve) => setTimeout(resolve, 300))
    }
  })()
  const m = await got.next('broadcast from the other node')
  heard = true
  await sending
  assert.deepEqual(m.payload, { from: 'node 1' })
  assert.equal(await a.track({ node: 1 }), 'ok')
  let e
  do e = await joins.next('presence from the other node'); while (e.key !== 'on-node-1')
  assert.equal(e.newPresences[0].node, 1)
})

test('postgres_changes: each user hears of their own rows, written through the REST API', async () => {
  const u1 = unique('u1')
  const u2 = unique('u2')
  const c1 = await client(() => tokenFor(u1))
  const c2 = await client(() => tokenFor(u2))
  const got1 = queue()
  const got2 = queue()
  const spec = { event: '*', schema: 'api', table: 'rt_todos' }
  await subscribed(c1.channel(unique('todos')).on('postgres_changes', spec, (p) => got1.push(p)))
  await subscribed(c2.channel(unique('todos')).on('postgres_changes', spec, (p) => got2.push(p)))

  // INSERT, UPDATE and DELETE through the REST API.
  const ins = await c1.from('rt_todos').insert({ title: 'first' }).select().single()
  assert.equal(ins.error, null)
  let p = await got1.next('insert')
  assert.equal(p.eventType, 'INSERT')
  assert.equal(p.new.title, 'first')
  assert.equal(p.new.owner, u1)
  assert.equal((await c1.from('rt_todos').update({ done: true }).eq('id', ins.data.id)).error, null)
  p = await got1.next('update')
  assert.equal(p.eventType, 'UPDATE')
  assert.equal(p.new.done, true)
  assert.equal((await c1.from('rt_todos').delete().eq('id', ins.data.id)).error, null)
  p = await got1.next('delete')
  assert.equal(p.eventType, 'DELETE')
  assert.equal(p.old.id, ins.data.id)

  // u2's own insert reaches u2, and none of u1's inserts or updates
  // did. (Deletes reach every subscriber with the key only: row-level
  // security cannot be checked on a row that is gone, as in Supabase.)
  assert.equal((await c2.from('rt_todos').insert({ title: 'second' })).error, null)
  let p2
  do p2 = await got2.next('u2 insert'); while (p2.eventType === 'DELETE' && Object.keys(p2.old).length === 1)
  assert.equal(p2.new.title, 'second')
  assert.equal((await c1.from('rt_todos').insert({ title: 'third' })).error, null)
  assert.equal((await got1.next('u1 insert')).new.title, 'third')
})

test('postgres_changes with a filter', async () => {
  const u = unique('u')
  const c = await client(() => tokenFor(u))
  const got = queue()
  await subscribed(c.channel(unique('todos')).on('postgres_changes',
    { event: 'INSERT', schema: 'api', table: 'rt_todos', filter: 'title=eq.wanted' }, (p) => got.push(p)))
  assert.equal((await c.from('rt_todos').insert([{ title: 'unwanted' }, { title: 'wanted' }])).error, null)
  assert.equal((await got.next('filtered insert')).new.title, 'wanted')
})

test('an expiring token closes the channel with Supabase\'s message; a refreshed one keeps it', async () => {
  const u = unique('u')
  let current = tokenFor(u, 3)
  const c = await client(() => current)
  const system = queue()
  const closed = queue()
  const ch = c.channel(unique('room')).on('system', {}, (m) => system.push(m))
  ch.subscribe((status) => { if (status === 'CLOSED') closed.push(status) })
  await within(new Promise((resolve) => { const t = setInterval(() => { if (ch.state === 'joined') { clearInterval(t); resolve() } }, 50) }), 'join')
  const m = await system.next('system message')
  assert.equal(m.status, 'error')
  assert.match(m.message, /^Token has expired \d+ seconds ago$/)
  assert.equal(await closed.next('close'), 'CLOSED')

  // Refreshed before expiry: the channel lives on past the first token's exp.
  let next = tokenFor(u, 3)
  const c2 = await client(() => next)
  const got = queue()
  const kept = c2.channel(unique('room'), { config: { broadcast: { self: true, ack: true } } })
    .on('broadcast', { event: 'after' }, (x) => got.push(x))
  await subscribed(kept)
  next = tokenFor(u, 3600)
  await c2.realtime.setAuth()
  await new Promise((resolve) => setTimeout(resolve, 4500))
  assert.equal(kept.state, 'joined')
  assert.equal(await kept.send({ type: 'broadcast', event: 'after', payload: { ok: 1 } }), 'ok')
  assert.deepEqual((await got.next('broadcast after refresh')).payload, { ok: 1 })
})

// subscribedAgain waits for the next SUBSCRIBED among a channel's
// subscribe statuses (realtime-js reports one at each rejoin).
const subscribedAgain = async (statuses) => {
  for (;;) {
    const s = await statuses.next('SUBSCRIBED after the reconnect')
    if (s === 'SUBSCRIBED') return
  }
}

test('postgres_changes resume after a dropped socket: realtime-js reconnects and gets what it missed, once, in order', async (t) => {
  const u = unique('resume')
  const tok = tokenFor(u)
  // The subscriber reaches the node through a proxy that cuts its
  // connection; the writer goes straight to the node.
  const proxy = await startProxy(supabaseUrl)
  t.after(() => proxy.close())
  const sub = await client(() => tok, proxy.url)
  const writer = await client(() => tok)
  const titles = queue()
  const statuses = queue()
  const ch = sub.channel(unique('todos'))
    .on('postgres_changes', { event: 'INSERT', schema: 'api', table: 'rt_todos' }, (p) => titles.push(p.new.title))
  ch.subscribe((status) => statuses.push(status))
  await subscribedAgain(statuses)
  const insert = async (title) => assert.equal((await writer.from('rt_todos').insert({ title })).error, null)
  const expectTitles = async (...want) => {
    for (const w of want) assert.equal(await titles.next(`the insert of ${w}`), w)
  }
  await insert('before-1')
  await expectTitles('before-1')

  // The connection drops without phx_leave; rows are written while the
  // client cannot reconnect (its attempts wait at the proxy).
  await proxy.cut()
  for (const title of ['missed-1', 'missed-2', 'missed-3']) await insert(title)
  proxy.resume()

  // realtime-js reconnects and rejoins by itself.
  await subscribedAgain(statuses)
  await expectTitles('missed-1', 'missed-2', 'missed-3')
  await insert('live-1')
  await expectTitles('live-1')
  // Nothing came twice: the next change is the next insert.
  await insert('live-2')
  await expectTitles('live-2')
  await sub.removeAllChannels()
})

// changesOf subscribes a client of user to postgres_changes of
// api.rt_todos (event) and returns the queue of their payloads.
const changesOf = async (user, event = '*') => {
  const c = await client(() => tokenFor(user))
  const got = queue()
  await subscribed(c.channel(unique('todos')).on('postgres_changes', { event, schema: 'api', table: 'rt_todos' }, (p) => got.push(p)))
  return got
}

test('postgres_changes: INSERT, UPDATE and DELETE made in psql reach the user who may see the row', async () => {
  const u = unique('sql')
  const got = await changesOf(u)
  const title = unique('psql')
  await psql(`insert into api.rt_todos (owner, title) values ('${u}', '${title}')`)
  let p = await got.next('the insert made in psql')
  assert.equal(p.eventType, 'INSERT')
  assert.equal(p.new.title, title)
  assert.equal(p.new.owner, u)
  const id = p.new.id
  await psql(`update api.rt_todos set done = true where id = ${id}`)
  p = await got.next('the update made in psql')
  assert.equal(p.eventType, 'UPDATE')
  assert.equal(p.new.id, id)
  assert.equal(p.new.done, true)
  await psql(`delete from api.rt_todos where id = ${id}`)
  // A DELETE reaches every subscriber with the key only (row-level
  // security cannot be checked on a row that is gone): skip others'.
  do p = await got.next('the delete made in psql'); while (p.eventType === 'DELETE' && p.old.id !== id)
  assert.equal(p.eventType, 'DELETE')
  assert.deepEqual(p.old, { id })
})

test('postgres_changes under row-level security: over 300 changes in several transactions, each user hears of exactly their own rows', async () => {
  const u1 = unique('many1')
  const u2 = unique('many2')
  const got1 = await changesOf(u1, 'INSERT')
  const got2 = await changesOf(u2, 'INSERT')
  const tag = unique('many')
  // Three transactions of 100 rows and 20 of one row, owners alternating.
  const statements = [0, 100, 200].map((from) =>
    `insert into api.rt_todos (owner, title) select case when g % 2 = 0 then '${u1}' else '${u2}' end, '${tag}-' || g from generate_series(${from + 1}, ${from + 100}) g`)
  for (let g = 301; g <= 320; g++) statements.push(`insert into api.rt_todos (owner, title) values ('${g % 2 === 0 ? u1 : u2}', '${tag}-${g}')`)
  await psql(...statements)
  // A last row for each user: it comes after everything committed before
  // it, so once it is there nothing of the 320 is still on its way.
  await psql(`insert into api.rt_todos (owner, title) values ('${u1}', '${tag}-end'), ('${u2}', '${tag}-end')`)
  for (const [user, got, parity] of [[u1, got1, 0], [u2, got2, 1]]) {
    const titles = []
    for (;;) {
      const p = await got.next(`${user}'s inserts`)
      assert.equal(p.new.owner, user, `${user} heard of another's row: ${JSON.stringify(p.new)}`)
      if (p.new.title === `${tag}-end`) break
      titles.push(p.new.title)
    }
    const want = []
    for (let g = 1; g <= 320; g++) if (g % 2 === parity) want.push(`${tag}-${g}`)
    assert.deepEqual(titles, want, `${user} heard of ${titles.length} rows of ${want.length}, or out of order`)
  }
})

test('postgres_changes across a restart of PostgreSQL: every change committed before and after it arrives once', async () => {
  const u = unique('restart')
  const got = await changesOf(u, 'INSERT')
  // Written again until it commits, while PostgreSQL comes back; a
  // commit whose answer the restart cut off is not repeated.
  const insert = async (title) => {
    for (let attempt = 0; ; attempt++) {
      try {
        await psql(`insert into api.rt_todos (owner, title) select '${u}', '${title}' where not exists (select from api.rt_todos where title = '${title}')`)
        return
      } catch (err) {
        if (attempt === 300) throw err
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
    }
  }
  const want = []
  for (let i = 1; i <= 5; i++) want.push(`${u}-before-${i}`)
  for (const t of want) await insert(t)
  const res = await fetch(`${controlUrl}/restart-postgres`, { method: 'POST' })
  assert.equal(res.status, 204, await res.text())
  for (let i = 1; i <= 5; i++) {
    want.push(`${u}-after-${i}`)
    await insert(want[want.length - 1])
  }
  await insert(`${u}-end`)
  const seen = []
  for (;;) {
    const title = (await got.next('the changes around the restart')).new.title
    if (title === `${u}-end`) break
    seen.push(title)
  }
  assert.deepEqual(seen, want, 'each change once, in commit order')
})
