// Starts Python workers the way firebase-tools' functions emulator does, through its own
// startPython, and prints the ports they were given as JSON (tests/test_worker_ports.py runs it
// with and without scripts/worker_ports.cjs preloaded).
//
//   node [--require scripts/worker_ports.cjs] tests/worker_ports_probe.cjs FIREBASE_TOOLS SEED COUNT MODE
//
// FIREBASE_TOOLS is the firebase-tools package directory. Math.random, which draws the emulator's
// jitter, is seeded with SEED, so a run draws the same starting ports every time. MODE is
// "one-by-one" (each worker asks once the previous one has its port, none has bound it yet: how
// workers started seconds apart meet) or "together" (every worker asks at once, as concurrent
// requests to cold functions do). The venv's functions-framework is a stub that exits at once,
// so nothing binds the ports meanwhile.
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');

const [toolsDir, seed, count, mode] = process.argv.slice(2);

function seeded(state) {
  // mulberry32: a small PRNG whose sequence depends on the seed alone
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function stubBackend() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'worker-ports-probe-'));
  const bin = path.join(dir, 'venv', 'bin');
  fs.mkdirSync(bin, { recursive: true });
  fs.writeFileSync(path.join(bin, 'activate'), `PATH="${bin}:$PATH"\n`);
  fs.writeFileSync(path.join(bin, 'functions-framework'), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
  return { functionsDir: dir };
}

async function main() {
  const { FunctionsEmulator } = require(path.resolve(toolsDir, 'lib', 'emulator', 'functionsEmulator.js'));
  Math.random = seeded(Number(seed));
  const emulator = Object.create(FunctionsEmulator.prototype);
  emulator.debugMode = false;
  const backend = stubBackend();
  const runtimes = [];
  const start = async () => {
    const runtime = await emulator.startPython(backend, {});
    runtimes.push(runtime);
    return runtime.conn.port;
  };
  let ports = [];
  if (mode === 'together') {
    ports = await Promise.all(Array.from({ length: Number(count) }, start));
  } else {
    for (let i = 0; i < Number(count); i++) ports.push(await start());
  }
  await Promise.all(runtimes.map((r) => new Promise((done) => {
    if (r.process.exitCode !== null) done();
    else r.process.once('exit', done);
  })));
  fs.rmSync(backend.functionsDir, { recursive: true, force: true });
  process.stdout.write(JSON.stringify(ports) + '\n');
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
