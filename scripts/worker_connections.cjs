// Preloaded into every node process beside worker_ports.cjs (NODE_OPTIONS, set by pick_java in
// scripts/lib.sh); it acts in the firebase CLI alone: a call the Functions emulator proxies to a
// Python worker goes on a connection of its own.
//
// firebase-tools' functions emulator (functionsRuntimeWorker.ts, request) proxies each call with
// http.request and no agent of its own, so Node's global agent keeps the connection to the worker
// for 5 s after a call. The worker's gunicorn closes an idle connection after 2 s. A call sent in the
// moment the worker closes the connection it reuses fails with "socket hang up": the caller gets a
// 500 (ECONNRESET) and the emulator kills the worker. A call between 2 and 5 s after the previous
// one to the same function can meet it, as a browser test's listModels once did. Without reuse
// there is no such moment; a worker on loopback costs a connection per call, nothing more.
'use strict';
const http = require('http');

/** Whether this process is a firebase CLI (the project's, or the one pinned for Java 17). */
function isFirebaseCli(script) {
  return /(^|[\\/])firebase$/.test(script || '') || /[\\/]firebase-tools[\\/]/.test(script || '');
}

if (isFirebaseCli(process.argv[1])) {
  http.globalAgent = new http.Agent({ keepAlive: false });
}

module.exports = { isFirebaseCli };
