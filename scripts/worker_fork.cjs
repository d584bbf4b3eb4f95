// Preloaded into the firebase CLI beside worker_ports.cjs (NODE_OPTIONS, set by pick_java in
// scripts/lib.sh): the Functions emulator's Python workers start as forks of one process that has
// imported main.py already (scripts/worker_fork.py says how), instead of each importing it afresh.
//
// firebase-tools starts a worker with runWithVirtualEnv(["functions-framework"], functionsDir, env)
// (functions/python.ts); this swaps that command for scripts/worker_fork.py, run by the venv's
// python with -S: the launcher needs nothing but the standard library, so it starts in milliseconds.
// CARDCHAT_WORKER_FORK=0 in the CLI's environment turns it off (the launcher then runs
// functions-framework itself, as before).
'use strict';
const Module = require('module');
const path = require('path');

const LAUNCHER = path.join(__dirname, 'worker_fork.py');
const WRAPPED = Symbol.for('cardchat.worker_fork.wrapped');

function wrap(python) {
  const run = python.runWithVirtualEnv;
  python.runWithVirtualEnv = function runForked(commandAndArgs, ...rest) {
    const forked = commandAndArgs.length === 1 && commandAndArgs[0] === 'functions-framework';
    return run.call(this, forked ? ['python', '-S', JSON.stringify(LAUNCHER)] : commandAndArgs, ...rest);
  };
}

const load = Module._load;
Module._load = function loadWrappingPython(request, ...rest) {
  const exported = load.call(this, request, ...rest);
  if (/(^|\/)functions\/python(\.js)?$/.test(request) && typeof exported?.runWithVirtualEnv === 'function'
      && !exported[WRAPPED]) {
    wrap(exported);
    exported[WRAPPED] = true;
  }
  return exported;
};

module.exports = { LAUNCHER };
