// The grader's reporter for `node --test` (gaia_eval.agents.node_grader). It runs in the
// test runner's parent process, which loads no code of the project (each test file runs
// in a child process of its own), and writes one JSON line per finished test to the
// destination the grader names, outside the project. No outcome is read from what the
// tests print.
const stacks = new Map(); // file -> the names of the tests open at each nesting level

function fullName(data) {
  const stack = stacks.get(data.file) ?? [];
  return [...stack.slice(0, data.nesting), data.name].join(' > ');
}

export default async function* reporter(source) {
  for await (const event of source) {
    const data = event.data ?? {};
    if (event.type === 'test:dequeue' && typeof data.file === 'string') {
      const stack = stacks.get(data.file) ?? [];
      stack.length = data.nesting;
      stack.push(data.name);
      stacks.set(data.file, stack);
    } else if (event.type === 'test:pass' || event.type === 'test:fail') {
      let outcome = event.type === 'test:pass' ? 'passed' : 'failed';
      if (data.skip !== undefined || data.todo !== undefined) outcome = 'skipped';
      const error = data.details?.error;
      yield JSON.stringify({
        file: data.file ?? null,
        name: fullName(data),
        nesting: data.nesting,
        outcome,
        failure: error ? String(error.failureType ?? error.code ?? 'error') : null,
        message: error ? String(error.cause?.message ?? error.message ?? '').slice(0, 500) : '',
      }) + '\n';
    }
  }
  yield JSON.stringify({ finished: true }) + '\n';
}
