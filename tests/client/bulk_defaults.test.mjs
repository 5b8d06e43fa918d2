// Bulk inserts with defaults and .single() on writes, on api.bulk_items
// (tests/client/fixture.sql): postgrest-js sends ?columns= with every key
// of the rows, and with defaultToNull: false also Prefer: missing=default,
// so a key a row leaves out takes the column's default (an identity's next
// value, a domain's default) instead of NULL. .single() asks for
// application/vnd.pgrst.object+json, which holds a write to exactly one
// row: any other count is 406 PGRST116 and the write is rolled back.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { anon, recording, unique, ok, failed } from './helpers.mjs'

const items = () => anon.from('bulk_items')

// stored reads bulk_items by slug, in the order of slugs.
const stored = async (slugs) => {
  const res = await items().select('slug, colour, qty').in('slug', slugs)
  ok(res)
  return slugs.map((s) => res.data.find((r) => r.slug === s) ?? null)
}

test('bulk insert with defaultToNull: false fills the keys a row leaves out with defaults', async () => {
  const [a, b] = [unique('bulk'), unique('bulk')]
  const { client, requests } = recording()
  const res = await client
    .from('bulk_items')
    .insert([{ slug: a }, { slug: b, colour: 'red', qty: 5 }], { defaultToNull: false })
    .select('id, slug, colour, qty')
  ok(res, 201)
  assert.match(requests[0].headers.prefer, /missing=default/)
  assert.match(requests[0].url, /columns="slug","colour","qty"/)
  const [first, second] = res.data
  assert.ok(Number.isInteger(first.id) && first.id > 0, `identity id ${first.id}`)
  assert.deepEqual([{ ...first, id: 0 }, { ...second, id: 0 }], [
    { id: 0, slug: a, colour: 'grey', qty: 1 },
    { id: 0, slug: b, colour: 'red', qty: 5 },
  ])
  assert.deepEqual(await stored([a, b]), [
    { slug: a, colour: 'grey', qty: 1 },
    { slug: b, colour: 'red', qty: 5 },
  ])
})

test('bulk insert with the default defaultToNull sends NULL, which the NOT NULL column refuses', async () => {
  const [a, b] = [unique('bulk-null'), unique('bulk-null')]
  const res = await items().insert([{ slug: a }, { slug: b, qty: 5 }])
  const error = failed(res, 400, '23502')
  assert.match(error.message, /null value in column "qty"/)
  assert.deepEqual(await stored([a, b]), [null, null])
})

test('bulk upsert with defaultToNull: false keeps defaults for new rows', async () => {
  const [a, b] = [unique('bulk-upsert'), unique('bulk-upsert')]
  ok(await items().insert({ slug: a, colour: 'blue', qty: 2 }), 201)
  const res = await items()
    .upsert([{ slug: a, qty: 3 }, { slug: b }], { onConflict: 'slug', defaultToNull: false })
    .select('slug, colour, qty')
  ok(res, 201)
  // The merged row takes the defaults of the keys it left out too, as the
  // columns=-named keys are all set.
  assert.deepEqual(res.data, [
    { slug: a, colour: 'blue', qty: 3 },
    { slug: b, colour: 'grey', qty: 1 },
  ])
})

test('insert(...).select().single() returns the one row as an object', async () => {
  const slug = unique('single')
  const res = await items().insert({ slug }).select('slug, colour, qty').single()
  ok(res, 201)
  assert.deepEqual(res.data, { slug, colour: 'grey', qty: 1 })
})

test('a bulk insert with .single() is 406 PGRST116 and inserts nothing', async () => {
  const [a, b] = [unique('single-bulk'), unique('single-bulk')]
  const res = await items().insert([{ slug: a }, { slug: b }]).select().single()
  const error = failed(res, 406, 'PGRST116')
  assert.equal(error.message, 'Cannot coerce the result to a single JSON object')
  assert.equal(error.details, 'The result contains 2 rows')
  assert.deepEqual(await stored([a, b]), [null, null])
})

test('update(...).select().single() of one row returns the object', async () => {
  const slug = unique('single-update')
  ok(await items().insert({ slug }), 201)
  const res = await items().update({ qty: 9 }).eq('slug', slug).select('slug, qty').single()
  ok(res)
  assert.deepEqual(res.data, { slug, qty: 9 })
})

test('an update of no row with .single() is 406 PGRST116', async () => {
  const res = await items().update({ qty: 9 }).eq('slug', unique('nothing')).select().single()
  const error = failed(res, 406, 'PGRST116')
  assert.equal(error.details, 'The result contains 0 rows')
})

test('an update of two rows with .single() is 406 PGRST116 and changes nothing', async () => {
  const [a, b] = [unique('single-update2'), unique('single-update2')]
  ok(await items().insert([{ slug: a, qty: 1 }, { slug: b, qty: 1 }]), 201)
  const res = await items().update({ qty: 7 }).in('slug', [a, b]).select().single()
  const error = failed(res, 406, 'PGRST116')
  assert.equal(error.details, 'The result contains 2 rows')
  assert.deepEqual(await stored([a, b]), [
    { slug: a, colour: 'grey', qty: 1 },
    { slug: b, colour: 'grey', qty: 1 },
  ])
})

test('a delete of two rows with .single() is 406 PGRST116 and deletes nothing', async () => {
  const [a, b] = [unique('single-delete'), unique('single-delete')]
  ok(await items().insert([{ slug: a }, { slug: b }]), 201)
  const res = await items().delete().in('slug', [a, b]).select().single()
  const error = failed(res, 406, 'PGRST116')
  assert.equal(error.details, 'The result contains 2 rows')
  assert.equal((await stored([a, b])).filter(Boolean).length, 2)
})

test('delete(...).select().single() of one row returns it', async () => {
  const slug = unique('single-delete1')
  ok(await items().insert({ slug, qty: 4 }), 201)
  const res = await items().delete().eq('slug', slug).select('slug, qty').single()
  ok(res)
  assert.deepEqual(res.data, { slug, qty: 4 })
  assert.deepEqual(await stored([slug]), [null])
})
