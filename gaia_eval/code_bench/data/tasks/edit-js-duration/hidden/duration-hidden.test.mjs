import assert from 'node:assert/strict';
import { test } from 'node:test';

import { parseDuration } from '../duration.mjs';

test('every unit', () => {
  assert.equal(parseDuration('1h0m5s'), 3605);
  assert.equal(parseDuration('10h59m59s'), 39599);
});

test('an empty string is refused', () => {
  assert.throws(() => parseDuration(''), RangeError);
});

test('an unknown unit is refused', () => {
  assert.throws(() => parseDuration('5d'), RangeError);
  assert.throws(() => parseDuration('1h5x'), RangeError);
});

test('units out of order are refused', () => {
  assert.throws(() => parseDuration('30m1h'), RangeError);
});

test('a repeated unit is refused', () => {
  assert.throws(() => parseDuration('1h1h'), RangeError);
});

test('a number without a unit is refused', () => {
  assert.throws(() => parseDuration('45'), RangeError);
  assert.throws(() => parseDuration('1h30'), RangeError);
});
