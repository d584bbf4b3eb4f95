// What the browser tests keep on a page's window (set and read through page.evaluate):
// tsc checks the tests' .mjs files against it (web/e2e/tsconfig.json).
interface Window {
  __answerStates: { text: string; done: boolean }[];
  __routes: (string | undefined)[];
  __csp: string[];
  axe: typeof import('axe-core');
}
