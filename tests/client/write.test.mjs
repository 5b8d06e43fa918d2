// Writes: insert, upsert, update and delete on api.notes (the suite's own
// table, tests/client/fixture.sql), their representations and counts, and
// the errors constraints raise. Every test makes the rows it changes, named
// with unique() slugs, so the tests run in any order and leave the read
// fixture alone.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { anon, user, recording, unique, ok, counted, failed } from './helpers.mjs'

const notes = () => anon.from('notes')

// fresh inserts notes with the given slugs (and titles "Note <n>") and
// returns them as stored.
const fresh = async (...slugs) => {
  const res = await notes().insert(slugs.map((slug, i) => ({ slug, title: `Note ${i + 1}` }))).select()
  ok(res, 201)
  return res.data
}

// bySlug orders rows by slug, in code-point order (the database's
// collation may order punctuation otherwise).
const bySlug = (rows) => [...rows].sort((a, b) => (a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0))

// stored reads notes by slug, ordered bySlug.
const stored = async (slugs, columns = 'slug, title, priority, pinned') => {
  const res = await notes().select(columns).in('slug', slugs)
  ok(res)
  return bySlug(res.data)
}

test('insert one row: 201, no body; the columns left out take their defaults', async () => {
  const slug = unique('insert')
  const res = await notes().insert({ slug, title: 'First note' })
  ok(res, 201)
  assert.equal(res.data, null)
  assert.equal(res.statusText, 'Created')
  assert.deepEqual(await stored([slug], 'slug, title, body, priority, pinned, client_id, created_at'), [{
    slug,
    title: 'First note',
    body: null,
    priority: 3,
    pinned: false,
    client_id: null,
    created_at: '2024-01-01T00:00:00+00:00',
  }])
})

test('insert(...).select() returns the stored rows, generated id included', async () => {
  const slug = unique('insert-select')
  const res = await notes().insert({ slug, title: 'Returned', priority: 1, client_id: 4 }).select()
  ok(res, 201)
  assert.equal(res.data.length, 1)
  const [row] = res.data
  assert.ok(Number.isInteger(row.id) && row.id > 0, `id ${row.id}`)
  assert.deepEqual(row, {
    id: row.id,
    client_id: 4,
    slug,
    title: 'Returned',
    body: null,
    priority: 1,
    pinned: false,
    created_at: '2024-01-01T00:00:00+00:00',
  })
})

test('insert(...).select(columns).single() returns one object; embeds work', async () => {
  const slug = unique('insert-single')
  const res = await notes().insert({ slug, title: 'Single', client_id: 2 }).select('slug, title, clients(name)').single()
  ok(res, 201)
  assert.deepEqual(res.data, { slug, title: 'Single', clients: { name: 'Globex' } })

  // Two rows cannot be one object: PGRST116, and nothing is stored.
  const pair = [unique('insert-single'), unique('insert-single')]
  const two = await notes().insert(pair.map((s) => ({ slug: s, title: 'Pair' }))).select('slug').single()
  assert.equal(failed(two, 406, 'PGRST116').details, 'The result contains 2 rows')
  assert.deepEqual(await stored(pair), [])
})

test("bulk insert with count: 'exact'", async () => {
  const slugs = [unique('bulk'), unique('bulk'), unique('bulk')]
  const res = await notes().insert(slugs.map((slug) => ({ slug, title: `Bulk ${slug}` })), { count: 'exact' })
  counted(res, 3, 201)
  assert.equal(res.data, null)
  assert.deepEqual((await stored(slugs)).map((n) => n.slug).sort(), [...slugs].sort())
})

