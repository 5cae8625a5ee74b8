// Durations as people type them in the scheduler's settings: "90s", "2m30s", "1h".

const DURATION = /^(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/;

/**
 * The number of seconds in `text`, e.g. "1h30m" -> 5400: hours, minutes and seconds in
 * that order, each at most once; anything else is a RangeError.
 * @param {string} text
 * @returns {number}
 */
export function parseDuration(text) {
  const match = DURATION.exec(text);
  if (text === '' || match === null) {
    throw new RangeError(`not a duration: ${JSON.stringify(text)} (expected e.g. 1h30m)`);
  }
  const [hours, minutes, seconds] = match.slice(1).map((part) => Number(part ?? 0));
  return hours * 3600 + minutes * 60 + seconds;
}
