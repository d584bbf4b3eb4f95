// CPU seconds used so far by the processes of this worktree's stack, by role:
// what the emulators and the functions did while a browser benchmark ran
// (read at each step, the differences say who was busy). Linux only (/proc);
// elsewhere every figure is 0.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const TICKS = 100; // USER_HZ on Linux

function read(file) {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

/** A process's role by its command line, or null when it is not this stack's (nor this benchmark's browser). */
function role(pid, cmd, browserRoot) {
  if (cmd.includes('chrom') && isDescendant(pid, browserRoot)) return 'browser';
  if (!cmd.includes(ROOT)) return null;
  if (cmd.includes('firestore-emulator')) return 'firestore emulator (java)';
  if (cmd.includes('python')) return 'functions (python)';
  if (cmd.includes('firebase')) return 'firebase CLI (node)';
  return null;
}

function parentOf(pid) {
  const stat = read(`/proc/${pid}/stat`);
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
}

function isDescendant(pid, root) {
  for (let p = pid, hops = 0; p > 1 && hops < 50; p = parentOf(p), hops++) if (p === root) return true;
  return false;
}

/** {role: cpu seconds} for the stack's processes alive now (`browserRoot`: the pid whose child browsers count). */
export function cpuByRole(browserRoot = process.pid) {
  const out = {};
  let pids = [];
  try {
    pids = readdirSync('/proc').filter((p) => /^\d+$/.test(p));
  } catch {
    return out;
  }
  for (const pid of pids) {
    const cmd = read(`/proc/${pid}/cmdline`).replace(/\0/g, ' ');
    const r = cmd && role(Number(pid), cmd, browserRoot);
    if (!r) continue;
    const f = read(`/proc/${pid}/stat`);
    const fields = f.slice(f.lastIndexOf(')') + 2).split(' ');
    out[r] = (out[r] ?? 0) + (Number(fields[11]) + Number(fields[12])) / TICKS; // utime + stime
  }
  return out;
}

/** "firestore emulator (java) 12.3 s, functions (python) 4.0 s" between two readings. */
export function cpuSpent(before, after) {
  return Object.keys(after).sort()
    .map((r) => `${r} ${(after[r] - (before[r] ?? 0)).toFixed(1)} s`).join(', ');
}
