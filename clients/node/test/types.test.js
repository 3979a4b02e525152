'use strict';
// The TypeScript types: types/generated from the protos (npm run gen-types), and a small
// backend in TypeScript (test/typescript/backend.ts) checked against types/index.d.ts with
// `tsc --noEmit`; a misspelt field of the decoded error details must fail the check.
const assert = require('node:assert/strict');
const { execFileSync, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { test } = require('node:test');

const PACKAGE_DIR = path.resolve(__dirname, '..');
const TSC = path.join(path.dirname(require.resolve('typescript/package.json')), 'bin', 'tsc');

function tsc(project) {
  return spawnSync(process.execPath, [TSC, '--noEmit', '-p', project], { encoding: 'utf8', timeout: 120000 });
}

test('the TypeScript example type-checks against the shipped types', () => {
  execFileSync(process.execPath, [path.join(PACKAGE_DIR, 'scripts', 'build.js'), 'types'], { timeout: 120000 });
  assert.ok(fs.existsSync(path.join(PACKAGE_DIR, 'types', 'generated', 'cardengine', 'v1', 'GameView.d.ts')));
  const checked = tsc(path.join(__dirname, 'typescript'));
  assert.equal(checked.status, 0, checked.stdout + checked.stderr);

  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'cardengine-ts-'));
  try {
    fs.writeFileSync(path.join(work, 'wrong.ts'), [
      `import { errorDetails } from ${JSON.stringify(PACKAGE_DIR)};`,
      'export const rule: string = errorDetails(new Error()).ruleid;',
      '',
    ].join('\n'));
    fs.writeFileSync(path.join(work, 'tsconfig.json'), JSON.stringify({
      compilerOptions: { module: 'nodenext', target: 'es2022', strict: true, noEmit: true, types: ['node'],
        typeRoots: [path.join(PACKAGE_DIR, 'node_modules', '@types')] },
      files: ['wrong.ts'],
    }));
    const wrong = tsc(work);
    assert.notEqual(wrong.status, 0);
    assert.match(wrong.stdout, /ruleid/);
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
});
