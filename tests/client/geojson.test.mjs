// Media types through postgrest-js: .geojson() (PostGIS's FeatureCollection)
// and .csv() taken over by a relation's own text/csv handler.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { anon, ok } from './helpers.mjs'

test('.geojson() is a FeatureCollection of the rows', async () => {
  const res = await anon.from('places').select('id, name, geom').order('id').geojson()
  ok(res)
  assert.equal(res.data.type, 'FeatureCollection')
  assert.deepEqual(res.data.features.map((f) => f.type), ['Feature', 'Feature'])
  assert.deepEqual(res.data.features[0].geometry, { type: 'Point', coordinates: [-8.75, 41.5] })
  assert.deepEqual(res.data.features.map((f) => f.properties), [
    { id: 1, name: 'Lighthouse' },
    { id: 2, name: 'Harbour' },
  ])
})

test('.geojson() with a filter and no rows is an empty collection', async () => {
  const res = await anon.from('places').select('*').eq('id', 99).geojson()
  ok(res)
  assert.deepEqual(res.data, { type: 'FeatureCollection', features: [] })
})

test(".csv() takes the relation's own text/csv handler", async () => {
  const res = await anon.from('places').select('*').order('id').csv()
  ok(res)
  assert.equal(res.data, 'id;name\n1;Lighthouse\n2;Harbour\n')
})

test('.csv() with another select falls back to the builtin CSV', async () => {
  const res = await anon.from('places').select('id, name').order('id').csv()
  ok(res)
  assert.equal(res.data, 'id,name\n1,Lighthouse\n2,Harbour')
})