test('bulk insert with defaultToNull: false: a key a row lacks takes the default', async () => {
  const { client, requests } = recording()
  const [a, b] = [unique('missing-a'), unique('missing-b')]
  const res = await client.from('notes')
    .insert([{ slug: a, title: 'Urgent', priority: 1, pinned: true }, { slug: b, title: 'Plain' }], { defaultToNull: false })
    .select('slug, priority, pinned')
  ok(res, 201)
  assert.deepEqual(res.data, [
    { slug: a, priority: 1, pinned: true },
    { slug: b, priority: 3, pinned: false },
  ])
  // postgrest-js names the union of the keys in columns= and asks for
  // missing=default.
  assert.match(requests[0].url, /[?&]columns="slug","title","priority","pinned"(&|$)/)
  assert.deepEqual(requests[0].headers.prefer.split(/,\s*/).sort(), ['missing=default', 'return=representation'])
})

test('bulk insert by default: a key a row lacks is NULL, here a not-null violation (23502, 400)', async () => {
  const [a, b] = [unique('null-a'), unique('null-b')]
  const res = await notes().insert([{ slug: a, title: 'Urgent', priority: 1 }, { slug: b, title: 'Plain' }])
  const error = failed(res, 400, '23502')
  assert.match(error.message, /^null value in column "priority"( of relation "notes")? violates not-null constraint$/)
  assert.match(error.details, /^Failing row contains \(/)
  // The statement failed as a whole.
  assert.deepEqual(await stored([a, b]), [])
})

test('upsert merges into an existing row by primary key (200) and inserts new ones (201)', async () => {
  const [row] = await fresh(unique('upsert-pk'))
  const merged = await notes().upsert({ id: row.id, slug: row.slug, title: 'Merged', priority: 5 })
    .select('id, slug, title, priority')
  ok(merged) // only updated rows: 200
  assert.deepEqual(merged.data, [{ id: row.id, slug: row.slug, title: 'Merged', priority: 5 }])

  const added = unique('upsert-pk-new')
  const mixed = await notes().upsert([
    { slug: row.slug, title: 'Merged again' },
    { slug: added, title: 'Inserted' },
  ], { onConflict: 'slug', count: 'exact' }).select('slug, title')
  counted(mixed, 2, 201) // a row inserted: 201
  assert.deepEqual(mixed.data, [
    { slug: row.slug, title: 'Merged again' },
    { slug: added, title: 'Inserted' },
  ])
  assert.deepEqual(await stored([row.slug, added], 'slug, title, priority'), bySlug([
    { slug: row.slug, title: 'Merged again', priority: 5 },
    { slug: added, title: 'Inserted', priority: 3 },
  ]))
})

test('upsert with ignoreDuplicates leaves existing rows alone', async () => {
  const [row] = await fresh(unique('upsert-ignore'))
  const added = unique('upsert-ignore-new')
  const res = await notes().upsert([
    { slug: row.slug, title: 'Ignored' },
    { slug: added, title: 'Inserted' },
  ], { onConflict: 'slug', ignoreDuplicates: true }).select('slug, title')
  ok(res, 201)
  assert.deepEqual(res.data, [{ slug: added, title: 'Inserted' }])
  assert.deepEqual(await stored([row.slug], 'slug, title'), [{ slug: row.slug, title: row.title }])

  const again = await notes().upsert({ slug: row.slug, title: 'Ignored' }, { onConflict: 'slug', ignoreDuplicates: true })
    .select('slug')
  ok(again, 201)
  assert.deepEqual(again.data, [])
})

test('update with filters and .select() returns only the changed rows', async () => {
  const rows = await fresh(unique('update'), unique('update'), unique('update'))
  const slugs = rows.map((r) => r.slug)
  const res = await notes().update({ pinned: true, body: 'Pinned' })
    .in('slug', slugs).neq('slug', slugs[1])
    .select('slug, pinned, body')
  ok(res)
  assert.deepEqual(bySlug(res.data), bySlug([slugs[0], slugs[2]].map((slug) => ({ slug, pinned: true, body: 'Pinned' }))))
  assert.deepEqual((await stored(slugs, 'slug, pinned')).filter((n) => n.pinned).length, 2)
  assert.deepEqual(await stored([slugs[1]], 'slug, pinned, body'), [{ slug: slugs[1], pinned: false, body: null }])

  // Nothing matched: an empty representation.
  const none = await notes().update({ body: 'x' }).eq('slug', unique('update-none')).select()
  ok(none)
  assert.deepEqual(none.data, [])
})

test("update with count: 'exact' and no representation: 204 and the count", async () => {
  const rows = await fresh(unique('update-count'), unique('update-count'))
  const res = await notes().update({ priority: 2 }, { count: 'exact' }).in('slug', rows.map((r) => r.slug))
  counted(res, 2, 204)
  assert.equal(res.data, null)
  assert.deepEqual((await stored(rows.map((r) => r.slug))).map((n) => n.priority), [2, 2])
})

test("delete with filters and count: 'exact'", async () => {
  const rows = await fresh(unique('delete'), unique('delete'), unique('delete'))
  const slugs = rows.map((r) => r.slug)
  const res = await notes().delete({ count: 'exact' }).in('slug', slugs).gt('id', rows[0].id)
  counted(res, 2, 204)
  assert.equal(res.data, null)
  assert.deepEqual((await stored(slugs)).map((n) => n.slug), [slugs[0]])
})

test('delete(...).select() returns the deleted rows', async () => {
  const [row] = await fresh(unique('delete-select'))
  const res = await notes().delete().eq('id', row.id).select('id, slug')
  ok(res)
  assert.deepEqual(res.data, [{ id: row.id, slug: row.slug }])
  assert.deepEqual(await stored([row.slug]), [])
})

test('a duplicate key is 23505 with status 409, on insert and on update', async () => {
  const [row, other] = await fresh(unique('unique'), unique('unique'))
  const insert = await notes().insert({ slug: row.slug, title: 'Duplicate' })
  const error = failed(insert, 409, '23505')
  assert.equal(error.message, 'duplicate key value violates unique constraint "notes_slug_key"')
  assert.equal(error.details, `Key (slug)=(${row.slug}) already exists.`)

  const update = await notes().update({ slug: row.slug }).eq('id', other.id)
  assert.equal(failed(update, 409, '23505').details, `Key (slug)=(${row.slug}) already exists.`)
})

test('a NULL in a not-null column is 23502 with status 400', async () => {
  const slug = unique('not-null')
  const res = await notes().insert({ slug, title: null })
  const error = failed(res, 400, '23502')
  assert.match(error.message, /^null value in column "title"( of relation "notes")? violates not-null constraint$/)
  assert.deepEqual(await stored([slug]), [])
})

test('a missing foreign key is 23503 with status 409', async () => {
  const slug = unique('foreign-key')
  const res = await notes().insert({ slug, title: 'Orphan', client_id: 999 })
  const error = failed(res, 409, '23503')
  assert.equal(error.message, 'insert or update on table "notes" violates foreign key constraint "notes_client_id_fkey"')
  assert.equal(error.details, 'Key (client_id)=(999) is not present in table "clients".')

  const [row] = await fresh(unique('foreign-key'))
  const update = await notes().update({ client_id: 1234 }).eq('id', row.id)
  assert.equal(failed(update, 409, '23503').details, 'Key (client_id)=(1234) is not present in table "clients".')
})

test('a failed check constraint is 23514 with status 400', async () => {
  const slug = unique('check')
  const res = await notes().insert({ slug, title: 'Too urgent', priority: 9 })
  const error = failed(res, 400, '23514')
  assert.equal(error.message, 'new row for relation "notes" violates check constraint "notes_priority_check"')
})

test('an unknown column in the body is PGRST204 (400)', async () => {
  const res = await notes().insert({ slug: unique('unknown'), title: 'x', colour: 'red' })
  const error = failed(res, 400, 'PGRST204')
  assert.equal(error.message, "Could not find the 'colour' column of 'notes' in the schema cache")
})

test('writing without the privilege: 401 anonymous, 403 with a token (42501)', async () => {
  const denied = await anon.from('clients').insert({ id: 100, name: 'Not allowed' })
  assert.equal(failed(denied, 401, '42501').message, 'permission denied for table clients')

  const forbidden = await user.from('clients').update({ active: false }).eq('id', 1)
  assert.equal(failed(forbidden, 403, '42501').message, 'permission denied for table clients')
})
