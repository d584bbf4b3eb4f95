// ESLint for the SPA (TypeScript), its browser tests and the rules tests.
// The size limits are the house rules of CONTRIBUTING.md: no function over
// 60 lines, no module over 400.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const sizes = {
  'max-lines-per-function': ['error', { max: 60 }],
  'max-lines': ['error', { max: 400 }],
};
// A test file's describe() callbacks group cases rather than do one thing:
// unit and rules tests keep the module limit only.
const testSizes = { 'max-lines': ['error', { max: 400 }] };

export default tseslint.config(
  { ignores: ['**/node_modules/**', 'web/dist*/**', 'functions/**', 'tools/**', 'test-results/**', '.cache/**'] },
  {
    files: ['web/src/**/*.ts', 'web/vite.config.ts'],
    extends: [js.configs.recommended, ...tseslint.configs.recommended],
    languageOptions: { globals: globals.browser },
    rules: sizes,
  },
  { files: ['web/src/**/*.test.ts'], rules: { 'max-lines-per-function': 'off' } },
  // Every Firestore read and write goes through the data layer (web/src/data/): the queries the
  // rules allow and the stored shapes (data/docs.ts) live in one place.
  {
    files: ['web/src/**/*.ts'],
    ignores: ['web/src/data/**'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [{ group: ['firebase/firestore', 'firebase/firestore/*'], message: 'Read and write Firestore through web/src/data/.' }],
      }],
    },
  },
  {
    files: ['web/e2e/**/*.mjs', 'rules-tests/**/*.mjs', 'eslint.config.js'],
    extends: [js.configs.recommended],
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
    rules: testSizes,
  },
  // The firebase CLI's preload (scripts/worker_ports.cjs) and the probe that tests it.
  {
    files: ['scripts/**/*.cjs', 'tests/**/*.cjs'],
    extends: [js.configs.recommended],
    languageOptions: { sourceType: 'commonjs', globals: globals.node },
    rules: sizes,
  },
  // A browser test is one long story: its test() callback names the steps, each a function of
  // its own, so the function limit holds there too.
  { files: ['web/e2e/**/*.mjs'], rules: sizes },
);
