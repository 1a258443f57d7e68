// ESLint (flat config): typescript-eslint's recommended rules, and the layer rules that
// keep the folders apart (import-x/no-restricted-paths, on resolved file paths).
import { defineConfig } from 'eslint/config';
import { createNodeResolver, importX } from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';

/** src/api reaches another folder only through its entry point (index.ts). */
const throughIndex = (folder) => ({
  target: './src/api',
  from: `./src/${folder}`,
  except: ['./index.ts'],
  message: `src/api imports src/${folder}/ only through src/${folder}/index.ts: export what it needs there.`,
});

export default defineConfig(
  { ignores: ['dist/', 'generated/', 'node_modules/', 'out/', 'studio/dist/', 'scripts/runtime/', 'scripts/client-package/dist/', 'data/'] },
  tseslint.configs.recommended,
  {
    files: ['**/*.{ts,mts,js,mjs}'],
    plugins: { 'import-x': importX },
    settings: {
      // Sources import each other as `./x.js` (NodeNext); the files are `x.ts`.
      'import-x/resolver-next': [createNodeResolver({ extensionAlias: { '.js': ['.ts', '.js'] } })],
    },
    rules: {
      // An unused name is a mistake unless it says it is meant: `_next` in an Express error handler, `{ x: _x, ...rest }`.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true }],
      'import-x/no-restricted-paths': [
        'error',
        {
          zones: [
            {
              target: './src/labels',
              from: ['./src/api', './src/printing'],
              message: 'src/labels is pure rendering: it never imports api, printing or records.',
            },
            {
              target: './src/labels',
              from: './src/records',
              // Pure modules without runtime imports, shared by records and labels: how people write an asset id
              // (asset-id.ts), and the record and label kinds with what each means (kinds.ts).
              except: ['./asset-id.ts', './kinds.ts'],
              message: 'src/labels is pure rendering: it never imports api, printing or records.',
            },
            { target: ['./src/records', './src/printing'], from: './src/api', message: 'records and printing never import src/api.' },
            // A dialect folder stands alone; what the dialects share (sql/, import/, the top of
            // src/records) never reaches into one. Only index.ts (openStore) picks a dialect.
            { target: './src/records/sqlite', from: './src/records/postgres', message: 'a dialect folder never imports another: share it through src/records/sql/.' },
            { target: './src/records/postgres', from: './src/records/sqlite', message: 'a dialect folder never imports another: share it through src/records/sql/.' },
            {
              target: ['./src/records/sql', './src/records/import', './src/records/!(index).ts'],
              from: ['./src/records/sqlite', './src/records/postgres'],
              message: 'shared records code is written once for every dialect: it never imports a dialect folder (src/records/index.ts picks one).',
            },
            {
              target: './studio',
              from: './src/labels',
              // grid.ts is arithmetic on mm with no stock table: the designer places a grid design's cells as the service does.
              except: ['./grid.ts'],
              message: 'The studio learns the stocks from the service it talks to (listStocks, studio/src/stocks.ts), never from the server\'s own tables at build time.',
            },
            throughIndex('labels'),
            throughIndex('printing'),
            throughIndex('records'),
          ],
        },
      ],
    },
  },
  {
    // Canvas calls that reach fonts run one thread at a time (src/labels/font-lock.ts): cairo
    // closes a FreeType face under a thread drawing with it, and the process dies.
    files: ['src/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.property.name=/^(fillText|strokeText|measureText)$/]:not(CallExpression[callee.name='withFontLock'] *)",
          message: 'Measure and draw text inside withFontLock (src/labels/font-lock.ts).',
        },
        {
          selector: "CallExpression[callee.property.name='toBuffer'][arguments.0.value='application/pdf']:not(CallExpression[callee.name='withFontLock'] *)",
          message: "Finish a PDF (toBuffer('application/pdf'): it embeds font subsets) inside withFontLock (src/labels/font-lock.ts).",
        },
      ],
    },
  },
);
