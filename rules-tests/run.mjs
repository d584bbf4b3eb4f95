// The rules suite and its proof that it can fail.
//
//   FIRESTORE_EMULATOR_HOST=127.0.0.1:8080 node rules-tests/run.mjs
//
// Phase 1 runs every rules-tests/*.test.mjs against firestore.rules (or
// CARDCHAT_RULES_FILE): all must pass, none may be skipped, and every test
// must be named `allow: …` or `deny: …`.
// Phase 2 runs the same suite against permissive.rules (everything allowed):
// every `deny:` test must fail there, and fail because the request went
// through. A deny test that passes anyway tests nothing about our rules.
// Exits non-zero if either phase is off.

import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
const REPO = dirname(HERE);
const REPORTER = join(HERE, 'reporter.mjs');
// Set by assertFails when the request it expected to be denied succeeded.
const SUCCEEDED = 'Expected request to fail, but it succeeded';

/**
 * Runs the suite with `rulesFile`; resolves to the leaf tests' results, the
 * suites that failed (a describe whose body threw runs none of its tests, so
 * counting leaves alone would miss it), node's exit code, and what the test
 * files printed.
 */
function runSuite(rulesFile, projectSuffix, extraArgs = []) {
  const files = readdirSync(HERE).filter((f) => f.endsWith('.test.mjs')).sort().map((f) => join(HERE, f));
  const args = [
    '--test',
    // Each file has its own emulator project, so files may run side by side.
    '--test-concurrency=2',
    `--test-reporter=${REPORTER}`,
    '--test-reporter-destination=stdout',
    ...extraArgs,
    ...files,
  ];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      cwd: REPO,
      env: { ...process.env, CARDCHAT_RULES_FILE: rulesFile, CARDCHAT_RULES_PROJECT_SUFFIX: projectSuffix },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (chunk) => { out += chunk; });
    child.on('error', reject);
    child.on('close', (code) => {
      const results = [];
      const brokenSuites = [];
      let output = '';
      for (const line of out.split('\n')) {
        if (!line.trim()) continue;
        let r;
        try {
          r = JSON.parse(line);
        } catch {
          output += `${line}\n`;
          continue;
        }
        if ('output' in r) output += r.output;
        else if (!r.suite) results.push(r);
        else if (!r.passed) brokenSuites.push(r);
      }
      resolve({ results, brokenSuites, code, output });
    });
  });
}

const key = (r) => `${r.file.slice(HERE.length + 1)} > ${r.name}`;
const kind = (r) => (r.name.startsWith('allow: ') ? 'allow' : r.name.startsWith('deny: ') ? 'deny' : null);

function duplicates(results) {
  const seen = new Set();
  return results.map(key).filter((k) => (seen.has(k) ? true : (seen.add(k), false)));
}

function report(title, lines) {
  if (lines.length === 0) return;
  console.log(`${title}:`);
  for (const line of lines) console.log(`  ${line}`);
}

async function main() {
  if (!process.env.FIRESTORE_EMULATOR_HOST) {
    console.error('rules: set FIRESTORE_EMULATOR_HOST=host:port of a running Firestore emulator');
    return 2;
  }
  let ok = true;

  // Both phases at once, in separate emulator projects. The permissive run
  // needs only the deny tests; the allow tests would pass there and cost time.
  const [{ results: real, brokenSuites, code, output }, { results: permissive }] = await Promise.all([
    // CARDCHAT_RULES_FILE lets a rules change be tried before it replaces firestore.rules.
    runSuite(process.env.CARDCHAT_RULES_FILE || 'firestore.rules', ''),
    runSuite('rules-tests/permissive.rules', '-permissive', ['--test-name-pattern=^deny: ']),
  ]);

  // Phase 1: the real rules.
  const failed = real.filter((r) => !r.passed);
  const skipped = real.filter((r) => r.skipped);
  const unnamed = real.filter((r) => kind(r) === null);
  const dupes = duplicates(real);
  report('failed', failed.map((r) => `${key(r)}: ${r.error}`));
  report('skipped (not allowed: every row of the matrix must run)', skipped.map(key));
  report('not named "allow: …" or "deny: …"', unnamed.map(key));
  report('duplicate test names', dupes);
  report('suites that failed (their tests did not all run)', brokenSuites.map((r) => `${key(r)}: ${r.error}`));
  const allows = real.filter((r) => kind(r) === 'allow').length;
  const denies = real.filter((r) => kind(r) === 'deny');
  console.log(`rules: ${real.length - failed.length} passed, ${failed.length} failed `
    + `(${allows} allow, ${denies.length} deny)`);
  if (code !== 0) console.log(`rules: node --test exited with ${code}`);
  if (real.length === 0 || failed.length || skipped.length || unnamed.length || dupes.length
      || brokenSuites.length || code !== 0) {
    if (output) console.log(`test output:\n${output}`);
    ok = false;
  }

  // Phase 2: permissive rules; every deny test must now fail.
  const loose = new Map(permissive.map((r) => [key(r), r]));
  const wrong = [];
  for (const d of denies) {
    const r = loose.get(key(d));
    if (!r) wrong.push(`${key(d)}: did not run`);
    else if (r.passed) wrong.push(`${key(d)}: passed although everything was allowed`);
    else if (!String(r.error).includes(SUCCEEDED)) wrong.push(`${key(d)}: failed for another reason: ${r.error}`);
  }
  report('deny tests that did not fail because the request went through', wrong);
  console.log(`rules permissive check: ${denies.length} deny tests, `
    + `${denies.length - wrong.length} failed as they should`);
  if (wrong.length || denies.length === 0) ok = false;

  return ok ? 0 : 1;
}

process.exitCode = await main();
