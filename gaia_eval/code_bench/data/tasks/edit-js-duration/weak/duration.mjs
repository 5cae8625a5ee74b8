// Durations as people type them in the scheduler's settings: "90s", "2m30s", "1h".

const SECONDS = { h: 3600, m: 60, s: 1 };

/**
 * The number of seconds in `text`, e.g. "1h30m" -> 5400.
 * @param {string} text
 * @returns {number}
 */
export function parseDuration(text) {
  let total = 0;
  for (const [, amount, unit] of text.matchAll(/(\d+)([hms])/g)) {
    total += Number(amount) * SECONDS[unit];
  }
  return total;
}
