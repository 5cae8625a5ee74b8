import assert from 'node:assert/strict';
import { test } from 'node:test';

import { parseDuration } from '../duration.mjs';

test('seconds', () => {
  assert.equal(parseDuration('90s'), 90);
});

test('minutes and seconds', () => {
  assert.equal(parseDuration('2m30s'), 150);
});

test('hours', () => {
  assert.equal(parseDuration('1h'), 3600);
});

test('hours and minutes', () => {
  assert.equal(parseDuration('1h30m'), 5400);
});
