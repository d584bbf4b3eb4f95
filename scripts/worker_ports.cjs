// Preloaded into the firebase CLI (NODE_OPTIONS, set by pick_java in scripts/lib.sh) so that a port
// the CLI hands out for a Python worker is handed out once.
//
// firebase-tools' functions emulator (functionsEmulator.ts, startPython) asks portfinder for a free
// port from 8081 plus a random jitter below 1000, and the worker binds it only after importing
// main.py. Two workers started meanwhile can be handed the same port: the loser's gunicorn logs
// "Connection in use" and exits, while its readiness check is answered by the winner, so requests
// meant for one function reach another's process. Several stacks on one machine (a developer's
// scripts/dev beside scripts/test, bench-smoke's own stacks) widen the window to every CLI at once.
//
// Every portfinder the process loads is wrapped: its calls run one at a time; a port it finds free
// is skipped if anything answers a connection on it, and taken only once it is claimed in a
// registry shared by every CLI of this user on the machine, which refuses a port claimed less than
// a minute before (claim() says how, without a lock).
'use strict';
const fs = require('fs');
const Module = require('module');
const net = require('net');
const os = require('os');
const path = require('path');

const WINDOW_MS = 60_000;
// How long a connection attempt may hang before the port counts as taken (a listener whose
// backlog is full drops the attempt; a closed port refuses it at once).
const PROBE_MS = 5_000;
const uid = typeof process.getuid === 'function' ? process.getuid() : 'user';
const REGISTRY = process.env.CARDCHAT_PORT_REGISTRY || path.join(os.tmpdir(), `cardchat-worker-ports-${uid}`);

const entry = (port, minute) => path.join(REGISTRY, `${port}@${minute}`);

// A claim is one file per port and minute, created exclusively, then a look at the neighbouring
// minutes. Two claims of one port less than a minute apart fall in the same minute (one create
// fails) or in neighbouring ones, where each wrote before it looked: whichever looked last sees the
// other's file, so at most one of them succeeds. A refused claim keeps its file; the port is
// skipped a little longer, never handed out twice.
function claim(port, now = Date.now()) {
  const minute = Math.floor(now / WINDOW_MS);
  fs.mkdirSync(REGISTRY, { recursive: true });
  try {
    fs.writeFileSync(entry(port, minute), `${process.pid}\n`, { flag: 'wx' });
  } catch (err) {
    if (err.code === 'EEXIST') return false;
    throw err;
  }
  forgetBefore(minute - 3);
  return !fs.existsSync(entry(port, minute - 1)) && !fs.existsSync(entry(port, minute + 1));
}

// Entries three minutes old are never looked at again (a claim looks one minute back).
function forgetBefore(minute) {
  for (const name of fs.readdirSync(REGISTRY)) {
    const at = Number(name.split('@')[1]);
    if (at < minute) fs.rmSync(path.join(REGISTRY, name), { force: true });
  }
}

function answers(port) {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    const done = (listening) => {
      socket.destroy();
      resolve(listening);
    };
    socket.setTimeout(PROBE_MS, () => done(true));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

function wrap(portfinder) {
  const find = portfinder.getPort;
  let queue = Promise.resolve();
  async function firstUnclaimed(options) {
    let start = options.port;
    for (;;) {
      // portfinder writes its defaults into the options it is given: each try gets a fresh copy
      const port = await find.call(portfinder, { ...options, port: start });
      if (!(await answers(port)) && claim(port)) return port;
      start = port + 1;
    }
  }
  function getPort(options, callback) {
    if (typeof options === 'function') [callback, options] = [options, {}];
    const found = queue.then(() => firstUnclaimed({ ...options }));
    queue = found.catch(() => undefined);
    if (!callback) return found;
    found.then((port) => callback(null, port), callback);
  }
  portfinder.getPort = getPort;
  portfinder.getPortPromise = getPort;
}

// Hooked at require time, so that modules which keep a reference to getPortPromise when they
// load (firebase-tools' auth.js does) keep the wrapped one. A portfinder is wrapped once even when
// two copies of this file are preloaded (two worktrees' scripts nested): wrapped twice, each
// wrapper would refuse the port the other had just claimed, for ever.
const WRAPPED = Symbol.for('cardchat.worker_ports.wrapped');
const load = Module._load;
Module._load = function loadWrappingPortfinder(request, ...rest) {
  const exported = load.call(this, request, ...rest);
  if (request === 'portfinder' && !exported[WRAPPED]) {
    wrap(exported);
    exported[WRAPPED] = true;
  }
  return exported;
};

module.exports = { claim, WINDOW_MS };
