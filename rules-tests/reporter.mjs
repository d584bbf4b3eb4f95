// A node:test reporter for run.mjs: one JSON line per finished test or suite,
// {name, file, suite, passed, skipped, error}, instead of TAP to parse, and
// {output} for what a test file printed (why a file could not even load).

export default async function* jsonLines(source) {
  for await (const event of source) {
    if (event.type === 'test:stdout' || event.type === 'test:stderr') {
      yield `${JSON.stringify({ output: event.data.message })}\n`;
      continue;
    }
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { name, file, details } = event.data;
    const error = details?.error;
    const cause = error?.cause ?? error;
    yield `${JSON.stringify({
      name,
      file,
      suite: details?.type === 'suite',
      passed: event.type === 'test:pass',
      skipped: Boolean(event.data.skip || event.data.todo),
      error: cause ? String(cause.message ?? cause) : null,
    })}\n`;
  }
}
