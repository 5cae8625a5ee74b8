// Loaded with `--import` before any code of the project, in the runner and in every test
// file's process (gaia_eval.agents.node_grader): the assertion and test modules are
// frozen, so code under test that reassigns `assert.equal` or `test` throws (a module is
// strict mode) instead of steering the verdict.
import assert from 'node:assert';
import strict from 'node:assert/strict';
import * as testModule from 'node:test';

function freeze(value, seen = new Set()) {
  if ((typeof value !== 'function' && typeof value !== 'object') || value === null) return;
  if (seen.has(value)) return;
  seen.add(value);
  for (const key of Reflect.ownKeys(value)) {
    const desc = Object.getOwnPropertyDescriptor(value, key);
    if (desc && 'value' in desc) freeze(desc.value, seen);
  }
  Object.freeze(value);
}

for (const value of [assert, strict, ...Object.values(testModule)]) {
  if (value !== testModule.mock) freeze(value);
}
