// Durations as people type them in the scheduler's settings: "90s", "2m30s", "1h".

/**
 * The number of seconds in `text`, e.g. "1h30m" -> 5400.
 * @param {string} text
 * @returns {number}
 */
export function parseDuration(text) {
  let total = 0;
  for (const [, amount, unit] of text.matchAll(/(\d+)([ms])/g)) {
    total += unit === 'm' ? Number(amount) * 60 : Number(amount);
  }
  return total;
}
