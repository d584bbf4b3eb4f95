// Turns callable / Firestore errors into sentences a reader can act on. The
// server's message is kept where it is written for people (invalid-argument
// names the field, resource-exhausted says how long to wait).

export interface CodedError {
  code?: string;
  message?: string;
}

const PLAIN: Record<string, string> = {
  unauthenticated: 'Please sign in again.',
  'permission-denied': 'You are not allowed to do that.',
  'not-found': 'That no longer exists.',
  unavailable: 'The server could not be reached. Check your connection and try again.',
  'deadline-exceeded': 'The server took too long to answer. Try again.',
  internal: 'Something went wrong on the server. Try again.',
};

export function errorCode(err: unknown): string {
  const code = (err as CodedError | null)?.code ?? '';
  return code.replace(/^(functions|firestore|auth)\//, '');
}

export function describeError(err: unknown, action = 'That'): string {
  const code = errorCode(err);
  const raw = ((err as CodedError | null)?.message ?? '').trim();
  // The SDK prefixes nothing for callables, but Firestore adds the code.
  const message = raw.replace(/^(FirebaseError|Function \w+):\s*/, '');
  switch (code) {
    case 'permission-denied':
      return message && !/missing or insufficient permissions/i.test(message)
        ? message
        : `${action} is not allowed for your account.`;
    case 'invalid-argument':
    case 'resource-exhausted':
    case 'failed-precondition':
      return message || PLAIN.internal;
    case 'auth/invalid-credential':
    case 'invalid-credential':
    case 'wrong-password':
    case 'user-not-found':
      return 'Wrong email or password.';
    default:
      return PLAIN[code] ?? (message || `${action} failed.`);
  }
}
