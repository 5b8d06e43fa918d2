// Checks both client suites share (tests/client and tests/supabasejs,
// whose helpers.mjs re-export them): they use only node:assert, so the
// second suite imports this file from here without the first's packages.
import assert from 'node:assert/strict'

// unique makes a value no other test (nor an earlier run against the same
// database) uses: the write tests name their rows with it.
let uniqueSeq = 0
const uniqueRun = `${process.pid.toString(36)}${Date.now().toString(36)}`
export const unique = (prefix) => `${prefix}-${uniqueRun}-${++uniqueSeq}`

// succeeded checks a successful response: no error and the status.
export const succeeded = (res, status = 200) => {
  assert.equal(res.error, null, `unexpected error: ${JSON.stringify(res.error)}`)
  assert.equal(res.status, status)
}

// failed checks an error response: status, PGRST (or SQLSTATE) code, no data.
export const failed = (res, status, code) => {
  assert.equal(res.status, status, `status of ${JSON.stringify(res)}`)
  assert.equal(res.data, null)
  assert.ok(res.error, 'no error')
  assert.equal(res.error.code, code)
  return res.error
}
